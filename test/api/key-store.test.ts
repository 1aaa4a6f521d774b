import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableNames } from '../../lib/db/client.js';
import { clock } from '../../lib/clock.js';
import { createKey, deleteKey, listKeys, revokeKey, verifyAccessKey } from '../../lib/keys/key-service.js';
import { hashApiKey } from '../../lib/keys/key-material.js';
import { keyRecordKeys } from '../../lib/keys/key-records.js';
import { minuteCounterKeys } from '../../lib/keys/minute-counters.js';
import { authorizeRequest } from '../../lib/auth/authorizer.js';
import { createTestTables } from '../support/stack.js';
import { recordRequests } from '../support/db-requests.js';
import { tokenFor } from '../support/tokens.js';
import { putTestAccounts } from '../support/hub-fixtures.js';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';

beforeAll(createTestTables);

const authorizerEvent = (authorization?: string) =>
  ({
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn',
    identitySource: [],
    routeKey: 'GET /api/v1/me',
    rawPath: '/api/v1/me',
    rawQueryString: '',
    headers: authorization ? { authorization } : {},
    requestContext: { requestId: 'r' },
  }) as unknown as APIGatewayRequestAuthorizerEventV2;

describe('key store on DynamoDB Local', () => {
  it('gives 20 concurrent creates 20 distinct, increasing ids', async () => {
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => createKey(`user-${i % 3}`, { name: `k${i}` })));
    const ids = created.map((c) => c.key.id);
    expect(new Set(ids).size).toBe(20);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    const later = await createKey('user-0', { name: 'later' });
    expect(later.key.id).toBeGreaterThan(Math.max(...ids));
    const hashes = new Set(created.map((c) => hashApiKey(c.api_key)));
    expect(hashes.size).toBe(20);
  });

  it('stores only the hash, never the plaintext', async () => {
    const { api_key, key } = await createKey('storer', { name: 'hash only' });
    const item = (await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.record('storer', key.id) }))).Item!;
    expect(item.key_hash).toBe(hashApiKey(api_key));
    expect(JSON.stringify(item)).not.toContain(api_key.slice(3));
    const guard = (await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.hashGuard(hashApiKey(api_key)) }))).Item!;
    expect(JSON.stringify(guard)).not.toContain(api_key.slice(3));
  });

  it('lets user B neither see, revoke nor delete user A\'s key', async () => {
    const a = await createKey('owner-a', { name: 'a' });
    await expect(revokeKey('owner-b', a.key.id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(deleteKey('owner-b', a.key.id)).rejects.toMatchObject({ status: 404 });
    expect((await listKeys('owner-b')).map((k) => k.id)).not.toContain(a.key.id);
    expect((await listKeys('owner-a')).find((k) => k.id === a.key.id)?.status).toBe('valid');
    await expect(verifyAccessKey(a.api_key)).resolves.toEqual({ user_id: 'owner-a', scopes: [], key_id: a.key.id });
  });

  it('caps a user at 100 key records, counting deletes, even under concurrency', async () => {
    await Promise.all(Array.from({ length: 100 }, (_, i) => createKey('hoarder', { name: `k${i}` })));
    await expect(createKey('hoarder', { name: 'one too many' })).rejects.toMatchObject({ status: 409, code: 'LIMIT_EXCEEDED' });
    const keys = await listKeys('hoarder');
    expect(keys).toHaveLength(100);
    await deleteKey('hoarder', keys[0]!.id);
    const extra = await Promise.allSettled([createKey('hoarder', { name: 'a' }), createKey('hoarder', { name: 'b' })]);
    expect(extra.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await listKeys('hoarder')).toHaveLength(100);
  });

  it('verifies a key the key_hash GSI does not hold: verification never reads the index', async () => {
    const { api_key, key } = await createKey('fresh', { name: 'fresh', scopes: ['hub:read'] });
    // As AWS's GSI lag would: drop key_hash from the record, so the sparse index does not hold it.
    await db.send(new UpdateCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.record('fresh', key.id), UpdateExpression: 'REMOVE key_hash' }));
    const { result, requests } = await recordRequests(() => verifyAccessKey(api_key));
    expect(result).toEqual({ user_id: 'fresh', scopes: ['hub:read'], key_id: key.id });
    expect(requests.map((r) => r.command)).toEqual(['GetItemCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
    expect(requests.some((r) => 'IndexName' in r.input)).toBe(false);
  });
});

