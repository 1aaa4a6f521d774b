import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyToken } from '../../lib/features/auth/jwt.js';
import { audit } from '../../lib/platform/audit/trail.js';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { createKey as createKeyDirect, verifyAccessKey } from '../../lib/features/keys/key-service.js';
import { recordRequests } from '../support/db-requests.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { getHubItem, hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { auditKeys } from '../../lib/platform/audit/trail.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

interface AuditEntry {
  id: string;
  at: string;
  type: string;
  actor: string;
  details: Record<string, unknown>;
}
interface AuditPage {
  items: AuditEntry[];
  next_cursor: string | null;
}
interface KeyRecord {
  id: number;
  name: string;
  user_id: string;
  is_active: boolean;
  status: string;
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: SignedUp;
let adminKey: string;

const trail = (token: string, query = '') => api.get<AuditPage>(`/api/v1/audit${query}`, { token });
const types = async (token: string) => (await trail(token, '?limit=100')).data.items.map((e) => e.type);
const createKey = (token: string, name: string) => api.post<{ api_key: string; key: KeyRecord }>('/api/v1/api-keys', { token, body: { name } });
const suspend = (token: string, openid: string) => api.post<{ openid: string; suspended: boolean; keys: number }>(`/api/v1/admin/users/${openid}/suspend`, { token });
const reinstate = (token: string, openid: string) => api.post<{ openid: string; suspended: boolean; keys: number }>(`/api/v1/admin/users/${openid}/reinstate`, { token });
const lookup = (token: string, body: unknown) => api.post<{ user_id: string; key: KeyRecord }>('/api/v1/admin/api-keys/lookup', { token, body });

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  admin = await signUp(api, ADMIN_PHONE);
  const created = await createKey(admin.token, 'admin pipeline');
  expect(created.status).toBe(201);
  adminKey = created.data.api_key;
});
afterAll(async () => stack?.stop());

