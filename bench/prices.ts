/**
 * The one price table of the cost estimates: the bench's "USD / 1M calls" column (docs/reports/performance.md)
 * and the monthly estimate of docs/reports/cost.md (bench/cost-report.ts). AWS public on-demand list prices in
 * USD, us-east-1 unless a line says otherwise, without the free tier. Edit here when prices change,
 * then run `npm run cost:report`.
 */

/** The day the table was written. Its prices are the engineer's knowledge of AWS's published list prices, not read from the AWS pricing pages or the Price List API on that day. */
export const PRICES_AS_OF = '2026-11-26';
export const PRICES_REGION = 'us-east-1';

export const PRICES = {
  /** DynamoDB on-demand (Standard table class), USD per million request units (since the November 2024 price change). */
  dynamoReadPerMillionRru: 0.125,
  dynamoWritePerMillionWru: 0.625,
  /** DynamoDB storage, USD per GB-month; continuous backups (point-in-time recovery), USD per GB-month of table size. */
  dynamoStoragePerGbMonth: 0.25,
  dynamoPitrPerGbMonth: 0.2,
  /** Lambda arm64 (first tier) and x86_64, USD per GB-second; requests, USD per million. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaX86PerGbSecond: 0.0000166667,
  lambdaPerMillionRequests: 0.2,
  /** API Gateway HTTP API, USD per million requests: the first 300 million of a month, then beyond. */
  httpApiPerMillionFirst300M: 1.0,
  httpApiPerMillionBeyond300M: 0.9,
  /**
   * CloudFront, for viewers in Asia (Hong Kong, Singapore, Korea, Taiwan...: where viewers in China
   * are served from outside the China regions): USD per 10,000 HTTPS requests and per GB to the
   * internet (first 10 TB of a month).
   */
  cloudFrontAsiaPer10kHttpsRequests: 0.012,
  cloudFrontAsiaPerGbOut: 0.12,
  /** AWS WAF: USD per web ACL-month, per rule-month (a managed rule group counts as one rule), per million requests. */
  wafPerWebAclMonth: 5,
  wafPerRuleMonth: 1,
  wafPerMillionRequests: 0.6,
  /** Secrets Manager: USD per secret-month and per 10,000 API calls. */
  secretPerMonth: 0.4,
  secretsPer10kCalls: 0.05,
  /** KMS: USD per customer managed key-month (automatic rotation adds a dollar a month after each of its first two yearly rotations: not counted). */
  kmsKeyPerMonth: 1,
  /** CloudWatch: logs ingested and stored (USD per GB), custom metrics and standard alarms (per metric-month), dashboards (per month). */
  logsIngestedPerGb: 0.5,
  logsStoredPerGbMonth: 0.03,
  metricPerMonth: 0.3,
  alarmMetricPerMonth: 0.1,
  dashboardPerMonth: 3,
  /** X-Ray: USD per million traces recorded. */
  xrayPerMillionTraces: 5,
  /**
   * SNS SMS (AWS End User Messaging), USD per message part by destination, transactional, carrier
   * fees included. Approximate: SMS prices change often, by country and carrier; check AWS's SMS
   * pricing page before relying on them. A code message (ASCII, under 160 characters) is one part.
   */
  smsPerMessage: { CN: 0.0335, HK: 0.0392, US: 0.00883 } as Record<string, number>,
};

/**
 * Regions other than us-east-1: the prices known to be the same there, and those the table has no
 * figure for and assumes the same (an under-estimate where AWS lists a higher regional price).
 * CloudFront, WAF (the CLOUDFRONT web ACL lives in us-east-1 whatever the stack's region) and SMS
 * (priced by destination) do not depend on the stack's region.
 */
export const REGIONAL_PRICES: Record<string, { known: string; assumedEqual: string }> = {
  'ap-southeast-1': {
    known: 'Lambda: the same list prices as us-east-1 (arm64 and x86_64 per GB-second, requests)',
    assumedEqual: 'DynamoDB (requests, storage, PITR), API Gateway HTTP API, Secrets Manager, KMS, CloudWatch and X-Ray: Asia-Pacific list prices are mostly somewhat higher than us-east-1 for DynamoDB, API Gateway and CloudWatch Logs',
  },
  'ap-east-1': {
    known: 'none in this table',
    assumedEqual: 'every regional price (Lambda, DynamoDB, API Gateway, Secrets Manager, KMS, CloudWatch, X-Ray): Hong Kong is among the dearer regions (Lambda too), so the figures of docs/reports/cost.md are a lower bound there',
  },
};

/** USD per million calls for the DynamoDB capacity one call consumes. */
export function dynamoUsdPerMillionCalls(rcu: number, wcu: number): number {
  return rcu * PRICES.dynamoReadPerMillionRru + wcu * PRICES.dynamoWritePerMillionWru;
}
