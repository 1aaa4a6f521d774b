import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// SMS cost controls. Daily budgets of 3 sends to numbers without an account and 2 to numbers with
// one, and two allowed countries.
const [CAP, CAP_RETURNING] = [3, 2];

import { clock } from '../../lib/platform/clock.js';
import { UnavailableError } from '../../lib/platform/errors.js';
import { setSmsSender } from '../../lib/platform/sms/sender.js';
import { getHubItem, hub, latestCode, newNonce, newPhone, signUp } from '../support/hub-fixtures.js';
import { captureOutput, emfLines, type Capture } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';
import { smsKeys } from '../../lib/platform/sms/codes.js';
import { rateWindowKeys } from '../../lib/platform/limits/rate-windows.js';

// Metrics on (the suite's setup turns them off), to see SmsRefused.
const api = useTestStack({ http: false, env: { SMS_DAILY_CAP: String(CAP), SMS_DAILY_CAP_RETURNING: String(CAP_RETURNING), SMS_ALLOWED_COUNTRIES: 'cn, HK', POWERTOOLS_METRICS_DISABLED: 'false' } });
afterEach(() => setSmsSender(undefined));

// The metric SmsRefused, as the functions print it (CloudWatch embedded metric format on stdout).
let output: Capture | undefined;
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output?.restore());
const refusals = () => emfLines(output!.lines, 'SmsRefused').map((line) => line.reason);

const DAY_MS = 86_400_000;
const genCode = (phone: string, nonce = newNonce()) => hub<{ expires_in: number; resend_in: number }>(api, 'gen_code', { phonenumber: phone, nonce });
const outbox = async (phone: string) => (await api.get<{ messages: unknown[] }>(`/_dev/sms?phone=${encodeURIComponent(phone)}`)).data.messages;

/** Sends of the current UTC day counted against a daily budget (the counter items of lib/transport/hub/gen-code.ts). */
async function sentToday(budget: 'new' | 'returning' = 'new'): Promise<number> {
  const item = await getHubItem<{ n?: number }>(rateWindowKeys.rateWindow(`sms-${budget}-day`, 'all', `86400s#${Math.floor(clock.now() / DAY_MS)}`));
  return item?.n ?? 0;
}

/**
 * Moves the clock to `offsetMs` into a later UTC day whose cap no earlier test touched (the clock is
 * reset after each test; a test may run on into the day after its own: two days apart).
 */
let daysAhead = 0;
function startNextUtcDay(offsetMs = 1_000): void {
  daysAhead += 2;
  clock.set((Math.floor(Date.now() / DAY_MS) + daysAhead) * DAY_MS + offsetMs);
}

describe('gen_code: allowed destination countries (SMS_ALLOWED_COUNTRIES)', () => {
  it.each([
    ['a UK mobile', '+447400123456'],
    ['a US number', '+12127360100'],
    ['a number of no country (+800)', '+80012345678'],
  ])('refuses %s with 400 naming the parameter and the allowed countries; nothing stored, counted or sent', async (_what, phone) => {
    startNextUtcDay();
    const nonce = newNonce();
    const refused = await genCode(phone, nonce);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: 'VALIDATION_ERROR',
      error: 'Invalid parameter "phonenumber": verification codes can only be sent to phone numbers of CN, HK',
    });
    expect(refusals()).toEqual(['country']);
    expect(await getHubItem(smsKeys.smsCode(phone, nonce))).toBeUndefined();
    expect(await outbox(phone)).toEqual([]);
    expect(await sentToday()).toBe(0);
    const hourWindow = rateWindowKeys.rateWindow('sms-phone-hour', phone, `3600s#${Math.floor(clock.now() / 3_600_000)}`);
    expect(await getHubItem(hourWindow)).toBeUndefined();
  });

  it.each([
    ['a mainland China mobile', newPhone()],
    ['a Hong Kong mobile (listed in lower case with spaces in the setting)', '+85291234567'],
  ])('sends to %s', async (_what, phone) => {
    startNextUtcDay();
    expect((await genCode(phone)).status).toBe(200);
    expect(await outbox(phone)).toHaveLength(1);
    expect(await sentToday()).toBe(1);
  });

  it('reads a national number in the default region (CN) as an allowed Chinese number', async () => {
    startNextUtcDay();
    const phone = newPhone();
    expect((await genCode(phone.slice(3))).status).toBe(200);
    expect(await outbox(phone)).toHaveLength(1);
  });
});

