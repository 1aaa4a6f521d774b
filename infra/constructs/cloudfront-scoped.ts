import { Aws, CfnRule, Fn, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HostedZone } from 'aws-cdk-lib/aws-route53';
import type { Construct } from 'constructs';
import { namePrefix, type ExpohubSettings } from '../settings.js';
import { CLOUDFRONT_REGION } from '../regions.js';
import { WebAcl } from './web-acl.js';

/** What CloudFront takes from us-east-1: the web ACL's ARN, and the custom domain's certificate when there is one. */
export interface CloudFrontScoped {
  webAclArn: string;
  certificate?: ICertificate;
}

/**
 * Creates in `scope` (a stack in us-east-1, or an environment-agnostic one that must be deployed
 * there) the pieces of the distribution that exist only in us-east-1 and that the settings do not
 * name already: the web ACL unless `webAclArn` is given, and, for a custom domain given with its
 * hosted zone but no `certificateArn`, a certificate validated by DNS in that zone. Construct ids
 * are the stack-level ones a us-east-1 stack has always had (WebAcl), so its resources keep their
 * logical ids.
 */
export function cloudFrontScoped(scope: Construct, settings: ExpohubSettings): CloudFrontScoped {
  const stack = Stack.of(scope);
  const keep = settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
  const webAclArn =
    settings.webAclArn ??
    new WebAcl(scope, 'WebAcl', {
      namePrefix: namePrefix(settings.stage),
      requestsPer5Min: settings.limits.wafRequestsPer5Min,
      genCodePer5Min: settings.limits.wafGenCodePer5Min,
      verifyPer5Min: settings.limits.wafVerifyPer5Min,
      logRemovalPolicy: keep,
    }).acl.attrArn;

  const domain = settings.domain;
  let certificate: ICertificate | undefined;
  if (domain?.certificateArn !== undefined) {
    certificate = Certificate.fromCertificateArn(scope, 'Certificate', domain.certificateArn);
  } else if (domain?.hostedZoneId !== undefined) {
    if (!Token.isUnresolved(stack.region) && stack.region !== CLOUDFRONT_REGION) {
      throw new Error(`The certificate of ${domain.name} must be made in ${CLOUDFRONT_REGION} (CloudFront uses no other region), not in ${stack.region}: infra/app.ts makes it in the companion stack.`);
    }
    if (Token.isUnresolved(stack.region)) {
      new CfnRule(stack, 'CertificateRegion', {
        assertions: [
          {
            assert: Fn.conditionEquals(Aws.REGION, CLOUDFRONT_REGION),
            assertDescription: `CloudFront takes certificates from ${CLOUDFRONT_REGION} only: deploy with the target region known (cdk deploy sets it from the credentials, or -c region=) so that the certificate goes to the us-east-1 companion stack (docs/deploy.md, "Regions").`,
          },
        ],
      });
    }
    const made = new Certificate(scope, 'Certificate', {
      domainName: domain.name,
      validation: CertificateValidation.fromDns(HostedZone.fromHostedZoneId(scope, 'HostedZone', domain.hostedZoneId)),
    });
    // A certificate in use by the distribution cannot be deleted; a production one is kept with its data.
    made.applyRemovalPolicy(keep);
    certificate = made;
  }
  return { webAclArn, certificate };
}
