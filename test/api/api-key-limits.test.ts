import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { hashApiKey } from '../../lib/features/keys/key-material.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { guardUseAttributes, MINUTE_SLOTS, utcMinute } from '../../lib/features/keys/key-use.js';
import { hub, putTestAccounts } from '../support/hub-fixtures.js';
import { captureOutput, type Capture } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { DAY_MS, HOUR_MS, pinInsideWindow } from '../support/clock-windows.js';

interface KeyRecord {
  id: number;
  key_hint: string;
  rate_limit_per_minute: number;
  scopes: string[];
}
interface Usage {
  days: { date: string; requests: number }[];
}

// INFO: the audit line of the first refusal is written (tests run SILENT otherwise). A small default
// limit: keys created without their own limit, and keys older than limits, get it.
const api = useTestStack({ http: false, env: { LOG_LEVEL: 'INFO', KEY_RATE_LIMIT_PER_MINUTE: '4' } });
// The lines written at INFO are kept, not printed; a test reads those of its own requests.
let capture: Capture;
beforeAll(() => {
  capture = captureOutput();
});
afterAll(() => capture.restore());
const createKey = (token: string, body: unknown) => api.post<{ api_key: string; key: KeyRecord }>('/api/v1/api-keys', { token, body });
const me = (key: string) => api.get('/api/v1/me', { token: key });
const listed = async (token: string, id: number) => (await api.get<KeyRecord[]>('/api/v1/api-keys', { token })).data.find((k) => k.id === id);
/** 10 s into a UTC minute: 50 s left in it. */
const MINUTE_START = Date.UTC(2026, 10, 23, 10, 0, 0);

describe('key_hint and rate_limit_per_minute in the record', () => {
  it('shows ak_… plus the last 4 characters and the limit set at create, in the answer and the list; never the key', async () => {
    const alice = await tokenFor('alice');
    const created = await createKey(alice, { name: 'hinted', rate_limit_per_minute: 100_000 });
    expect(created.status).toBe(201);
    const hint = `ak_…${created.data.api_key.slice(-4)}`;
    expect(created.data.key).toMatchObject({ key_hint: hint, rate_limit_per_minute: 100_000 });
    expect(await listed(alice, created.data.key.id)).toMatchObject({ key_hint: hint, rate_limit_per_minute: 100_000 });
    const list = JSON.stringify((await api.get('/api/v1/api-keys', { token: alice })).body);
    expect(list).not.toContain(created.data.api_key.slice(3, 20));
  });

  it('gives a key created without a limit the configured default', async () => {
    const alice = await tokenFor('alice');
    const created = await createKey(alice, { name: 'default limit', rate_limit_per_minute: 1 });
    const plain = await createKey(alice, { name: 'plain' });
    expect(created.data.key.rate_limit_per_minute).toBe(1);
    expect(plain.data.key.rate_limit_per_minute).toBe(4);
  });

  it.each([
    ['zero', 0],
    ['past the maximum', 100_001],
    ['a fraction', 1.5],
    ['a string', '10'],
    ['negative', -1],
    ['null', null],
  ])('refuses a rate_limit_per_minute that is %s, creating nothing', async (_label, value) => {
    const alice = await tokenFor('alice');
    const before = (await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice })).data;
    const res = await createKey(alice, { name: 'bad limit', rate_limit_per_minute: value });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('rate_limit_per_minute') });
    expect((await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice })).data).toEqual(before);
  });

  it('shows a key created before hints and limits with ak_… alone and the default limit, which it is held to', async () => {
    clock.set(MINUTE_START);
    const carol = await tokenFor('carol');
    const created = await createKey(carol, { name: 'old', rate_limit_per_minute: 50 });
    const { id } = created.data.key;
    // As stored by the previous version: no hint on the record, no limit on the record nor its guard.
    await db.send(new UpdateCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.record('carol', id), UpdateExpression: 'REMOVE key_hint, rate_limit_per_minute' }));
    await db.send(new UpdateCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.hashGuard(hashApiKey(created.data.api_key)), UpdateExpression: 'REMOVE rate_limit_per_minute' }));
    expect(await listed(carol, id)).toMatchObject({ key_hint: 'ak_…', rate_limit_per_minute: 4 });
    for (let i = 0; i < 4; i++) expect((await me(created.data.api_key)).status).toBe(200);
    expect((await me(created.data.api_key)).status).toBe(429);
  });
});

