import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { tableNames } from '../../lib/platform/db/client.js';
import { hashApiKey } from '../../lib/features/keys/key-material.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { recordRequests, type RecordedRequest } from '../support/db-requests.js';
import { hub, putTestAccounts } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';

interface KeyRecord {
  id: number;
  name: string;
  user_id: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
  is_active: boolean;
  status: string;
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let alice: string;
let bob: string;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  alice = await tokenFor('alice');
  bob = await tokenFor('bob');
});
afterAll(async () => stack?.stop());

const createKey = (token: string, body: unknown) => api.post<{ api_key: string; key: KeyRecord }>('/api/v1/api-keys', { token, body });

describe('access-key lifecycle over HTTP', () => {
  it('creates, lists, verifies, authenticates, revokes and deletes a key', async () => {
    const created = await createKey(alice, { name: '  export script ', scopes: ['export:read', ' hub:read ', 'export:read', ''] });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/application\/json/);
    expect(created.headers.get('x-request-id')).toBeTruthy();
    const { api_key: plaintext, key } = created.data;
    expect(plaintext).toMatch(/^ak_[A-Za-z0-9]{32}$/);
    expect(key).toMatchObject({ name: 'export script', user_id: 'alice', scopes: ['export:read', 'hub:read'], is_active: true, status: 'valid', expires_at: null, last_used_at: null });
    expect(key).not.toHaveProperty('key_hash');

    const listed = await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice });
    expect(listed.status).toBe(200);
    expect(listed.data.map((k) => k.id)).toContain(key.id);
    const listedText = JSON.stringify(listed.body);
    expect(listedText).not.toContain(plaintext);
    expect(listedText).not.toContain('key_hash');
    expect(listedText).not.toContain('api_key');

    const verified = await api.get(`/api/v1/api-keys/verify?key=${encodeURIComponent(`  ${plaintext} `)}`);
    expect(verified.status).toBe(200);
    expect(verified.data).toEqual({ user_id: 'alice', scopes: ['export:read', 'hub:read'], valid: true });

    const me = await api.get('/api/v1/me', { token: plaintext });
    expect(me.status).toBe(200);
    expect(me.data).toEqual({ user_id: 'alice', auth_type: 'api_key', scopes: ['export:read', 'hub:read'], roles: [], key_id: key.id, terms: expect.objectContaining({ current_version: '1' }) });

    const afterUse = await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice });
    expect(afterUse.data.find((k) => k.id === key.id)?.last_used_at).not.toBeNull();

    const revoked = await api.post(`/api/v1/api-keys/${key.id}/revoke`, { token: alice });
    expect(revoked.status).toBe(200);
    expect(revoked.data).toEqual({ revoked: true, id: key.id });

    const verifyAfterRevoke = await api.get(`/api/v1/api-keys/verify?key=${plaintext}`);
    expect(verifyAfterRevoke.status).toBe(401);
    expect(verifyAfterRevoke.body).toEqual({ code: 'AUTH_ERROR', error: expect.any(String) });
    expect((await api.get('/api/v1/me', { token: plaintext })).status).toBe(401);

    const revokedAgain = await api.post(`/api/v1/api-keys/${key.id}/revoke`, { token: alice });
    expect(revokedAgain.status).toBe(200);
    const statusAfterRevoke = (await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice })).data.find((k) => k.id === key.id);
    expect(statusAfterRevoke).toMatchObject({ is_active: false, status: 'revoked' });

    const deleted = await api.delete(`/api/v1/api-keys/${key.id}`, { token: alice });
    expect(deleted.status).toBe(200);
    expect(deleted.data).toEqual({ deleted: true, id: key.id });
    const deletedAgain = await api.delete(`/api/v1/api-keys/${key.id}`, { token: alice });
    expect(deletedAgain.status).toBe(404);
    expect(deletedAgain.body).toEqual({ code: 'NOT_FOUND', error: 'API key does not exist or does not belong to the current user' });
    expect((await api.post(`/api/v1/api-keys/${key.id}/revoke`, { token: alice })).status).toBe(404);
    expect((await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice })).data.map((k) => k.id)).not.toContain(key.id);
    expect((await api.get(`/api/v1/api-keys/verify?key=${plaintext}`)).status).toBe(401);
  });

  it('lists newest first and only the caller\'s own keys', async () => {
    const first = await createKey(bob, { name: 'one' });
    const second = await createKey(bob, { name: 'two' });
    const listed = await api.get<KeyRecord[]>('/api/v1/api-keys', { token: bob });
    const ids = listed.data.map((k) => k.id);
    expect(ids.indexOf(second.data.key.id)).toBeLessThan(ids.indexOf(first.data.key.id));
    expect(listed.data.every((k) => k.user_id === 'bob')).toBe(true);
    expect(second.data.key.id).toBeGreaterThan(first.data.key.id);
  });

  it('ignores a user_id in the body', async () => {
    const created = await createKey(alice, { name: 'mine', user_id: 'bob' });
    expect(created.status).toBe(201);
    expect(created.data.key.user_id).toBe('alice');
  });

  it('stops verifying an expired key', async () => {
    const expiresAt = new Date(clock.now() + 60_000).toISOString();
    const created = await createKey(alice, { name: 'short-lived', expires_at: expiresAt });
    expect(created.status).toBe(201);
    expect(created.data.key.expires_at).toBe(expiresAt);
    expect((await api.get(`/api/v1/api-keys/verify?key=${created.data.api_key}`)).status).toBe(200);
    clock.advance(61_000);
    try {
      const verify = await api.get(`/api/v1/api-keys/verify?key=${created.data.api_key}`);
      expect(verify.status).toBe(401);
      expect(verify.body).toMatchObject({ code: 'AUTH_ERROR' });
      expect((await api.get('/api/v1/me', { token: created.data.api_key })).status).toBe(401);
      const listed = await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice });
      expect(listed.data.find((k) => k.id === created.data.key.id)?.status).toBe('expired');
    } finally {
      clock.reset();
    }
  });
});

