/**
 * Every custom metric the functions publish, in one place: the code that publishes them
 * (lib/platform/observability/metrics.ts) and the alarms and dashboard of the stack read the same names.
 *
 * Published as CloudWatch embedded metric format (EMF) in the namespace METRICS_NAMESPACE, with the
 * default dimension `service` (POWERTOOLS_SERVICE_NAME, which carries the stage). A metric with a
 * `dimension` is published with that dimension too, one of `values`.
 */
export const METRICS_NAMESPACE = 'expohub';

/** The checks of `npm run smoke` and of the synthetic check, in the order they run (lib/features/smoke/checks.ts). */
export const SYNTHETIC_CHECK_NAMES = ['health', 'openapi', 'feed', 'share_404', 'page', 'verify', 'me', 'usage'] as const;

export const METRICS = {
  /** Credentials checked (authorizer and the hub's in-function check), by outcome. */
  Authentications: {
    dimension: 'outcome',
    values: ['ok', 'missing', 'invalid_token', 'expired_token', 'session_ended', 'unknown_key', 'revoked_key', 'unavailable', 'expired_key', 'account_suspended', 'account_deleted', 'rate_limited'],
  },
  /** POST /api/v1/api-keys/verify answers, by outcome. */
  KeyVerifications: { dimension: 'outcome', values: ['valid', 'unknown', 'revoked', 'malformed', 'expired', 'suspended', 'rate_limited'] },
  /** Verification codes handed to SNS, by the daily budget they count in (numbers without an account, returning accounts). */
  SmsSent: { dimension: 'budget', values: ['new', 'returning'] },
  /** gen_code refused by a rate limit (per phone, per IP, one send per interval). */
  SmsRateLimited: {},
  /** gen_code refused before sending: destination country not allowed, or a daily budget spent (new numbers', returning accounts'). */
  SmsRefused: { dimension: 'reason', values: ['country', 'daily_cap', 'daily_cap_returning'] },
  /** SNS refused or failed a send. */
  SmsFailed: {},
  /** 503 answers, by the dependency that failed. */
  Unavailable: { dimension: 'cause', values: ['dynamodb', 'secrets', 'sms', 'other'] },
  /** get_next_list calls. */
  FeedCalls: {},
  /** Videos published (POST /api/v1/videos). */
  Publishes: {},
  /** Access keys created, revoked and deleted. */
  KeysCreated: {},
  KeysRevoked: {},
  KeysDeleted: {},
  /** Requests refused by a key's own rate limit (429 RATE_LIMITED). */
  KeysRateLimited: {},
  /** Account deletions asked for, and erasures completed (docs/accounts.md). */
  AccountDeletions: { dimension: 'stage', values: ['requested', 'erased'] },
  /** Erasures still running an hour after they were asked for, as the sweeper found them (alarm ErasureOverdue). */
  ErasuresOverdue: {},
  /** Seconds since the oldest open report was filed, 0 with none open: the report-age check every 5 minutes (alarm OldestOpenReport, docs/moderation.md "Moderation"). */
  OldestOpenReportAge: {},
  /**
   * The synthetic check every 5 minutes (functions/synthetic-check.ts): 1 when a check passed, 0 when
   * it failed, per check; `all` is 1 only when every check passed (alarm synthetic-check-failing,
   * docs/deploy.md "The synthetic check").
   */
  SyntheticSuccess: { dimension: 'check', values: [...SYNTHETIC_CHECK_NAMES, 'all'] },
  /** Milliseconds from a synthetic check's request to its answer (none when no answer came). */
  SyntheticLatency: { dimension: 'check', values: SYNTHETIC_CHECK_NAMES },
} as const satisfies Record<string, { dimension?: string; values?: readonly string[] }>;

export type MetricName = keyof typeof METRICS;