describe('429 RATE_LIMITED past the limit', () => {
  it('admits exactly the limit in a minute, refuses the next with Retry-After to the next minute, admits again after it', async () => {
    clock.set(MINUTE_START + 10_000);
    const alice = await tokenFor('alice');
    const { api_key: key, key: record } = (await createKey(alice, { name: 'limited', rate_limit_per_minute: 3 })).data;
    for (let i = 0; i < 3; i++) expect((await me(key)).status).toBe(200);
    const [owner] = await putTestAccounts(1);
    const from = capture.lines.length;
    const refused = await me(key);
    // Every way a key authenticates is limited: the authorizer, the hub's own check, verify.
    expect((await hub(api, 'get_follower', { openid: owner!.openid, watch_list: '', offset: 0 }, { authorization: `Bearer ${key}` })).status).toBe(429);
    const verify = await api.get(`/api/v1/api-keys/verify?key=${key}`);
    expect(verify.status).toBe(429);
    expect(verify.headers.get('retry-after')).toBe('50');
    const lines = capture.lines.slice(from);
    const rawLines = capture.rawLines.slice(from);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.headers.get('content-type')).toMatch(/application\/json/);
    expect(refused.headers.get('x-request-id')).toBeTruthy();
    expect(refused.body).toEqual({ code: 'RATE_LIMITED', error: expect.stringContaining('3 requests per minute') });
    // One audit event per key and minute: the first refusal only; the key itself never in a line.
    const audits = lines.filter((l) => l.message === 'audit').map((l) => l.audit);
    expect(audits).toEqual([{ action: 'key.rate_limited', actor: 'alice', subject: 'alice', key_id: String(record.id), via: 'api_key' }]);
    expect(rawLines.join('\n')).not.toContain(key.slice(3));

    clock.advance(49_999);
    const late = await me(key);
    expect(late.status).toBe(429);
    expect(late.headers.get('retry-after')).toBe('1');
    clock.advance(1);
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(429);
  });

  it('never resets a minute for a request stamped in the minute before: it counts in the later minute, and is refused when that one is full', async () => {
    clock.set(MINUTE_START + 59_000);
    const alice = await tokenFor('alice');
    const key = (await createKey(alice, { name: 'boundary', rate_limit_per_minute: 3 })).data.api_key;
    const guard = async () =>
      (await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.hashGuard(hashApiKey(key)), ConsistentRead: true }))).Item!;
    const nextMinute = MINUTE_START + 60_000;
    clock.set(nextMinute + 1_000);
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(200);
    // A request stamped a moment before the boundary lands after those two.
    clock.set(nextMinute - 500);
    expect((await me(key)).status).toBe(200);
    const counted = await guard();
    const slot = Math.floor(nextMinute / 60_000) % MINUTE_SLOTS;
    expect(counted[guardUseAttributes.window]).toBe(utcMinute(nextMinute));
    expect(counted[guardUseAttributes.count(slot)]).toBe(3);
    expect(Object.keys(counted).filter((name) => /^rn\d+$/.test(name))).toEqual([guardUseAttributes.count(slot)]);
    // The later minute is full: the next request of it is refused, and so is another late one, until it ends.
    clock.set(nextMinute + 2_000);
    expect((await me(key)).status).toBe(429);
    clock.set(nextMinute - 200);
    const late = await me(key);
    expect(late.status).toBe(429);
    // Until the end of the minute it counted in: 60.2 s from its stamp.
    expect(late.headers.get('retry-after')).toBe('61');
    clock.set(nextMinute + 60_000);
    expect((await me(key)).status).toBe(200);
  });

  it('counts each key on its own, and a JWT not at all', async () => {
    clock.set(MINUTE_START);
    const alice = await tokenFor('alice');
    const one = (await createKey(alice, { name: 'one', rate_limit_per_minute: 1 })).data.api_key;
    const two = (await createKey(alice, { name: 'two', rate_limit_per_minute: 1 })).data.api_key;
    expect((await me(one)).status).toBe(200);
    expect((await me(one)).status).toBe(429);
    expect((await me(two)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await me(alice)).status).toBe(200);
  });

  it('admits exactly the limit of concurrent calls, however many arrive at once', async () => {
    clock.set(MINUTE_START);
    const alice = await tokenFor('alice');
    const key = (await createKey(alice, { name: 'burst', rate_limit_per_minute: 10 })).data.api_key;
    const statuses = (await Promise.all(Array.from({ length: 25 }, () => me(key)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('still answers 401 for a revoked key at its limit, from the next request on', async () => {
    clock.set(MINUTE_START);
    const alice = await tokenFor('alice');
    const { api_key: key, key: record } = (await createKey(alice, { name: 'to revoke', rate_limit_per_minute: 1 })).data;
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(429);
    expect((await api.post(`/api/v1/api-keys/${record.id}/revoke`, { token: alice })).status).toBe(200);
    expect((await me(key)).status).toBe(401);
  });
});

describe('GET /api/v1/api-keys/{id}/usage', () => {
  const usage = (token: string | undefined, id: number | string) => api.get<Usage>(`/api/v1/api-keys/${id}/usage`, { token });

  it('answers the admitted requests per UTC day, last 30 days oldest first, days without requests as 0', async () => {
    const dave = await tokenFor('dave');
    const today = Date.UTC(2026, 10, 23, 12, 0, 0);
    clock.set(today - 29 * 86_400_000);
    const { api_key: key, key: record } = (await createKey(dave, { name: 'used', rate_limit_per_minute: 2 })).data;
    // 29 days ago: 2 admitted, 1 refused (not counted).
    for (let i = 0; i < 3; i++) await me(key);
    // 30 days ago would be outside the window: tested by the date list below.
    clock.set(today - 3 * 86_400_000 + 3_600_000);
    await me(key);
    clock.set(today - 86_400_000 + 11 * 3_600_000 + 59 * 60_000); // 23:59 yesterday
    await me(key);
    await api.get(`/api/v1/api-keys/verify?key=${key}`);
    clock.set(today);
    await me(key);
    clock.advance(60_000);
    await me(key);
    await me(key);
    await me(key); // refused

    const res = await usage(dave, record.id);
    expect(res.status).toBe(200);
    const { days } = res.data;
    expect(days).toHaveLength(30);
    expect(days[0]!.date).toBe('2026-10-25');
    expect(days[29]!.date).toBe('2026-11-23');
    const expected: Record<string, number> = { '2026-10-25': 2, '2026-11-20': 1, '2026-11-22': 2, '2026-11-23': 3 };
    expect(days).toEqual(days.map(({ date }) => ({ date, requests: expected[date] ?? 0 })));

    // A day later, the oldest day leaves the window.
    clock.set(today + 86_400_000);
    const next = (await usage(dave, record.id)).data.days;
    expect(next[0]).toEqual({ date: '2026-10-26', requests: 0 });
    expect(next[28]).toEqual({ date: '2026-11-23', requests: 3 });
    expect(next[29]).toEqual({ date: '2026-11-24', requests: 0 });
  });

  it("is the owner's only: another user's key and an unknown id are 404, a non-integer id 400, no credential 401", async () => {
    const erin = await tokenFor('erin');
    const frank = await tokenFor('frank');
    const { api_key: key, key: record } = (await createKey(erin, { name: 'erin' })).data;
    expect((await usage(erin, record.id)).status).toBe(200);
    for (const res of [await usage(frank, record.id), await usage(erin, 999_999_999)]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', error: 'API key does not exist or does not belong to the current user' });
    }
    expect((await usage(erin, 'abc')).body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('id') });
    expect((await usage(undefined, record.id)).status).toBe(401);
    expect((await usage(key, record.id)).status).toBe(200);
    expect((await api.delete(`/api/v1/api-keys/${record.id}`, { token: erin })).status).toBe(200);
    expect((await usage(erin, record.id)).status).toBe(404);
  });

  it('with an access key: its own usage (its id from /me), and any other id the same 404 as an unknown one', async () => {
    // Noon of a UTC day ahead: the requests and the usage that counts them are of one day.
    pinInsideWindow(DAY_MS, 12 * HOUR_MS);
    const gina = await tokenFor('gina');
    const hank = await tokenFor('hank');
    const { api_key: own, key: ownRecord } = (await createKey(gina, { name: 'reads itself', rate_limit_per_minute: 100 })).data;
    const { key: sibling } = (await createKey(gina, { name: 'sibling' })).data;
    const { key: foreign } = (await createKey(hank, { name: 'foreign' })).data;

    const who = await me(own);
    expect(who.data).toMatchObject({ auth_type: 'api_key', key_id: ownRecord.id });
    const res = await usage(own, ownRecord.id);
    expect(res.status).toBe(200);
    // The /me call and this read itself are admitted requests of today.
    expect(res.data.days.at(-1)).toEqual({ date: clock.nowIso().slice(0, 10), requests: 2 });
    for (const id of [sibling.id, foreign.id, 999_999_999]) {
      const other = await usage(own, id);
      expect(other.status).toBe(404);
      expect(other.body).toEqual({ code: 'NOT_FOUND', error: 'API key does not exist or does not belong to the current user' });
    }
    // A login token still reads every key of its account, and /me with it names no key.
    expect((await usage(gina, sibling.id)).status).toBe(200);
    expect((await me(gina)).data).not.toHaveProperty('key_id');
  });
});
