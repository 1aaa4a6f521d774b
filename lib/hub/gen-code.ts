import { randomInt } from 'node:crypto';
import * as z from '../zod.js';
import { clock } from '../clock.js';
import { config } from '../config.js';
import { cancellationCode, transactWrite } from '../db/transact.js';
import { RateLimitedError, ValidationError } from '../errors.js';
import { countMetric } from '../observability/metrics.js';
import { defineOperation } from './operation.js';
import { phoneCountry, phoneParam } from './phone.js';
import { rateLimitItem, rateLimitedError, refundRateLimits, type RateLimit } from './rate-limit.js';
import { deleteUnsentCode, getCode, hashCode, putCodeItem, type StoredCode } from './sms-codes.js';
import { smsSender } from './sms.js';

const query = z.object({
  phonenumber: phoneParam('phonenumber'),
  nonce: z.string({ error: 'is required' }).check(z.trim(), z.regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8-64 characters of A-Z, a-z, 0-9, _ and -')),
});

/**
 * The deployment's SMS budget: every send of a UTC day (windows are aligned to the epoch, so a
 * 86400 s window is a UTC day), in one counter item written by every gen_code.
 */
const dailyCap = (): RateLimit => ({
  name: 'sms-all-day',
  subject: 'all',
  windowSeconds: 86400,
  max: config.SMS_DAILY_CAP,
  message: 'The service has sent all the verification codes it may send today; please try again after 00:00 UTC',
});

function limitsFor(phone: string, sourceIp: string): RateLimit[] {
  return [
    { name: 'sms-phone-hour', subject: phone, windowSeconds: 3600, max: config.RATE_SMS_PHONE_HOURLY, message: 'Too many codes requested for this phone number this hour' },
    { name: 'sms-phone-day', subject: phone, windowSeconds: 86400, max: config.RATE_SMS_PHONE_DAILY, message: 'Too many codes requested for this phone number today' },
    { name: 'sms-ip-hour', subject: sourceIp, windowSeconds: 3600, max: config.RATE_SMS_IP_HOURLY, message: 'Too many codes requested from this network this hour' },
    dailyCap(),
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
 * gen_code: stores a fresh 6-digit code (its HMAC only) and sends it by SMS. The code item's
 * condition (one send per interval) and the hour/day/IP windows are written in one transaction, so a
 * refused request consumes no window (the deployment's daily cap included). Numbers outside the
 * allowed countries are refused first. The answer never tells whether the phone has an account.
 */
export const genCode = defineOperation({
  auth: 'none',
  query,
  async run({ phonenumber: phone, nonce }, ctx) {
    requireAllowedCountry(phone);
    const now = clock.now();
    const interval = config.RATE_SMS_PHONE_INTERVAL_S;
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const stored: StoredCode = {
      code_hash: await hashCode(phone, nonce, code),
      nonce,
      attempts: 0,
      used: false,
      sent_at: now,
      expires_at: now + config.SMS_CODE_TTL_SECONDS * 1000,
    };
    const limits = limitsFor(phone, ctx.sourceIp);
    try {
      await transactWrite([putCodeItem(phone, stored, interval), ...limits.map((l) => rateLimitItem(l, now))]);
    } catch (error) {
      const windows = rateLimitedError(error, limits, 1, now);
      // Item 0 is the code, then the limits: the daily cap is the last one.
      const capReached = cancellationCode(error, limits.length) === 'ConditionalCheckFailed';
      if (capReached) countMetric('SmsRefused', 'daily_cap');
      if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') {
        if (windows && !capReached) countMetric('SmsRateLimited');
        throw windows ?? error;
      }
      const previous = await getCode(phone);
      const wait = previous ? (previous.sent_at + interval * 1000 - now) / 1000 : 1;
      const tooSoon = new RateLimitedError(`A code was sent to this phone number less than ${interval} seconds ago`, wait);
      countMetric('SmsRateLimited');
      throw windows && Number(windows.headers['retry-after']) > Math.ceil(wait) ? windows : tooSoon;
    }

    try {
      await smsSender().send(phone, `Your expohub code is ${code}. It is valid for ${Math.round(config.SMS_CODE_TTL_SECONDS / 60)} minutes.`, code);
      countMetric('SmsSent');
    } catch (error) {
      countMetric('SmsFailed');
      // Leave nothing behind: the unsent code cannot be used and does not block a new request, and
      // the send is not counted against the caller's limits (both retried; the answer stays the 503).
      await Promise.all([deleteUnsentCode(phone, stored.code_hash), refundRateLimits(limits, now)]);
      throw error;
    }
    return { expires_in: config.SMS_CODE_TTL_SECONDS, resend_in: interval };
  },
});
