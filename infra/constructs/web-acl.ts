import { Aws, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface WebAclProps {
  /** `expohub-<stage>`: the ACL's name and its metrics' prefix. */
  namePrefix: string;
  /** Requests per viewer IP per 5 minutes, any path. */
  requestsPer5Min: number;
  /** `?do=gen_code` per viewer IP per 5 minutes. */
  genCodePer5Min: number;
}

/**
 * Rules of the AWS managed common rule set that would block legitimate calls of this API; they count
 * instead (their matches still show in the ACL's metrics and sampled requests).
 */
export const COMMON_RULE_SET_COUNT_ONLY: Record<string, string> = {
  NoUserAgent_HEADER: 'Access-key clients are scripts and servers (curl, cron jobs, SDKs) that may send no User-Agent; the API authenticates them by key.',
  SizeRestrictions_QUERYSTRING: 'The hub is GET /api/v1?do=...: the query string carries the login token and, for comment_set, the comment text (percent-encoded CJK text is 9 bytes a character), beyond the rule\'s 2 KB.',
  SizeRestrictions_BODY: 'POST /api/v1/videos carries a video\'s metadata and tags and may exceed the rule\'s 8 KB; the function validates sizes itself (zod).',
};

/**
 * The distribution's web ACL (scope CLOUDFRONT): a rate limit per IP on everything, a lower one per
 * IP on `do=gen_code` (each may send an SMS; the hub is one route, so API Gateway cannot throttle it
 * apart), and the AWS managed common rule set. At CloudFront, WAF sees the viewer's address.
 *
 * A CLOUDFRONT web ACL exists only in us-east-1: the stack must be deployed there, which a template
 * rule checks before anything is created (and the synth, when the stack's region is known); a stack
 * elsewhere passes `-c webAclArn=` of an ACL made in us-east-1 instead of creating this one.
 */
export class WebAcl extends Construct {
  readonly acl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: WebAclProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (!Token.isUnresolved(stack.region) && stack.region !== 'us-east-1') {
      throw new Error(
        `The stack is in ${stack.region}, but CloudFront web ACLs exist only in us-east-1: deploy the stack to us-east-1, or create the web ACL there and pass -c webAclArn=<its ARN> (docs/deploy.md, "WAF").`,
      );
    }
    new CfnRule(stack, 'WebAclRegion', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
          assertDescription:
            'CloudFront web ACLs exist only in us-east-1: deploy this stack to us-east-1, or pass -c webAclArn=<ARN of a web ACL created in us-east-1> (docs/deploy.md, "WAF").',
        },
      ],
    });

    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${props.namePrefix}-${name}`,
    });
    this.acl = new wafv2.CfnWebACL(this, 'Acl', {
      name: `${props.namePrefix}-web`,
      description: 'expohub per-IP rate limits, all requests and verification codes, and the AWS managed common rule set',
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
                byteMatchStatement: {
                  fieldToMatch: { singleQueryArgument: { Name: 'do' } },
                  positionalConstraint: 'EXACTLY',
                  searchString: 'gen_code',
                  textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
                },
              },
            },
          },
          visibilityConfig: visibility('gen-code-per-ip'),
        },
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 2,
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
  }
}
