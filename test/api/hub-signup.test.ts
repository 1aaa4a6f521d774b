import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const ADMIN_PHONE = '+8613900139000';

import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { UnavailableError } from '../../lib/platform/errors.js';
import { setSmsSender } from '../../lib/platform/sms/sender.js';
import { hub, latestCode, newNonce, newPhone, signUp } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { smsKeys } from '../../lib/platform/sms/codes.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  stack = await startTestStack({ http: false, env: { ADMIN_PHONES: `${ADMIN_PHONE},+8613800138000` } });
  api = apiClient(stack.url);
});
afterAll(async () => stack?.stop());
afterEach(() => {
  clock.reset();
  setSmsSender(undefined);
});

const getItem = async (key: { pk: string; sk: string }) =>
  (await db.send(new GetCommand({ TableName: tableNames.hub, Key: key, ConsistentRead: true }))).Item;

/** Every code item of a phone, whatever its nonce. */
async function codesOf(phone: string) {
  const { pk, sk: prefix } = smsKeys.smsCode(phone, '');
  const out = await db.send(
    new QueryCommand({ TableName: tableNames.hub, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': pk, ':p': prefix }, ConsistentRead: true }),
  );
  return out.Items ?? [];
}

/** Moves past the one-code-per-60-s limit of a phone (the hour/day windows stay). */
const pastResendInterval = () => clock.advance(61_000);

async function requestCode(phone: string, nonce = newNonce()) {
  const res = await hub<{ expires_in: number; resend_in: number }>(api, 'gen_code', { phonenumber: phone, nonce });
  return { res, nonce };
}

async function signIn(phone: string, nonce: string, code: string, extra: Record<string, string> = {}) {
  return hub<{ openid: string; token: string; new_account: boolean; expires_at: string }>(api, 'create_phone_account', {
    openid: phone,
    token: nonce,
    code,
    openid0: '',
    token0: '',
    ...extra,
  });
}

describe('dispatch', () => {
  it.each([
    ['missing', ''],
    ['empty', '?do='],
    ['unknown', '?do=drop_tables'],
  ])('a %s "do" is 400 naming do', async (_label, query) => {
    const res = await api.get(`/api/v1${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"do"') });
  });
});

describe('gen_code', () => {
  it('sends a 6-digit code, stores only its HMAC and answers {expires_in, resend_in}', async () => {
    const phone = newPhone();
    const { res, nonce } = await requestCode(phone);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, data: { expires_in: 300, resend_in: 60 } });

    const sms = await api.get<{ messages: { phone: string; code: string; text: string; sent_at: string }[] }>(`/_dev/sms?phone=${encodeURIComponent(phone)}`);
    expect(sms.status).toBe(200);
    expect(sms.data.messages).toHaveLength(1);
    const message = sms.data.messages[0]!;
    expect(message).toEqual({ phone, code: expect.stringMatching(/^\d{6}$/), text: expect.stringContaining(message.code), sent_at: expect.any(String) });

    const stored = await getItem(smsKeys.smsCode(phone, nonce));
    expect(stored).toMatchObject({ nonce, attempts: 0, used: false, code_hash: expect.stringMatching(/^[0-9a-f]{64}$/), ttl: expect.any(Number) });
    expect(JSON.stringify(stored)).not.toContain(message.code);
  });

  it('gives the same answer whether or not the phone has an account', async () => {
    const known = await signUp(api);
    pastResendInterval();
    const forKnown = await requestCode(known.phone);
    const forUnknown = await requestCode(newPhone());
    expect(forKnown.res.status).toBe(200);
    expect(forKnown.res.body).toEqual(forUnknown.res.body);
  });

  it('normalizes a national number with the default region (CN) and an unencoded +', async () => {
    const phone = newPhone();
    const national = phone.slice(3);
    const { res } = await requestCode(national);
    expect(res.status).toBe(200);
    expect(await latestCode(api, phone)).toMatch(/^\d{6}$/);

    const other = newPhone();
    const raw = await api.get(`/api/v1?do=gen_code&phonenumber=${other}&nonce=${newNonce()}`);
    expect(raw.status).toBe(200);
    expect(await latestCode(api, other)).toMatch(/^\d{6}$/);
  });

  it.each([
    ['no phonenumber', { nonce: 'abcdefgh' }, 'phonenumber'],
    ['an empty phonenumber', { phonenumber: '  ', nonce: 'abcdefgh' }, 'phonenumber'],
    ['a phonenumber that is not a number', { phonenumber: '12345', nonce: 'abcdefgh' }, 'phonenumber'],
    ['letters as phonenumber', { phonenumber: 'call me', nonce: 'abcdefgh' }, 'phonenumber'],
    ['no nonce', { phonenumber: '+8613800138123' }, 'nonce'],
    ['a 7-character nonce', { phonenumber: '+8613800138123', nonce: 'abcdefg' }, 'nonce'],
    ['a 65-character nonce', { phonenumber: '+8613800138123', nonce: 'a'.repeat(65) }, 'nonce'],
    ['a nonce with other characters', { phonenumber: '+8613800138123', nonce: 'abc def!gh' }, 'nonce'],
  ])('%s is 400 naming the parameter and sends nothing', async (_label, params, name) => {
    const res = await hub(api, 'gen_code', params);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
    expect(await codesOf('+8613800138123')).toEqual([]);
    expect((await api.get<{ messages: unknown[] }>('/_dev/sms?phone=%2B8613800138123')).data.messages).toEqual([]);
  });

  // Every request here comes from one network (127.0.0.1): the limits of one requester. What other
  // networks may send to the same phone is in test/api/hub-sms-abuse.test.ts.
  it('allows one network one code per phone per 60 s, 3 per hour and 5 per day, each refusal with Retry-After', async () => {
    const phone = newPhone();
    // Start just after a day boundary: the first three sends share an hour, all six share a day.
    clock.advance(86_400_000 - (clock.now() % 86_400_000) + 1_000);
    expect((await requestCode(phone)).res.status).toBe(200);

    const tooSoon = (await requestCode(phone)).res;
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body).toMatchObject({ code: 'RATE_LIMITED' });
    const wait = Number(tooSoon.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await api.get<{ messages: unknown[] }>(`/_dev/sms?phone=${encodeURIComponent(phone)}`)).data.messages).toHaveLength(1);

    for (let i = 2; i <= 3; i++) {
      pastResendInterval();
      expect((await requestCode(phone)).res.status).toBe(200);
    }
    pastResendInterval();
    const hourly = (await requestCode(phone)).res;
    expect(hourly.status).toBe(429);
    expect(hourly.body).toMatchObject({ code: 'RATE_LIMITED', error: 'Too many codes requested for this phone number from this network this hour' });
    const hourWait = Number(hourly.headers.get('retry-after'));
    expect(hourWait).toBeGreaterThan(60);
    expect(hourWait).toBeLessThanOrEqual(3600);
    // A refused request consumed nothing: the window opens exactly when Retry-After says.
    clock.advance(hourWait * 1000);
    for (let i = 4; i <= 5; i++) {
      expect((await requestCode(phone)).res.status, `send ${i}`).toBe(200);
      pastResendInterval();
    }
    clock.advance(3_600_000);
    const daily = (await requestCode(phone)).res;
    expect(daily.status).toBe(429);
    expect(daily.body).toMatchObject({ code: 'RATE_LIMITED', error: 'Too many codes requested for this phone number from this network today' });
    expect(Number(daily.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers 503 when the SMS cannot be sent, and leaves no code and no used window behind', async () => {
    const phone = newPhone();
    setSmsSender({
      send: async () => {
        throw new UnavailableError('The SMS could not be sent; please try again shortly', 5);
      },
    });
    const failed = await requestCode(phone);
    expect(failed.res.status).toBe(503);
    expect(failed.res.body).toMatchObject({ code: 'UNAVAILABLE' });
    expect(failed.res.headers.get('retry-after')).toBe('5');
    expect(await codesOf(phone)).toEqual([]);
    // Nor the send time that starts the network's resend wait: the retry is served at once.
    expect(await getItem(smsKeys.smsRequester(phone, '127.0.0.1'))).toBeUndefined();

    setSmsSender(undefined);
    const retried = await requestCode(phone);
    expect(retried.res.status).toBe(200);
  });
});

describe('create_phone_account', () => {
  it('creates an opaque account with a default nickname and a working token', async () => {
    const phone = newPhone();
    const { nonce } = await requestCode(phone);
    const res = await signIn(phone, nonce, await latestCode(api, phone));
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ openid: expect.stringMatching(/^u_[A-Za-z0-9]{20}$/), token: expect.any(String), new_account: true, expires_at: expect.any(String), terms: { accepted_version: null, accepted_at: null, current_version: '1', accepted_current: false } });
    expect(res.data.openid).not.toContain(phone.slice(3));
    expect(Date.parse(res.data.expires_at) - clock.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);

    const claims = decodeJwt(res.data.token);
    expect(claims).toMatchObject({ sub: res.data.openid, roles: [], iss: 'expohub' });
    const me = await api.get('/api/v1/me', { token: res.data.token });
    expect(me.status).toBe(200);
    expect(me.data).toEqual({ user_id: res.data.openid, auth_type: 'jwt', scopes: [], roles: [], terms: { accepted_version: null, accepted_at: null, current_version: '1', accepted_current: false } });

    const account = await getItem(accountKeys.account(res.data.openid));
    expect(account).toMatchObject({ openid: res.data.openid, phone, roles: [], follow_count: 0, follower_count: 0 });
    expect(account!.nickname).toMatch(/^用户\d{6}$/);
    expect(account!.nickname).not.toContain(phone.slice(-4));
    expect(await getItem(accountKeys.phone(phone))).toMatchObject({ openid: res.data.openid });
    expect(await getItem(smsKeys.smsCode(phone, nonce))).toMatchObject({ used: true });
  });

  it('signs the same phone in to the same account, national or international', async () => {
    const first = await signUp(api);
    pastResendInterval();
    const nonce = newNonce();
    expect((await hub(api, 'gen_code', { phonenumber: first.phone.slice(3), nonce })).status).toBe(200);
    const again = await signIn(first.phone.slice(3), nonce, await latestCode(api, first.phone));
    expect(again.status).toBe(200);
    expect(again.data).toMatchObject({ openid: first.openid, new_account: false });
    expect(again.data.token).not.toBe(first.token);
  });

  it('refuses a wrong code with 401 and ends the code at the 5th wrong try (429 afterwards, also for the right code)', async () => {
    const phone = newPhone();
    const { nonce } = await requestCode(phone);
    const code = await latestCode(api, phone);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 1; i <= 5; i++) {
      const res = await signIn(phone, nonce, wrong);
      expect(res.status, `wrong try ${i}`).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
    expect(await getItem(smsKeys.smsCode(phone, nonce))).toMatchObject({ attempts: 5, used: false });
    const right = await signIn(phone, nonce, code);
    expect(right.status).toBe(429);
    expect(right.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await getItem(accountKeys.phone(phone))).toBeUndefined();

    // A new code starts afresh.
    pastResendInterval();
    const fresh = await requestCode(phone);
    expect((await signIn(phone, fresh.nonce, await latestCode(api, phone))).status).toBe(200);
  });

  it('accepts a code once', async () => {
    const phone = newPhone();
    const { nonce } = await requestCode(phone);
    const code = await latestCode(api, phone);
    expect((await signIn(phone, nonce, code)).status).toBe(200);
    const reused = await signIn(phone, nonce, code);
    expect(reused.status).toBe(401);
    expect(reused.body).toMatchObject({ code: 'AUTH_ERROR' });
  });

  it('lets only one of two parallel requests with the right code succeed', async () => {
    const phone = newPhone();
    const { nonce } = await requestCode(phone);
    const code = await latestCode(api, phone);
    const results = await Promise.all([signIn(phone, nonce, code), signIn(phone, nonce, code), signIn(phone, nonce, code)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it('refuses an expired code', async () => {
    const phone = newPhone();
    const { nonce } = await requestCode(phone);
    const code = await latestCode(api, phone);
    clock.advance(301_000);
    const res = await signIn(phone, nonce, code);
    expect(res.status).toBe(401);
    expect(await getItem(accountKeys.phone(phone))).toBeUndefined();
  });

  it('refuses the code with another nonce, and a code sent to another phone', async () => {
    const phone = newPhone();
    const { nonce } = await requestCode(phone);
    const code = await latestCode(api, phone);
    expect((await signIn(phone, `${nonce}x`, code)).status).toBe(401);
    expect((await signIn(newPhone(), nonce, code)).status).toBe(401);
    expect((await signIn(phone, nonce, code)).status).toBe(200);
  });

  it.each([
    ['openid', { token: 'abcdefgh', code: '123456' }],
    ['openid', { openid: 'not a phone', token: 'abcdefgh', code: '123456' }],
    ['token', { openid: '+8613800138124', code: '123456' }],
    ['code', { openid: '+8613800138124', token: 'abcdefgh' }],
    ['code', { openid: '+8613800138124', token: 'abcdefgh', code: ' ' }],
    ['openid0', { openid: '+8613800138124', token: 'abcdefgh', code: '123456', token0: '' }],
    ['token0', { openid: '+8613800138124', token: 'abcdefgh', code: '123456', openid0: '' }],
  ])('a missing or invalid %s is 400 naming it', async (name, params) => {
    const res = await hub(api, 'create_phone_account', params);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
  });

  it('gives admin to a phone in ADMIN_PHONES, in the stored roles and the JWT', async () => {
    const admin = await signUp(api, ADMIN_PHONE);
    expect(decodeJwt(admin.token).roles).toEqual(['admin']);
    expect(await getItem(accountKeys.account(admin.openid))).toMatchObject({ roles: ['admin'] });
    expect((await api.get('/api/v1/me', { token: admin.token })).data).toMatchObject({ roles: ['admin'] });
    expect(decodeJwt((await signUp(api)).token).roles).toEqual([]);
  });

  it('ends the previous session given as openid0/token0', async () => {
    const first = await signUp(api);
    const other = await signUp(api);
    pastResendInterval();
    const second = await signUp(api, first.phone, { openid0: first.openid, token0: first.token });
    expect(second.openid).toBe(first.openid);

    const oldMe = await api.get('/api/v1/me', { token: first.token });
    expect(oldMe.status).toBe(401);
    expect(oldMe.body).toMatchObject({ code: 'AUTH_ERROR' });
    expect((await api.get('/api/v1/me', { token: second.token })).status).toBe(200);
    const favParams = { openid: first.openid, next_id: 0, fav_index: 0, watch_list: '', view: '', q: '' };
    const oldHub = await hub(api, 'get_fav', { ...favParams, token: first.token });
    expect(oldHub.status).toBe(401);
    expect(oldHub.body).toMatchObject({ code: 'AUTH_ERROR' });
    expect((await hub(api, 'get_fav', { ...favParams }, { authorization: `Bearer ${first.token}` })).status).toBe(401);
    expect((await hub(api, 'get_fav', { ...favParams, token: second.token })).status).toBe(200);
    // A token0 that does not belong to openid0 ends nothing.
    pastResendInterval();
    await signUp(api, first.phone, { openid0: first.openid, token0: other.token });
    expect((await api.get('/api/v1/me', { token: other.token })).status).toBe(200);
  });

  it('ignores an invalid openid0/token0 pair', async () => {
    const res = await signUp(api, newPhone(), { openid0: 'u_nobody', token0: 'not-a-jwt' });
    expect(res.new_account).toBe(true);
  });

  it('records an invitation once, for a new account only; unknown inviters are ignored', async () => {
    const inviter = await signUp(api);
    const invitee = await signUp(api, newPhone(), { invite_uid: inviter.openid });
    expect(await getItem(accountKeys.invite(inviter.openid, invitee.openid))).toMatchObject({ inviter: inviter.openid, invitee: invitee.openid });
    expect(await getItem(accountKeys.account(invitee.openid))).toMatchObject({ invited_by: inviter.openid });

    // Signing in again with an invitation changes nothing.
    const third = await signUp(api);
    pastResendInterval();
    await signUp(api, invitee.phone, { invite_uid: third.openid });
    expect(await getItem(accountKeys.invite(third.openid, invitee.openid))).toBeUndefined();
    const invites = await db.send(
      new QueryCommand({
        TableName: tableNames.hub,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': accountKeys.account(inviter.openid).pk, ':p': 'INVITED#' },
      }),
    );
    expect(invites.Items).toHaveLength(1);

    const uninvited = await signUp(api, newPhone(), { invite_uid: 'u_doesnotexist0000000' });
    expect(uninvited.new_account).toBe(true);
    expect(await getItem(accountKeys.account(uninvited.openid))).not.toHaveProperty('invited_by');
    expect(await getItem(accountKeys.invite('u_doesnotexist0000000', uninvited.openid))).toBeUndefined();
  });
});