describe('GET /api/v1/audit: events of the caller account', () => {
  it('records key created, revoked (once) and deleted, newest first, with ids only; the events outlive the key', async () => {
    const user = await signUp(api);
    expect((await trail(user.token)).data).toEqual({ items: [], next_cursor: null });
    const created = await createKey(user.token, 'nightly export');
    const id = created.data.key.id;
    expect((await api.post(`/api/v1/api-keys/${id}/revoke`, { token: user.token })).status).toBe(200);
    expect((await api.post(`/api/v1/api-keys/${id}/revoke`, { token: user.token })).status).toBe(200);
    expect((await api.delete(`/api/v1/api-keys/${id}`, { token: user.token })).status).toBe(200);

    const res = await trail(user.token);
    expect(res.status).toBe(200);
    expect(res.data.next_cursor).toBeNull();
    const details = { via: 'jwt', key_id: id, key_name: 'nightly export' };
    expect(res.data.items).toEqual([
      { id: expect.any(String), at: expect.any(String), type: 'key.deleted', actor: user.openid, details },
      { id: expect.any(String), at: expect.any(String), type: 'key.revoked', actor: user.openid, details },
      { id: expect.any(String), at: expect.any(String), type: 'key.created', actor: user.openid, details },
    ]);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(created.data.api_key);
    expect(text).not.toContain(user.token);
    expect(text).not.toContain(user.phone.slice(3));
  });

  it('stores each event with a TTL of 90 days', async () => {
    const user = await signUp(api);
    await createKey(user.token, 'k');
    const [event] = (await trail(user.token)).data.items;
    const stored = await getHubItem<{ ttl: number }>(auditKeys.auditEvent(user.openid, event!.at, event!.id));
    expect(stored?.ttl).toBe(Math.floor(Date.parse(event!.at) / 1000) + 90 * 86_400);
  });

  it('records a role change by an administrator once, on the changed account, with the roles before and after', async () => {
    const user = await signUp(api);
    const set = (roles: string[]) => api.post(`/api/v1/admin/users/${user.openid}/roles`, { token: admin.token, body: { roles } });
    expect((await set(['editor'])).status).toBe(200);
    expect((await set(['editor'])).status).toBe(200); // nothing changes: no second event
    const items = (await trail(user.token)).data.items;
    expect(items).toEqual([
      { id: expect.any(String), at: expect.any(String), type: 'role.changed', actor: 'administrator', details: { via: 'jwt', roles_before: [], roles_after: ['editor'] } },
    ]);
    expect(await types(admin.token)).not.toContain('role.changed');
  });

  it("shows the subject of an administrator's action 'administrator', never the administrator's openid; an administrator reading its own trail sees who acted", async () => {
    const user = await signUp(api);
    const other = await signUp(api);
    expect((await api.post(`/api/v1/admin/users/${other.openid}/roles`, { token: admin.token, body: { roles: ['admin'] } })).status).toBe(200);
    clock.advance(61_000);
    try {
      const otherAdmin = await signUp(api, other.phone);
      expect((await api.post(`/api/v1/admin/users/${user.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } })).status).toBe(200);
      expect((await api.get(`/api/v1/admin/users/${user.openid}/api-keys`, { token: admin.token })).status).toBe(200);
      expect((await suspend(admin.token, user.openid)).status).toBe(200);
      expect((await reinstate(admin.token, user.openid)).status).toBe(200);
      const seen = await trail(user.token);
      expect(seen.data.items.map((e) => e.actor)).toEqual(['administrator', 'administrator', 'administrator', 'administrator']);
      expect(JSON.stringify(seen.body)).not.toContain(admin.openid);
      // Stored with the actor, for investigation (and the audit log line): an admin reading its own trail sees it.
      expect((await api.post(`/api/v1/admin/users/${otherAdmin.openid}/suspend`, { token: admin.token })).status).toBe(200);
      expect((await reinstate(admin.token, otherAdmin.openid)).status).toBe(200);
      expect((await trail(otherAdmin.token)).data.items.slice(0, 2).map((e) => e.actor)).toEqual([admin.openid, admin.openid]);
    } finally {
      clock.reset();
    }
  });

  it('records the session ended by a sign-in on the same device, naming its jti, on the ended account', async () => {
    const user = await signUp(api);
    clock.advance(61_000); // one SMS code per phone per minute
    try {
      const again = await signUp(api, user.phone, { openid0: user.openid, token0: user.token });
      expect((await api.get('/api/v1/me', { token: user.token })).status).toBe(401);
      const items = (await trail(again.token)).data.items;
      expect(items).toEqual([
        { id: expect.any(String), at: expect.any(String), type: 'session.ended', actor: user.openid, details: { via: 'sms_code', session_id: decodeJwt(user.token).jti } },
      ]);
      expect(JSON.stringify(items)).not.toContain(user.token);
    } finally {
      clock.reset();
    }
  });

  it('records the admin role an ADMIN_PHONES account regains at sign-in (actor sign-in)', async () => {
    expect((await api.post(`/api/v1/admin/users/${admin.openid}/roles`, { token: admin.token, body: { roles: [] } })).status).toBe(200);
    clock.advance(61_000);
    try {
      const again = await signUp(api, ADMIN_PHONE);
      const [promoted, withdrawn] = (await trail(again.token)).data.items;
      expect(promoted).toMatchObject({ type: 'role.changed', actor: 'sign-in', details: { via: 'ADMIN_PHONES', roles_before: [], roles_after: ['admin'] } });
      expect(withdrawn).toMatchObject({ type: 'role.changed', actor: admin.openid, details: { roles_before: ['admin'], roles_after: [] } });
      // The token from before the withdrawal lost the role for good; this file's admin goes on with the new one.
      expect((await api.get('/api/v1/me', { token: admin.token })).data).toMatchObject({ roles: [] });
      expect((await api.get('/api/v1/me', { token: again.token })).data).toMatchObject({ roles: ['admin'] });
      admin = again;
    } finally {
      clock.reset();
    }
  });

  it('stores a plain audit() call (no transaction of its own) once per id', async () => {
    const user = await signUp(api);
    const event = { action: 'key.rate_limited' as const, actor: user.openid, subject: user.openid, key_id: '7', via: 'api_key' };
    await audit(event, { id: 'rl_7_minute_1' });
    await audit(event, { id: 'rl_7_minute_1' });
    await audit(event);
    const items = (await trail(user.token)).data.items;
    expect(items.map((e) => e.type)).toEqual(['key.rate_limited', 'key.rate_limited']);
    expect(items.filter((e) => e.id === 'rl_7_minute_1')).toHaveLength(1);
    expect(items[0]!.details).toEqual({ via: 'api_key', key_id: 7 });
  });

  it('pages newest first with a signed cursor: exactly full pages end with next_cursor null', async () => {
    const user = await signUp(api);
    for (const name of ['a', 'b', 'c', 'd']) expect((await createKey(user.token, name)).status).toBe(201);
    const first = await trail(user.token, '?limit=3');
    expect(first.data.items.map((e) => e.details.key_name)).toEqual(['d', 'c', 'b']);
    expect(first.data.next_cursor).toEqual(expect.any(String));
    const second = await trail(user.token, `?limit=3&cursor=${encodeURIComponent(first.data.next_cursor!)}`);
    expect(second.data).toEqual({ items: [expect.objectContaining({ details: expect.objectContaining({ key_name: 'a' }) })], next_cursor: null });
    const exact = await trail(user.token, '?limit=4');
    expect(exact.data.items).toHaveLength(4);
    expect(exact.data.next_cursor).toBeNull();
    expect((await trail(user.token)).data.items).toHaveLength(4); // default page size 20

    // A cursor of this list does not continue another account's list; an altered one is not a cursor.
    const other = await signUp(api);
    for (const cursor of [first.data.next_cursor!, `${first.data.next_cursor!.slice(0, -2)}AA`, 'garbage']) {
      const res = await trail(other.token, `?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('cursor') });
    }
    const mine = await trail(user.token, `?cursor=${encodeURIComponent(`${first.data.next_cursor!.slice(0, -2)}AA`)}`);
    expect(mine.status).toBe(400);
  });

  it.each(['0', '101', '-1', '1.5', 'ten'])('answers 400 naming limit for limit=%s', async (limit) => {
    const res = await trail(admin.token, `?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('limit') });
  });

  it('accepts limit 1 and 100', async () => {
    expect((await trail(admin.token, '?limit=1')).data.items).toHaveLength(1);
    expect((await trail(admin.token, '?limit=100')).status).toBe(200);
  });

  it('takes a login token only: an access key and no credential are 401', async () => {
    expect((await trail(adminKey)).status).toBe(401);
    expect((await api.get('/api/v1/audit')).status).toBe(401);
  });
});

describe('administration: admin JWT only', () => {
  it('every admin endpoint refuses an access key (even an admin key) and a JWT without the admin role with 403, changing nothing', async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'target')).data;
    for (const token of [adminKey, user.token]) {
      const calls = [
        api.get(`/api/v1/admin/users/${user.openid}/api-keys`, { token }),
        api.post(`/api/v1/admin/api-keys/${key.key.id}/revoke`, { token }),
        lookup(token, { key: key.api_key, revoke: true }),
        suspend(token, user.openid),
        reinstate(token, user.openid),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
      }
    }
    expect((await api.get('/api/v1/me', { token: key.api_key })).status).toBe(200);
    expect(await types(user.token)).toEqual(['key.created']);
  });

  it("lists any account's keys as its owner sees them, and records the look", async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'pipeline')).data;
    const res = await api.get<KeyRecord[]>(`/api/v1/admin/users/${user.openid}/api-keys`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.data).toEqual((await api.get<KeyRecord[]>('/api/v1/api-keys', { token: user.token })).data);
    expect(res.data).toEqual([expect.objectContaining({ id: key.key.id, user_id: user.openid, status: 'valid' })]);
    expect(JSON.stringify(res.body)).not.toContain('key_hash');
    expect((await trail(user.token)).data.items[0]).toMatchObject({ type: 'admin.keys_listed', actor: 'administrator', details: { via: 'jwt' } });
    const unknown = await api.get('/api/v1/admin/users/u_nobody/api-keys', { token: admin.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('revokes any key by id (again: success, one event on the owner account); unknown 404, malformed 400', async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'leaky')).data;
    const revoke = (id: string | number) => api.post<{ revoked: boolean; id: number; user_id: string }>(`/api/v1/admin/api-keys/${id}/revoke`, { token: admin.token });
    const res = await revoke(key.key.id);
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ revoked: true, id: key.key.id, user_id: user.openid });
    expect((await api.get(`/api/v1/api-keys/verify?key=${key.api_key}`)).status).toBe(401);
    expect((await revoke(key.key.id)).status).toBe(200);
    expect((await trail(user.token)).data.items.map((e) => [e.type, e.actor])).toEqual([
      ['key.revoked', 'administrator'],
      ['key.created', user.openid],
    ]);
    expect((await revoke(999_999_999)).status).toBe(404);
    const bad = await revoke('abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('id') });
  });

  it('finds the owner of a leaked key by its plaintext, and revokes it in the same call', async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'leaked')).data;
    const found = await lookup(admin.token, { key: ` ${key.api_key} ` });
    expect(found.status).toBe(200);
    expect(found.data).toEqual({ user_id: user.openid, key: expect.objectContaining({ id: key.key.id, name: 'leaked', status: 'valid', is_active: true }) });
    expect(JSON.stringify(found.body)).not.toContain('key_hash');
    expect(JSON.stringify(found.body)).not.toContain(key.api_key);
    expect((await api.get('/api/v1/me', { token: key.api_key })).status).toBe(200);

    const revoked = await lookup(admin.token, { key: key.api_key, revoke: true });
    expect(revoked.status).toBe(200);
    expect(revoked.data.key).toMatchObject({ id: key.key.id, status: 'revoked', is_active: false });
    expect((await api.get('/api/v1/me', { token: key.api_key })).status).toBe(401);
    const events = (await trail(user.token)).data.items;
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['key.revoked', 'administrator'],
      ['admin.key_looked_up', 'administrator'],
      ['admin.key_looked_up', 'administrator'],
      ['key.created', user.openid],
    ]);
    expect(JSON.stringify(events)).not.toContain(key.api_key);
  });

  it.each([
    ['a well-formed key nobody holds', { key: `ak_${'A'.repeat(32)}` }, 404],
    ['a text that is not a key', { key: 'hello' }, 404],
    ['a missing key', {}, 400],
    ['a key that is not a string', { key: 12 }, 400],
    ['revoke that is not a boolean', { key: `ak_${'A'.repeat(32)}`, revoke: 'yes' }, 400],
    ['a JSON array body', ['x'], 400],
  ])('lookup of %s (%j) answers %i', async (_label, body, status) => {
    const res = await lookup(admin.token, body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code: status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR' });
  });
});

describe('suspension', () => {
  it("refuses a suspended account's tokens (header and hub token parameter) and keys from the next request; reinstating revives neither ended nor revoked keys", async () => {
    const user = await signUp(api);
    const active = (await createKey(user.token, 'active')).data;
    const revoked = (await createKey(user.token, 'revoked')).data;
    expect((await api.post(`/api/v1/api-keys/${revoked.key.id}/revoke`, { token: user.token })).status).toBe(200);

    const res = await suspend(admin.token, user.openid);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ openid: user.openid, suspended: true, keys: 2 });

    const me = await api.get('/api/v1/me', { token: user.token });
    expect(me.status).toBe(401);
    expect(me.body).toEqual({ code: 'AUTH_ERROR', error: expect.stringContaining('suspended') });
    const fav = { openid: user.openid, next_id: 0, fav_index: 0, watch_list: '', view: '', q: '' };
    const viaUrl = await hub(api, 'get_fav', { ...fav, token: user.token });
    expect(viaUrl.status).toBe(401);
    expect(viaUrl.body).toMatchObject({ code: 'AUTH_ERROR', error: expect.stringContaining('suspended') });
    const viaHeader = await hub(api, 'get_fav', fav, { authorization: `Bearer ${active.api_key}` });
    expect(viaHeader.status).toBe(401);
    const keyMe = await api.get('/api/v1/me', { token: active.api_key });
    expect(keyMe.status).toBe(401);
    expect(keyMe.body).toEqual({ code: 'AUTH_ERROR', error: expect.stringContaining('suspended') });
    // The public verify endpoint keeps one message for every cause (docs/protected-api.md, "Administration").
    const verify = await api.get(`/api/v1/api-keys/verify?key=${active.api_key}`);
    expect(verify.status).toBe(401);
    expect(verify.body).toEqual({ code: 'AUTH_ERROR', error: 'Invalid, revoked or expired API key' });
    // A key cannot be created for a suspended account, whatever the way in.
    await expect(createKeyDirect(user.openid, { name: 'sneaky' })).rejects.toMatchObject({ status: 401 });

    // Suspending again succeeds and records nothing more.
    expect((await suspend(admin.token, user.openid)).status).toBe(200);

    const back = await reinstate(admin.token, user.openid);
    expect(back.status).toBe(200);
    expect(back.data).toMatchObject({ openid: user.openid, suspended: false });
    expect((await api.get('/api/v1/me', { token: user.token })).status).toBe(200);
    expect((await api.get('/api/v1/me', { token: active.api_key })).status).toBe(200);
    expect((await api.get('/api/v1/me', { token: revoked.api_key })).status).toBe(401);
    expect((await hub(api, 'get_fav', { ...fav, token: user.token })).status).toBe(200);
    expect((await reinstate(admin.token, user.openid)).status).toBe(200);

    const events = (await trail(user.token)).data.items.map((e) => [e.type, e.actor]);
    expect(events.slice(0, 2)).toEqual([
      ['account.reinstated', 'administrator'],
      ['account.suspended', 'administrator'],
    ]);
    expect(events.filter((e) => e[0]!.startsWith('account.'))).toHaveLength(2);
  });

  it('suspends in one transaction (account, event, every guard); when the key count moved it falls back to marking the guards after', async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'one')).data.api_key;
    const { result, requests } = await recordRequests(() => suspend(admin.token, user.openid));
    expect(result.data).toMatchObject({ suspended: true, keys: 1 });
    expect(requests.map((r) => r.command).filter((c) => /Transact|Update/.test(c))).toEqual(['TransactWriteItemsCommand']);
    expect((await api.get('/api/v1/me', { token: key })).status).toBe(401);
    expect((await reinstate(admin.token, user.openid)).status).toBe(200);
    expect((await api.get('/api/v1/me', { token: key })).status).toBe(200);

    // A quota count that does not match the keys listed (as if a create kept landing in between).
    await db.send(new PutCommand({ TableName: tableNames.apiKeys, Item: { ...keyRecordKeys.quota(user.openid), n: 5 } }));
    const fallback = await suspend(admin.token, user.openid);
    expect(fallback.data).toMatchObject({ suspended: true, keys: 1 });
    expect((await api.get('/api/v1/me', { token: key })).status).toBe(401);
    expect((await api.get('/api/v1/me', { token: user.token })).status).toBe(401);
    expect((await reinstate(admin.token, user.openid)).data).toMatchObject({ suspended: false, keys: 1 });
    expect((await api.get('/api/v1/me', { token: key })).status).toBe(200);
    const events = (await trail(user.token)).data.items.map((e) => e.type);
    expect(events.filter((t) => t.startsWith('account.'))).toEqual(['account.reinstated', 'account.suspended', 'account.reinstated', 'account.suspended']);
  });

  it('answers 404 for an unknown account and creates nothing', async () => {
    for (const call of [suspend, reinstate]) {
      const res = await call(admin.token, 'u_nobody');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(await getHubItem(accountKeys.account('u_nobody'))).toBeUndefined();
  });

  it('costs key verification and JWT authentication no extra DynamoDB request', async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'counted')).data.api_key;
    const keyCheck = await recordRequests(() => verifyAccessKey(key));
    // The guard's one conditional update: the suspension marker is in its condition.
    expect(keyCheck.requests.map((r) => r.command)).toEqual(['UpdateItemCommand']);
    const tokenCheck = await recordRequests(() => verifyToken(user.token));
    expect(tokenCheck.requests.map((r) => r.command)).toEqual(['BatchGetItemCommand']);

    expect((await suspend(admin.token, user.openid)).status).toBe(200);
    const refusedKey = await recordRequests(() => verifyAccessKey(key).catch((e: unknown) => e), { includeFailed: true });
    expect(refusedKey.result).toMatchObject({ status: 401, reason: 'account_suspended' });
    // Refused by the marker in the guard update's condition: the one request writes nothing.
    expect(refusedKey.requests.map((r) => [r.command, r.failed])).toEqual([['UpdateItemCommand', true]]);
    const refusedToken = await recordRequests(() => verifyToken(user.token).catch((e: unknown) => e));
    expect(refusedToken.result).toMatchObject({ status: 401, reason: 'account_suspended' });
    expect(refusedToken.requests.map((r) => r.command)).toEqual(['BatchGetItemCommand']);
  });
});

describe('POST /api/v1/logout: sign out ends the calling token', () => {
  it('the token gets 401 everywhere from then on, one session.ended event; other sessions and keys of the account go on', async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'stays valid')).data.api_key;
    clock.advance(61_000); // one code per phone per 60 s
    const other = await signUp(api, user.phone); // a second session of the same account (another device)
    expect(other.openid).toBe(user.openid);

    const out = await api.post('/api/v1/logout', { token: user.token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ code: 0, data: { ended: true } });
    for (const res of [await api.get('/api/v1/me', { token: user.token }), await hub(api, 'get_fav', { openid: user.openid, token: user.token, watch_list: 'like', next_id: 0, fav_index: 0, view: '', q: '', d: '' })]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'AUTH_ERROR', error: expect.stringContaining('ended') });
    }
    await expect(verifyToken(user.token)).rejects.toMatchObject({ status: 401 });
    // Again with the ended token: 401, nothing more stored.
    expect((await api.post('/api/v1/logout', { token: user.token })).status).toBe(401);

    expect((await api.get('/api/v1/me', { token: other.token })).status).toBe(200);
    expect((await api.get('/api/v1/me', { token: key })).status).toBe(200);
    const events = (await trail(other.token, '?limit=100')).data.items.filter((e) => e.type === 'session.ended');
    expect(events).toEqual([expect.objectContaining({ actor: user.openid, details: { via: 'jwt', session_id: decodeJwt(user.token).jti } })]);
  });

  it('an access key cannot sign out (401, the key stays valid); without a credential 401', async () => {
    const user = await signUp(api);
    const key = (await createKey(user.token, 'not a session')).data.api_key;
    const res = await api.post('/api/v1/logout', { token: key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'AUTH_ERROR', error: expect.stringContaining('login token') });
    expect((await api.get('/api/v1/me', { token: key })).status).toBe(200);
    expect((await api.post('/api/v1/logout')).status).toBe(401);
  });

  it('two sign-outs of one token at once: both answered, one event', async () => {
    const user = await signUp(api);
    const answers = await Promise.all([api.post('/api/v1/logout', { token: user.token }), api.post('/api/v1/logout', { token: user.token })]);
    // Each is 200 (both passed the authorizer before either ended it) or 401 (the other had ended it first).
    for (const a of answers) expect([200, 401]).toContain(a.status);
    expect(answers.some((a) => a.status === 200)).toBe(true);
    clock.advance(61_000);
    const again = await signUp(api, user.phone);
    expect((await trail(again.token, '?limit=100')).data.items.filter((e) => e.type === 'session.ended')).toHaveLength(1);
  });
});
