/**
 * Where the stack's pieces may live (docs/deploy.md, "Regions").
 *
 * CloudFront's web ACLs and certificates exist only in us-east-1 ({@link CLOUDFRONT_REGION}); a stack
 * in any other region gets them from a companion stack there (infra/edge-stack.ts).
 *
 * Amazon SNS sends SMS from some regions only: {@link SNS_SMS_REGIONS} lists them as the Amazon SNS
 * Developer Guide's page "Supported countries and regions"
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-supported-regions-countries.html) listed them when
 * this table was written (2026-11). A stack elsewhere sends its codes through {@link smsRegionFor}.
 */
export const CLOUDFRONT_REGION = 'us-east-1';

/** Regions whose SNS sends SMS (the page above, 2026-11). Hong Kong (ap-east-1) and Seoul (ap-northeast-2) are not among them. */
export const SNS_SMS_REGIONS: readonly string[] = [
  'us-east-1', 'us-east-2', 'us-west-1', 'us-west-2',
  'af-south-1',
  'ap-south-1', 'ap-south-2', 'ap-southeast-1', 'ap-southeast-2', 'ap-southeast-3', 'ap-southeast-4', 'ap-northeast-1', 'ap-northeast-3',
  'ca-central-1', 'ca-west-1',
  'eu-central-1', 'eu-west-1', 'eu-west-2', 'eu-west-3', 'eu-south-1', 'eu-north-1',
  'me-south-1', 'sa-east-1',
];

/**
 * The nearest SMS region of a region without SMS: Hong Kong and Seoul to Singapore and Tokyo, the
 * network-nearest to mainland China and Korea; any other to us-east-1. `-c smsRegion=` overrides it.
 */
const NEAREST_SMS_REGION: Record<string, string> = {
  'ap-east-1': 'ap-southeast-1',
  'ap-east-2': 'ap-southeast-1',
  'ap-northeast-2': 'ap-northeast-1',
  'ap-southeast-5': 'ap-southeast-1',
  'ap-southeast-7': 'ap-southeast-1',
  'eu-central-2': 'eu-central-1',
  'eu-south-2': 'eu-west-3',
  'me-central-1': 'me-south-1',
  'il-central-1': 'eu-central-1',
  'mx-central-1': 'us-west-2',
};

/** Where SNS sends the codes of a stack in `region`: the region itself when SNS sends SMS there. */
export function smsRegionFor(region: string): string {
  if (SNS_SMS_REGIONS.includes(region)) return region;
  return NEAREST_SMS_REGION[region] ?? 'us-east-1';
}

