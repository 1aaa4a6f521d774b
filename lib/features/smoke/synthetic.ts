import { clock } from '../../platform/clock.js';
import { config, onConfigure } from '../../platform/config.js';
import { logger } from '../../platform/logger.js';
import { publishSyntheticCheck } from '../../platform/observability/metrics.js';
import { secretCache } from '../../platform/secrets/secrets-extension.js';
import { canaryKeyOf, ensureCanaryKey } from './canary-key.js';
import { runSmokeChecks, scrub, type CheckResult } from './checks.js';

/** How long a container keeps the canary secret: a new value (docs/deploy.md) is used within this. */
export const CANARY_SECRET_MAX_AGE_SECONDS = 300;

/** Read through the Parameters and Secrets extension (lib/platform/secrets/secrets-extension.ts). */
const secrets = secretCache(CANARY_SECRET_MAX_AGE_SECONDS, () => clock.now());
onConfigure(() => secrets.forget());

/** The canary key's secret part: CANARY_KEY_SECRET as is (locally), else the secret CANARY_KEY_SECRET_ARN names. */
async function canarySecret(): Promise<string> {
  if (config.CANARY_KEY_SECRET) return config.CANARY_KEY_SECRET;
  if (!config.CANARY_KEY_SECRET_ARN) throw new Error('The synthetic check needs CANARY_KEY_SECRET_ARN (deployed) or CANARY_KEY_SECRET (locally)');
  const value = await secrets.get(config.CANARY_KEY_SECRET_ARN);
  if (typeof value !== 'string') throw new Error('The canary key secret holds no string');
  return value;
}

const KEY_CHECKS = ['verify', 'me', 'usage'] as const;

/**
 * One run of the synthetic check (docs/deploy.md, "The synthetic check"): the canary key made sure
 * of, then every check of `npm run smoke` against SYNTHETIC_BASE_URL (the distribution, so through
 * CloudFront, WAF and the origin secret like a user), each published as SyntheticSuccess (1/0) and
 * SyntheticLatency, and `all`. A failing deployment is a result, not an error: the run never throws
 * for it (the function's error alarm is for the check itself failing). If the canary key cannot be
 * read or made, the key checks fail with that reason. Nothing here logs the key.
 */
export async function runSyntheticCheck(): Promise<{ passed: boolean; failed: string[] }> {
  const baseUrl = config.SYNTHETIC_BASE_URL;
  if (!baseUrl) throw new Error('The synthetic check needs SYNTHETIC_BASE_URL');
  let key: string | undefined;
  let keyProblem: string | undefined;
  try {
    key = canaryKeyOf(await canarySecret());
    if ((await ensureCanaryKey(key)) === 'created') logger.info('synthetic check: canary key created');
  } catch (error) {
    key = undefined;
    keyProblem = `the canary key could not be read or made (${(error as Error).name})`;
    logger.error('synthetic check: canary key unavailable', { errorName: (error as Error).name, errorMessage: scrub((error as Error).message) });
  }
  const results: CheckResult[] = await runSmokeChecks({ baseUrl, key });
  if (keyProblem) {
    for (const name of KEY_CHECKS) results.push({ name, request: '(not sent)', status: null, latency_ms: 0, ok: false, reason: keyProblem });
  }
  for (const r of results) publishSyntheticCheck(r.name, r.ok, r.status === null ? undefined : r.latency_ms);
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  publishSyntheticCheck('all', failed.length === 0);
  const summary = { passed: failed.length === 0, failed, checks: results };
  if (failed.length === 0) logger.info('synthetic check passed', summary);
  else logger.warn('synthetic check failed', summary);
  return { passed: failed.length === 0, failed };
}
