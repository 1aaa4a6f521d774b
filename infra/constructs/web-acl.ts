import { ArnFormat, Aws, CfnRule, Fn, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ROUTES } from '../routes.js';

export interface WebAclProps {
  /** `expohub-<stage>`: the ACL's name and its metrics' prefix. */
  namePrefix: string;
  /** Requests per viewer IP per 5 minutes, any path. */
  requestsPer5Min: number;
  /** `?do=gen_code` per viewer IP per 5 minutes. */
  genCodePer5Min: number;
  /** `GET /api/v1/api-keys/verify` per viewer IP per 5 minutes. */
  verifyPer5Min: number;
  /** The WAF log group's fate when the stack is deleted. */
  logRemovalPolicy?: RemovalPolicy;
}

/**
 * What the hub runs as gen_code, as WAF sees the whole query string after URL_DECODE and LOWERCASE.
 * The hub (lib/transport/http/request.ts, lib/transport/hub/dispatch.ts) decodes the raw query string once, name and
 * value, takes the first `do` and trims it: `do=gen_code+`, `d%6F=gen%5Fcode`, `do=%E3%80%80gen_code`
 * all send an SMS. Matching `do=`, then anything but `&`, then `gen_code` anywhere in the decoded
 * string covers every such spelling, whatever the whitespace trimmed; what it also matches (`do=x`
 * followed by a later `do=gen_code`, `GEN_CODE`, which the hub refuses) only counts toward the same
 * per-IP limit. Decoded once, as the hub does: a double-encoded name is no operation there.
 */
const GEN_CODE_QUERY_PATTERN = 'do=[^&]*gen_code';

/** The public key verification route's path (infra/routes.ts). */
const VERIFY_PATH = ROUTES.find((r) => r.function === 'verifyKey')!.path;

/**
 * Rules of the AWS managed common rule set that would block legitimate calls of this API; they count
 * instead (their matches still show in the ACL's metrics).
 */
export const COMMON_RULE_SET_COUNT_ONLY: Record<string, string> = {
  NoUserAgent_HEADER: 'Access-key clients are scripts and servers (curl, cron jobs, SDKs) that may send no User-Agent; the API authenticates them by key.',
  SizeRestrictions_QUERYSTRING: 'The hub is GET /api/v1?do=...: the query string carries the login token and, for comment_set, the comment text (percent-encoded CJK text is 9 bytes a character), beyond the rule\'s 2 KB.',
  SizeRestrictions_BODY: 'POST /api/v1/videos carries a video\'s metadata and tags and may exceed the rule\'s 8 KB; the function validates sizes itself (zod).',
};

/**
 * The distribution's web ACL (scope CLOUDFRONT): a rate limit per IP on everything, a lower one per
 * IP on `do=gen_code` (each may send an SMS; the hub is one route, so API Gateway cannot throttle it
 * apart), one per IP on the public key verification (so a few addresses cannot use up its route
 * throttle), and the AWS managed common rule set. At CloudFront, WAF sees the viewer's address.
 *
 * No rule samples requests: WAF keeps samples' URIs and headers for three hours, with the hub's
 * `token`, `token0` and `code`, verify's `key` and `Authorization`, and no redaction applies to them.
 * Blocked requests go to a log group instead, with the query string and `Authorization` redacted
 * (docs/deploy.md, "WAF").
 *
 * A CLOUDFRONT web ACL exists only in us-east-1: the stack that makes it must be deployed there, which
 * a template rule checks before anything is created (and the synth, when the stack's region is known).
 * A stage in another region gets it from its us-east-1 companion stack (infra/edge-stack.ts), or
 * attaches an existing one with `-c webAclArn=`.
 */
export class WebAcl extends Construct {
  readonly acl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: WebAclProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (!Token.isUnresolved(stack.region) && stack.region !== 'us-east-1') {
      throw new Error(
        `The stack is in ${stack.region}, but CloudFront web ACLs exist only in us-east-1: make it in the us-east-1 companion stack (infra/app.ts does so for a stage in any other region), or pass -c webAclArn=<its ARN> (docs/deploy.md, "Regions").`,
      );
    }
    new CfnRule(stack, 'WebAclRegion', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
          assertDescription:
            'CloudFront web ACLs exist only in us-east-1: deploy with the target region known (cdk deploy sets it from the credentials, or -c region=) so that the web ACL goes to the us-east-1 companion stack, or pass -c webAclArn=<ARN of a web ACL created in us-east-1> (docs/deploy.md, "Regions").',
        },
      ],
    });

    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: false,
      metricName: `${props.namePrefix}-${name}`,
    });
    this.acl = new wafv2.CfnWebACL(this, 'Acl', {
      name: `${props.namePrefix}-web`,
      description: 'expohub per-IP rate limits on all requests, verification codes and key verification, and the AWS managed common rule set',
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('web'),
      rules: [
        {
          name: 'RatePerIp',
          priority: 0,
          action: { block: {} },
          statement: { rateBasedStatement: { limit: props.requestsPer5Min, evaluationWindowSec: 300, aggregateKeyType: 'IP' } },
          visibilityConfig: visibility('rate-per-ip'),
        },
        {
          name: 'GenCodePerIp',
          priority: 1,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              limit: props.genCodePer5Min,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                regexMatchStatement: {
                  fieldToMatch: { queryString: {} },
                  regexString: GEN_CODE_QUERY_PATTERN,
                  textTransformations: [
                    { priority: 0, type: 'URL_DECODE' },
                    { priority: 1, type: 'LOWERCASE' },
                  ],
                },
              },
            },
          },
          visibilityConfig: visibility('gen-code-per-ip'),
        },
        {
          name: 'VerifyPerIp',
          priority: 2,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              limit: props.verifyPer5Min,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                byteMatchStatement: {
                  fieldToMatch: { uriPath: {} },
                  positionalConstraint: 'STARTS_WITH',
                  searchString: VERIFY_PATH.toLowerCase(),
                  // Spellings of the path that still reach the route (or that merely over-count).
                  textTransformations: [
                    { priority: 0, type: 'URL_DECODE' },
                    { priority: 1, type: 'NORMALIZE_PATH' },
                    { priority: 2, type: 'LOWERCASE' },
                  ],
                },
              },
            },
          },
          visibilityConfig: visibility('verify-per-ip'),
        },
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 3,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              ruleActionOverrides: Object.keys(COMMON_RULE_SET_COUNT_ONLY).map((name) => ({ name, actionToUse: { count: {} } })),
            },
          },
          visibilityConfig: visibility('common-rule-set'),
        },
      ],
    });

    // Blocked requests only (the volume follows attacks, not traffic), kept a month, without the query
    // string (tokens, codes, keys, phone numbers) or Authorization. A CloudWatch Logs destination must
    // be named aws-waf-logs-*; the stack's id makes the name new for each stack, so a production log
    // group retained after a teardown does not block a redeploy.
    const logs = new LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-${props.namePrefix}-${Fn.select(2, Fn.split('/', Aws.STACK_ID))}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    new wafv2.CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.acl.attrArn,
      // WAF takes the log group's ARN without the `:*` suffix that LogGroup.logGroupArn carries.
      logDestinationConfigs: [stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: logs.logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
      redactedFields: [{ queryString: {} }, { singleHeader: { Name: 'authorization' } }],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
      },
    });
  }
}