const guardOf = async (apiKey: string) =>
  (await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.hashGuard(hashApiKey(apiKey)), ConsistentRead: true }))).Item!;

describe('verification cost', () => {
  it('reads the hash guard once, strongly consistent, counts the use (1 UpdateItem), and adds one transaction when last_used_at is due', async () => {
    clock.set(Date.now()); // time stands still but for advance: the minute's edge is exact
    const { api_key, key } = await createKey('counted', { name: 'counted' });
    // Never used: due at once. The guard first, the minute counter of the rate limit, then one
    // transaction writing last_used_at on guard and record.
    const first = await recordRequests(() => verifyAccessKey(api_key));
    expect(first.requests.map((r) => r.command)).toEqual(['GetItemCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
    expect(first.requests[0]!.input).toMatchObject({ Key: keyRecordKeys.hashGuard(hashApiKey(api_key)), ConsistentRead: true });
    expect(first.requests[1]!.input).toMatchObject({ Key: minuteCounterKeys.usageMinute(key.id, clock.nowIso().slice(0, 16)) });
    // The minute counter: the count, the limit it was counted against, and its expiry 32 days after its minute.
    const counter = (await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: minuteCounterKeys.usageMinute(key.id, clock.nowIso().slice(0, 16)), ConsistentRead: true }))).Item;
    const minuteStart = clock.now() - (clock.now() % 60_000);
    expect(counter).toMatchObject({ n: 1, lim: 600, ttl: minuteStart / 1000 + 32 * 24 * 3600 });
    const written = (first.requests[2]!.input.TransactItems as { Update: { Key: unknown } }[]).map((i) => i.Update.Key);
    expect(written).toEqual([keyRecordKeys.hashGuard(hashApiKey(api_key)), keyRecordKeys.record('counted', key.id)]);

    try {
      const second = await recordRequests(() => verifyAccessKey(api_key));
      expect(second.requests.map((r) => r.command)).toEqual(['GetItemCommand', 'UpdateItemCommand']);
      expect(second.requests[0]!.input).toMatchObject({ Key: keyRecordKeys.hashGuard(hashApiKey(api_key)), ConsistentRead: true });
      clock.advance(59_999);
      expect((await recordRequests(() => verifyAccessKey(api_key))).requests).toHaveLength(2);
      clock.advance(1);
      const due = await recordRequests(() => verifyAccessKey(api_key));
      expect(due.requests.map((r) => r.command)).toEqual(['GetItemCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
      expect((await guardOf(api_key)).last_used_at).toBe(clock.nowIso());
      expect((await listKeys('counted'))[0]!.last_used_at).toBe(clock.nowIso());
    } finally {
      clock.reset();
    }
  });

  it('refuses an unknown key with 1 request and a malformed one with none', async () => {
    const unknown = await recordRequests(() => verifyAccessKey(`ak_${'Z'.repeat(32)}`).catch((e) => e));
    expect(unknown.result).toMatchObject({ status: 401 });
    expect(unknown.requests.map((r) => r.command)).toEqual(['GetItemCommand']);
    const malformed = await recordRequests(() => verifyAccessKey('ak_short').catch((e) => e));
    expect(malformed.requests).toHaveLength(0);
  });

  it('refuses a key on the request right after its revoke or delete, with 1 request', async () => {
    const revoked = await createKey('ender', { name: 'revoked' });
    const deleted = await createKey('ender', { name: 'deleted' });
    await verifyAccessKey(revoked.api_key);
    await verifyAccessKey(deleted.api_key);
    await revokeKey('ender', revoked.key.id);
    await deleteKey('ender', deleted.key.id);
    for (const apiKey of [revoked.api_key, deleted.api_key]) {
      const { result, requests } = await recordRequests(() => verifyAccessKey(apiKey).catch((e) => e));
      expect(result).toMatchObject({ status: 401, code: 'AUTH_ERROR' });
      expect(requests.map((r) => r.command)).toEqual(['GetItemCommand']);
    }
  });

  it('refuses an expired key from the guard alone', async () => {
    const { api_key } = await createKey('expiring', { name: 'e', expires_at: new Date(clock.now() + 60_000).toISOString() });
    await verifyAccessKey(api_key);
    clock.advance(60_000);
    try {
      const { result, requests } = await recordRequests(() => verifyAccessKey(api_key).catch((e) => e));
      expect(result).toMatchObject({ status: 401 });
      expect(requests).toHaveLength(1);
    } finally {
      clock.reset();
    }
  });

  it('writes last_used_at once, on guard and record, when 20 verifications race', async () => {
    const { api_key, key } = await createKey('racer', { name: 'racer' });
    await verifyAccessKey(api_key);
    const before = (await listKeys('racer')).find((k) => k.id === key.id)!.last_used_at;
    clock.set(Date.now() + 61_000);
    try {
      // The recorder keeps only requests that succeeded: a write refused by its condition throws.
      const { requests } = await recordRequests(() => Promise.all(Array.from({ length: 20 }, () => verifyAccessKey(api_key))));
      expect(requests.filter((r) => r.command === 'TransactWriteItemsCommand')).toHaveLength(1);
      const after = (await listKeys('racer')).find((k) => k.id === key.id)!.last_used_at;
      expect(after).toBe(clock.nowIso());
      expect(Date.parse(after!)).toBeGreaterThan(Date.parse(before!));
      expect((await guardOf(api_key)).last_used_at).toBe(after);
    } finally {
      clock.reset();
    }
  });
});

describe('authorizer decision', () => {
  it('yields the key\'s user and scopes with empty roles', async () => {
    const { api_key, key } = await createKey('auth-user', { name: 'k', scopes: ['export:read'] });
    const { result, requests } = await recordRequests(() => authorizeRequest(authorizerEvent(`Bearer ${api_key}`)));
    expect(result).toEqual({
      isAuthorized: true,
      // The key's own id goes to the function too: a key reads its own usage only (docs/api-keys.md).
      context: { verdict: 'authenticated', user_id: 'auth-user', auth_type: 'api_key', scopes: ['export:read'], roles: [], key_id: key.id },
    });
    expect(requests.map((r) => r.command)).toEqual(['GetItemCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
    const again = await recordRequests(() => authorizeRequest(authorizerEvent(`Bearer ${api_key}`)));
    expect(again.result).toEqual(result);
    expect(again.requests.map((r) => r.command)).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    expect(again.requests[0]!.input).toMatchObject({ Key: keyRecordKeys.hashGuard(hashApiKey(api_key)), ConsistentRead: true });
  });

  it('yields a JWT\'s subject and roles with one request (the ended-session and suspension check)', async () => {
    // The roles the request may use are the claim's that the account still holds: it holds editor.
    const [account] = await putTestAccounts(1, ['editor']);
    const token = await tokenFor(account!.openid, ['editor', 'admin']);
    const { result, requests } = await recordRequests(() => authorizeRequest(authorizerEvent(`Bearer ${token}`)));
    expect(result.context).toEqual({ verdict: 'authenticated', user_id: account!.openid, auth_type: 'jwt', scopes: [], roles: ['editor'] });
    expect(requests.map((r) => r.command)).toEqual(['BatchGetItemCommand']);
  });

  it.each([undefined, 'Bearer', 'Bearer nonsense', 'Basic abc', `Bearer ak_${'x'.repeat(32)}`])('passes %j through as unauthenticated', async (header) => {
    const result = await authorizeRequest(authorizerEvent(header));
    expect(result.isAuthorized).toBe(true);
    expect(result.context).toMatchObject({ verdict: 'refused', message: expect.any(String) });
  });
});