describe('bad input is refused with the contract envelope and changes nothing', () => {
  const longName = 'x'.repeat(65);
  it.each([
    ['an empty name', { name: '' }, 'name'],
    ['a whitespace name', { name: '   ' }, 'name'],
    ['a 65-character name', { name: longName }, 'name'],
    ['a missing name', { scopes: [] }, 'name'],
    ['a non-string name', { name: 42 }, 'name'],
    ['non-string scopes', { name: 'k', scopes: ['ok', 3] }, 'scopes'],
    ['scopes that are not an array', { name: 'k', scopes: 'a,b' }, 'scopes'],
    ['21 scopes', { name: 'k', scopes: Array.from({ length: 21 }, (_, i) => `s${i}`) }, 'scopes'],
    ['a 65-character scope', { name: 'k', scopes: ['s'.repeat(65)] }, 'scopes'],
    ['an invalid expires_at', { name: 'k', expires_at: 'next tuesday' }, 'expires_at'],
    ['a past expires_at', { name: 'k', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ['a name with a lone surrogate', { name: 'key \ud800' }, 'name'],
    ['a name with a control character', { name: 'key\u0000' }, 'name'],
    ['a scope with a lone surrogate', { name: 'k', scopes: ['ok', '\udc00x'] }, 'scopes'],
    ['a scope with a control character', { name: 'k', scopes: ['hub:\u0007read'] }, 'scopes'],
  ])('%s', async (_label, body, field) => {
    const before = await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice });
    const res = await createKey(alice, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((res.body as { error: string }).error).toContain(field);
    const after = await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice });
    expect(after.data).toEqual(before.data);
  });

  it.each([
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"name"'],
    ['malformed JSON', '{"name": '],
    ['an empty body', ''],
  ])('a body that is %s', async (_label, rawBody) => {
    const res = await api.post('/api/v1/api-keys', { token: alice, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('a body sent without a JSON content type', async () => {
    const res = await api.post('/api/v1/api-keys', { token: alice, rawBody: '{"name":"k"}', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
  });

  it.each(['abc', '1.5', '0', '-3', '1e3'])('a non-integer id %s', async (id) => {
    const revoke = await api.post(`/api/v1/api-keys/${id}/revoke`, { token: alice });
    expect(revoke.status).toBe(400);
    expect(revoke.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('id') });
    expect((await api.delete(`/api/v1/api-keys/${id}`, { token: alice })).status).toBe(400);
  });

  it('user B can neither revoke nor delete user A\'s key', async () => {
    const created = await createKey(alice, { name: 'alice only' });
    const id = created.data.key.id;
    expect((await api.post(`/api/v1/api-keys/${id}/revoke`, { token: bob })).body).toEqual({
      code: 'NOT_FOUND',
      error: 'API key does not exist or does not belong to the current user',
    });
    expect((await api.delete(`/api/v1/api-keys/${id}`, { token: bob })).status).toBe(404);
    expect((await api.get<KeyRecord[]>('/api/v1/api-keys', { token: bob })).data.map((k) => k.id)).not.toContain(id);
    expect((await api.get(`/api/v1/api-keys/verify?key=${created.data.api_key}`)).status).toBe(200);
  });
});

describe('management routes accept only a valid JWT', () => {
  it('refuses an access key', async () => {
    const { data } = await createKey(alice, { name: 'not for management' });
    for (const res of [
      await api.get('/api/v1/api-keys', { token: data.api_key }),
      await createKey(data.api_key, { name: 'k' }),
      await api.post(`/api/v1/api-keys/${data.key.id}/revoke`, { token: data.api_key }),
      await api.delete(`/api/v1/api-keys/${data.key.id}`, { token: data.api_key }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
    expect((await api.get(`/api/v1/api-keys/verify?key=${data.api_key}`)).status).toBe(200);
  });

  it('refuses a missing, malformed, forged or expired JWT', async () => {
    const forged = await new SignJWT({ roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('expohub')
      .setSubject('alice')
      .setJti('x')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('a-different-secret-that-is-long-enough-for-hs256'));
    const expired = await tokenFor('alice');
    for (const token of [undefined, 'garbage', forged]) {
      const res = await api.get('/api/v1/api-keys', { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
    clock.advance(31 * 24 * 3600 * 1000);
    try {
      expect((await api.get('/api/v1/api-keys', { token: expired })).status).toBe(401);
    } finally {
      clock.reset();
    }
  });
});

describe('verify', () => {
  it.each([
    ['missing', ''],
    ['empty', '?key='],
    ['wrong prefix', '?key=sk_abcdefghijklmnopqrstuvwxyz012345'],
    ['unknown', `?key=ak_${'A'.repeat(32)}`],
    ['too short', '?key=ak_abc'],
  ])('answers one 401 for a %s key', async (_label, query) => {
    const res = await api.get(`/api/v1/api-keys/verify${query}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'AUTH_ERROR', error: 'Invalid, revoked or expired API key' });
  });
});

describe('order of checks', () => {
  it('answers 401 before looking at the body of an unauthenticated request', async () => {
    const res = await api.post('/api/v1/api-keys', { rawBody: '{not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
  });
});

/** The tables a request touches: TableName, each transaction item's, each batch's. */
function tablesOf(request: RecordedRequest): string[] {
  const { TableName, TransactItems, RequestItems } = request.input as { TableName?: string; TransactItems?: Record<string, { TableName: string }>[]; RequestItems?: object };
  return [...(TableName ? [TableName] : []), ...(TransactItems ?? []).flatMap((item) => Object.values(item).map((op) => op.TableName)), ...Object.keys(RequestItems ?? {})];
}
const keyRequests = (requests: RecordedRequest[]) => requests.filter((r) => tablesOf(r).includes(tableNames.apiKeys));
const commands = (requests: RecordedRequest[]) => requests.map((r) => r.command);

describe('what a key costs, counted at the DynamoDB client', () => {
  // The stack runs in this process: every request of the authorizer and the functions is recorded.
  // Time stands still but for advance, so the minute of last_used_at has an exact edge.
  beforeEach(() => clock.set(Date.now()));
  afterEach(() => clock.reset());

  /** One conditional UpdateItem of the key's hash guard, and nothing else on the keys table (a refused one too). */
  const expectOneGuardUpdate = (requests: RecordedRequest[], apiKey: string) => {
    expect(commands(keyRequests(requests))).toEqual(['UpdateItemCommand']);
    expect(keyRequests(requests)[0]!.input).toMatchObject({ Key: keyRecordKeys.hashGuard(hashApiKey(apiKey)), ReturnValues: 'ALL_NEW' });
  };
  const recordAll = <T>(fn: () => Promise<T>) => recordRequests(fn, { includeFailed: true });

  it.each([
    ['verify', (key: string) => api.get(`/api/v1/api-keys/verify?key=${key}`)],
    ['the authorizer (GET /me)', (key: string) => api.get('/api/v1/me', { token: key })],
  ])('%s: 1 request on the keys table, when last_used_at is due too; a new key verifies at once, a revoked one on the next request no more', async (_label, call) => {
    const created = await createKey(alice, { name: 'counted' });
    const key = created.data.api_key;
    // Right after create, never used: valid, and due.
    const first = await recordAll(() => call(key));
    expect(first.result.status).toBe(200);
    expectOneGuardUpdate(first.requests, key);
    const used = await recordAll(() => call(key));
    expect(used.result.status).toBe(200);
    expectOneGuardUpdate(used.requests, key);
    clock.advance(60_000);
    const due = await recordAll(() => call(key));
    expectOneGuardUpdate(due.requests, key);
    const listed = await api.get<KeyRecord[]>('/api/v1/api-keys', { token: alice });
    expect(listed.data.find((k) => k.id === created.data.key.id)?.last_used_at).toBe(clock.nowIso());

    expect((await api.post(`/api/v1/api-keys/${created.data.key.id}/revoke`, { token: alice })).status).toBe(200);
    const revoked = await recordAll(() => call(key));
    expect(revoked.result.status).toBe(401);
    expect(revoked.result.body).toMatchObject({ code: 'AUTH_ERROR' });
    expect(revoked.requests).toHaveLength(1);
    expectOneGuardUpdate(revoked.requests, key);
  });

  it('the hub with Authorization: Bearer <key>: 1 request on the keys table, due or not, as many in all as with a JWT', async () => {
    const [owner] = await putTestAccounts(1);
    const created = await createKey(owner!.token, { name: 'hub script' });
    const key = created.data.api_key;
    const getFollower = (headers: Record<string, string>) => hub(api, 'get_follower', { openid: owner!.openid, watch_list: '', offset: 0 }, headers);
    const first = await recordAll(() => getFollower({ authorization: `Bearer ${key}` }));
    expect(first.result.status).toBe(200);
    expectOneGuardUpdate(first.requests, key);
    const used = await recordAll(() => getFollower({ authorization: `Bearer ${key}` }));
    expect(used.result.status).toBe(200);
    expectOneGuardUpdate(used.requests, key);
    // A JWT costs one request (the ended-session and suspension check, one BatchGetItem); a key one too: its guard's update.
    const withJwt = await recordAll(() => getFollower({ authorization: `Bearer ${owner!.token}` }));
    expect(withJwt.result.data).toEqual(used.result.data);
    expect(keyRequests(withJwt.requests)).toEqual([]);
    expect(used.requests).toHaveLength(withJwt.requests.length);
    clock.advance(60_000);
    const due = await recordAll(() => getFollower({ authorization: `Bearer ${key}` }));
    expectOneGuardUpdate(due.requests, key);
    expect(due.requests).toHaveLength(withJwt.requests.length);
  });
});