describe('gen_code: the daily budget of new numbers (SMS_DAILY_CAP)', () => {
  it(`sends ${CAP} codes in a UTC day to numbers without an account, then 429 with Retry-After until 00:00 UTC, then sends again`, async () => {
    const hoursIntoDay = 15;
    startNextUtcDay(hoursIntoDay * 3_600_000);
    for (let i = 0; i < CAP; i++) expect((await genCode(newPhone())).status).toBe(200);
    expect(await sentToday()).toBe(CAP);
    expect(refusals()).toEqual([]);

    const phone = newPhone();
    const nonce = newNonce();
    const refused = await genCode(phone, nonce);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      code: 'RATE_LIMITED',
      error: 'The service has sent all the verification codes it may send today; please try again after 00:00 UTC',
    });
    expect(Number(refused.headers.get('retry-after'))).toBe((24 - hoursIntoDay) * 3600);
    expect(refusals()).toEqual(['daily_cap']);
    // Refused: nothing stored or sent, and neither the cap nor the phone's own windows moved.
    expect(await getHubItem(smsKeys.smsCode(phone, nonce))).toBeUndefined();
    expect(await outbox(phone)).toEqual([]);
    expect(await sentToday()).toBe(CAP);
    expect(await getHubItem(rateWindowKeys.rateWindow('sms-phone-day', phone, `86400s#${Math.floor(clock.now() / DAY_MS)}`))).toBeUndefined();

    // The next UTC day has its own budget; the refused phone is served at once.
    clock.advance(Number(refused.headers.get('retry-after')) * 1000);
    expect((await genCode(phone)).status).toBe(200);
    expect(await sentToday()).toBe(1);
  });

  it('does not count a request another limit refused, nor a send that failed', async () => {
    startNextUtcDay();
    const phone = newPhone();
    expect((await genCode(phone)).status).toBe(200);
    // One send per phone per 60 s: refused, and the cap keeps its count (not a refusal by the cap).
    expect((await genCode(phone)).status).toBe(429);
    expect(await sentToday()).toBe(1);
    expect(refusals()).toEqual([]);

    setSmsSender({
      send: async () => {
        throw new UnavailableError('The SMS could not be sent; please try again shortly', 5);
      },
    });
    for (let i = 0; i < CAP; i++) expect((await genCode(newPhone())).status).toBe(503);
    // Each failed send was given back to the cap.
    expect(await sentToday()).toBe(1);
    setSmsSender(undefined);

    for (let i = 1; i < CAP; i++) expect((await genCode(newPhone())).status).toBe(200);
    expect((await genCode(newPhone())).status).toBe(429);
  });
});

describe('gen_code: the daily budget of numbers with an account (SMS_DAILY_CAP_RETURNING)', () => {
  it('is their own: new numbers spending theirs leave it whole, and a returning user still signs in', async () => {
    startNextUtcDay();
    const [alice, bob] = [await signUp(api), await signUp(api)];
    // The next UTC day: strangers spend the budget of new numbers.
    clock.advance(DAY_MS);
    for (let i = 0; i < CAP; i++) expect((await genCode(newPhone())).status).toBe(200);
    expect((await genCode(newPhone())).status).toBe(429);
    expect(refusals()).toEqual(['daily_cap']);

    const nonce = newNonce();
    expect((await genCode(alice.phone, nonce)).status).toBe(200);
    const again = await hub<{ openid: string; new_account: boolean }>(api, 'create_phone_account', { openid: alice.phone, token: nonce, code: await latestCode(api, alice.phone), openid0: '', token0: '' });
    expect(again.status).toBe(200);
    expect(again.data).toEqual(expect.objectContaining({ openid: alice.openid, new_account: false }));
    expect((await genCode(bob.phone)).status).toBe(200);
    expect([await sentToday('new'), await sentToday('returning')]).toEqual([CAP, CAP_RETURNING]);
  });

  it(`sends ${CAP_RETURNING} codes a UTC day to numbers with an account, then the same 429 a new number gets once both are spent`, async () => {
    const hoursIntoDay = 9;
    startNextUtcDay();
    const users = [await signUp(api), await signUp(api), await signUp(api)];
    clock.advance(DAY_MS + hoursIntoDay * 3_600_000 - 1_000);
    for (const user of users.slice(0, CAP_RETURNING)) expect((await genCode(user.phone)).status).toBe(200);
    const refused = await genCode(users[CAP_RETURNING]!.phone);
    expect(refused.status).toBe(429);
    expect(refusals()).toEqual(['daily_cap_returning']);
    expect(await outbox(users[CAP_RETURNING]!.phone)).toHaveLength(1);
    expect(await sentToday('returning')).toBe(CAP_RETURNING);
    // New numbers draw on their own budget meanwhile.
    for (let i = 0; i < CAP; i++) expect((await genCode(newPhone())).status).toBe(200);

    // Both spent: a number with an account and one without get the same answer.
    const fresh = await genCode(newPhone());
    for (const res of [refused, fresh]) {
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ code: 'RATE_LIMITED', error: 'The service has sent all the verification codes it may send today; please try again after 00:00 UTC' });
      expect(Number(res.headers.get('retry-after'))).toBe((24 - hoursIntoDay) * 3600);
    }
  });
});
