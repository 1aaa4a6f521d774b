import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IConstruct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '../../lib/transport/http/origin-verify.js';
import { DEEP_LINK_REQUEST_PATHS, PAGE_DEEP_LINKS } from '../../web/src/page-paths.js';

/**
 * A CloudFront Function (viewer request) that answers the page's deep links (web/src/page-paths.ts)
 * with index.html: the bucket holds index.html only at the root, and S3 behind OAC resolves no
 * folder index. Only these paths are rewritten, so a missing asset still gets S3's refusal rather
 * than a page.
 */
export function deepLinkFunctionCode(paths: readonly string[] = DEEP_LINK_REQUEST_PATHS): string {
  return [
    `var DEEP_LINKS = ${JSON.stringify(paths)};`,
    'function handler(event) {',
    '  var request = event.request;',
    "  if (DEEP_LINKS.indexOf(request.uri) !== -1) request.uri = '/index.html';",
    '  return request;',
    '}',
  ].join('\n');
}

export interface WebHostingProps {
  /** `{apiId}.execute-api.{region}.{suffix}`: `/api/*` is forwarded there. */
  apiDomainName: string;
  /** Folder of the built key-management page; when absent the bucket stays empty. */
  assetsDir?: string;
  /** Sent to the API as ORIGIN_VERIFY_HEADER: the functions refuse requests without it (direct execute-api calls). */
  originVerifySecret: ISecret;
  /** The web ACL (CLOUDFRONT scope) attached to the distribution. */
  webAclArn: string;
  /** A custom domain and its ACM certificate (us-east-1). */
  domain?: { name: string; certificate: ICertificate };
}

/**
 * The key-management page: a private bucket read by CloudFront through Origin Access Control, and a
 * second behavior that forwards `/api/*` to the HTTP API uncached, so the page calls `/api/v1/...` on
 * its own origin (no CORS, no API URL baked into the page).
 *
 * The bucket holds only built assets, reproducible from the repository: it is destroyed with the
 * stack (objects included) rather than left behind.
 */
export class WebHosting extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;

  constructor(scope: Construct, id: string, props: WebHostingProps) {
    super(scope, id);

    this.bucket = new s3.Bucket(this, 'Assets', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });

    const api = new HttpOrigin(props.apiDomainName, {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      // A dynamic reference ({{resolve:secretsmanager:...}}), resolved by CloudFormation at deploy
      // time: the value is in neither the code nor the template.
      customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originVerifySecret.secretValue.unsafeUnwrap() },
    });
    const deepLinks = new cloudfront.Function(this, 'PageDeepLinks', {
      comment: `expohub: the page's deep links (${PAGE_DEEP_LINKS.join(', ')}) answer with index.html`,
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      code: cloudfront.FunctionCode.fromInline(deepLinkFunctionCode()),
    });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'expohub: key-management page, /api/*, share pages /s/* and /.well-known/*',
      defaultRootObject: 'index.html',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_200,
      webAclId: props.webAclArn,
      ...(props.domain
        ? {
            domainNames: [props.domain.name],
            certificate: props.domain.certificate,
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: cloudfront.ResponseHeadersPolicy.SECURITY_HEADERS,
        compress: true,
        functionAssociations: [{ function: deepLinks, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/api/*': {
          origin: api,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          // Never cached: every answer is per caller, and a revoked key must fail at once. With
          // caching off, this policy also forwards the Authorization header, and it adds
          // CloudFront's headers, CloudFront-Viewer-Address among them (the caller's IP).
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
        // Share pages (docs/hub-api.md, "The share page"): not cached here, since a network's first view of
        // the day counts an open (the page asks browsers to keep it a minute); Accept-Language, User-Agent
        // and CloudFront-Viewer-Address (the viewer's network) reach the function.
        '/s/*': {
          origin: api,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          compress: true,
        },
        // The app association files, so that share links open the app on phones.
        '/.well-known/*': {
          origin: api,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
          compress: true,
        },
      },
    });

    if (props.assetsDir) this.deployPage(props.assetsDir);

    this.suppressFindings(props.domain);
  }

  /**
   * The page's assets have content-hashed names and are cached for good; index.html names the
   * current ones, so it is revalidated on every load and uploaded last (never pointing at assets that
   * are not there yet). Older assets are kept (no prune): a page loaded just before a deployment can
   * still fetch them; they are a few kilobytes each.
   */
  private deployPage(assetsDir: string) {
    const source = Source.asset(assetsDir);
    const logGroup = new LogGroup(this, 'PageDeploymentLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const assets = new BucketDeployment(this, 'PageAssets', {
      sources: [source],
      destinationBucket: this.bucket,
      exclude: ['index.html'],
      prune: false,
      cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
      logGroup,
    });
    const index = new BucketDeployment(this, 'PageIndex', {
      sources: [source],
      destinationBucket: this.bucket,
      exclude: ['*'],
      include: ['index.html'],
      prune: false,
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/', '/index.html'],
      logGroup,
    });
    index.node.addDependency(assets);
  }

  private suppressFindings(domain: WebHostingProps['domain']) {
    NagSuppressions.addResourceSuppressions(this.bucket, [
      {
        id: 'AwsSolutions-S1',
        reason: 'Holds only the built static page, read solely by CloudFront through OAC; API calls are logged by the HTTP API access log.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(this.distribution, [
      { id: 'AwsSolutions-CFR1', reason: 'The service is not restricted by country; no geo restriction is required.' },
      {
        id: 'AwsSolutions-CFR3',
        reason: 'Standard logs would need an ACL-enabled log bucket; requests to /api/* are logged by the HTTP API access log, the rest is a static page.',
      },
    ]);
    if (!domain) {
      NagSuppressions.addResourceSuppressions(this.distribution, [
        {
          id: 'AwsSolutions-CFR4',
          reason: 'No custom domain configured (-c domainName): the default *.cloudfront.net certificate, for which CloudFront fixes the viewer TLS policy. With a domain, TLS 1.2 (2021) is the minimum.',
        },
      ]);
    }

    // Custom resources that CDK adds for the page upload and for emptying the bucket on teardown:
    // their code, runtime and roles come from aws-cdk-lib and run only during deployments.
    const stack = Stack.of(this);
    const providerReason =
      'CDK-provided deployment-time custom resource (BucketDeployment / S3 auto-delete); its runtime and role are managed by aws-cdk-lib and it never serves requests.';
    const isCdkProvider = (c: IConstruct) =>
      c.node.id.startsWith('Custom::CDKBucketDeployment') || c.node.id.startsWith('Custom::S3AutoDeleteObjectsCustomResourceProvider');
    for (const provider of stack.node.children.filter(isCdkProvider)) {
      NagSuppressions.addResourceSuppressions(
        provider,
        [
          { id: 'AwsSolutions-IAM4', reason: `${providerReason} It uses AWSLambdaBasicExecutionRole.` },
          { id: 'AwsSolutions-IAM5', reason: `${providerReason} It copies objects into this stack's page bucket.` },
          { id: 'AwsSolutions-L1', reason: `${providerReason}` },
        ],
        true,
      );
    }
  }
}
