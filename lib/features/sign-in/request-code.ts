import { randomInt } from 'node:crypto';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { cancellationCode, transactWrite } from '../../platform/db/transact.js';
import { RateLimitedError, ValidationError } from '../../platform/errors.js';
import { countMetric } from '../../platform/observability/metrics.js';
import { accountIdOfPhone } from '../../entities/accounts/accounts.js';
import { phoneCountry } from '../../platform/sms/phone.js';
import { networkOf, rateLimitItem, rateLimitedError, refundRateLimits, type RateLimit } from '../../platform/limits/rate-windows.js';
import { getCode, hashCode, lastSentTo, putCodeItem, putRequesterItem, undoUnsentCode, type StoredCode } from '../../platform/sms/codes.js';
import { smsSender } from '../../platform/sms/sender.js';

/** One answer for both budgets: when both are spent, the answer does not tell which one refused. */
const CAP_MESSAGE = 'The service has sent all the verification codes it may send today; please try again after 00:00 UTC';

/**
 * The deployment's SMS budget of the UTC day (windows are aligned to the epoch, so a 86400 s window is
 * a UTC day) that this phone draws on: numbers with an account have their own, which sends to new
 * numbers cannot spend (docs/deploy.md, "SMS cost controls").
 */
const dailyCap = (returning: boolean): RateLimit =>
  returning
    ? { name: 'sms-returning-day', subject: 'all', windowSeconds: 86400, max: config.SMS_DAILY_CAP_RETURNING, message: CAP_MESSAGE }
    : { name: 'sms-new-day', subject: 'all', windowSeconds: 86400, max: config.SMS_DAILY_CAP, message: CAP_MESSAGE };

/**
 * The windows a send counts in, the daily budget last. Per phone and caller network first, so that a
 * caller elsewhere cannot spend the owner's allowance; then per phone whoever asks, the hard bound on
 * SMS to one number; then per network over all phones (docs/hub-api.md, "gen_code").
 */
function limitsFor(phone: string, network: string, returning: boolean): RateLimit[] {
  const requester = `${phone}#${network}`;
  return [
    { name: 'sms-phone-net-hour', subject: requester, windowSeconds: 3600, max: config.RATE_SMS_PHONE_NETWORK_HOURLY, message: 'Too many codes requested for this phone number from this network this hour' },
    { name: 'sms-phone-net-day', subject: requester, windowSeconds: 86400, max: config.RATE_SMS_PHONE_NETWORK_DAILY, message: 'Too many codes requested for this phone number from this network today' },
    { name: 'sms-phone-hour', subject: phone, windowSeconds: 3600, max: config.RATE_SMS_PHONE_HOURLY, message: 'Too many codes requested for this phone number this hour' },
    { name: 'sms-phone-day', subject: phone, windowSeconds: 86400, max: config.RATE_SMS_PHONE_DAILY, message: 'Too many codes requested for this phone number today' },
    { name: 'sms-ip-hour', subject: network, windowSeconds: 3600, max: config.RATE_SMS_IP_HOURLY, message: 'Too many codes requested from this network this hour' },
    dailyCap(returning),
  ];
}

/** A number outside SMS_ALLOWED_COUNTRIES: refused before anything is stored, counted or sent. */
function requireAllowedCountry(phone: string): void {
  const country = phoneCountry(phone);
  if (country !== undefined && config.SMS_ALLOWED_COUNTRIES.includes(country)) return;
  countMetric('SmsRefused', 'country');
  const allowed = config.SMS_ALLOWED_COUNTRIES.join(', ');
  throw new ValidationError(`Invalid parameter "phonenumber": verification codes can only be sent to phone numbers of ${allowed}`);
}

/**
 * gen_code: stores a fresh 6-digit code (its HMAC only) for (phone, nonce) and sends it by SMS. The
 * code item, the requester's send time (both conditioned on the resend wait) and every window are
 * written in one transaction, so a refused request consumes nothing (the daily budget included). A
 * code of another nonce is never touched. Numbers outside the allowed countries are refused first.
 * The answer never tells whether the phone has an account, except while one daily budget is spent
 * and the other is not (docs/deploy.md, "SMS cost controls").
 */

export async function sendCode({ phone, nonce, sourceIp }: { phone: string; nonce: string; sourceIp: string }) {
  requireAllowedCountry(phone);
  // Read for every number alike: the same requests whether or not the phone has an account.
  const returning = (await accountIdOfPhone(phone)) !== undefined;
  const now = clock.now();
  const interval = config.RATE_SMS_PHONE_INTERVAL_S;
  const network = networkOf(sourceIp);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const stored: StoredCode = {
    code_hash: await hashCode(phone, nonce, code),
    nonce,
    attempts: 0,
    used: false,
    sent_at: now,
    expires_at: now + config.SMS_CODE_TTL_SECONDS * 1000,
  };
  const limits = limitsFor(phone, network, returning);
  try {
    await transactWrite([putCodeItem(phone, stored, interval), putRequesterItem(phone, network, now, interval), ...limits.map((l) => rateLimitItem(l, now))]);
  } catch (error) {
    // Items 0 and 1 are the resend waits (the nonce's, the network's), then the limits: the daily budget is the last one.
    const windows = rateLimitedError(error, limits, 2, now);
    const capReached = cancellationCode(error, 1 + limits.length) === 'ConditionalCheckFailed';
    if (capReached) countMetric('SmsRefused', returning ? 'daily_cap_returning' : 'daily_cap');
    const nonceWaits = cancellationCode(error, 0) === 'ConditionalCheckFailed';
    const networkWaits = cancellationCode(error, 1) === 'ConditionalCheckFailed';
    if (!nonceWaits && !networkWaits) {
      if (windows && !capReached) countMetric('SmsRateLimited');
      throw windows ?? error;
    }
    const [byNonce, byNetwork] = await Promise.all([nonceWaits ? getCode(phone, nonce).then((c) => c?.sent_at) : undefined, networkWaits ? lastSentTo(phone, network) : undefined]);
    const lastSent = Math.max(byNonce ?? 0, byNetwork ?? 0);
    const wait = lastSent > 0 ? (lastSent + interval * 1000 - now) / 1000 : 1;
    const tooSoon = new RateLimitedError(`A code was sent to this phone number less than ${interval} seconds ago`, wait);
    countMetric('SmsRateLimited');
    throw windows && Number(windows.headers['retry-after']) > Math.ceil(wait) ? windows : tooSoon;
  }

  try {
    await smsSender().send(phone, `Your expohub code is ${code}. It is valid for ${Math.round(config.SMS_CODE_TTL_SECONDS / 60)} minutes.`, code);
    countMetric('SmsSent', returning ? 'returning' : 'new');
  } catch (error) {
    countMetric('SmsFailed');
    // Leave nothing behind: the unsent code cannot be used and does not hold the resend wait, and
    // the send is not counted against any limit (all retried; the answer stays the 503).
    await Promise.all([undoUnsentCode(phone, network, stored), refundRateLimits(limits, now)]);
    throw error;
  }
  return { expires_in: config.SMS_CODE_TTL_SECONDS, resend_in: interval };
}
