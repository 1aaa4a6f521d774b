import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { clock } from '../../lib/platform/clock.js';
import { createKey, deleteKey, keyUsage, listKeys, revokeKey, verifyAccessKey } from '../../lib/features/keys/key-service.js';
import { hashApiKey } from '../../lib/features/keys/key-material.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { MINUTE_SLOTS } from '../../lib/features/keys/key-use.js';
import { minuteCounterKeys } from '../../lib/features/keys/minute-counters.js';
import { markKeysSuspended } from '../../lib/features/keys/suspension-marks.js';
import { authorizeRequest } from '../../lib/features/auth/authorizer.js';
import { createTestTables } from '../support/stack.js';
import { recordRequests, type RecordedRequest } from '../support/db-requests.js';
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
    expect(requests.map((r) => r.command)).toEqual(['UpdateItemCommand']);
    expect(requests.some((r) => 'IndexName' in r.input)).toBe(false);
  });
});

const guardOf = async (apiKey: string) =>
  (await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.hashGuard(hashApiKey(apiKey)), ConsistentRead: true }))).Item!;

/** What one verification sent to DynamoDB, refused writes included: every request counts. */
const verification = (apiKey: string) => recordRequests(() => verifyAccessKey(apiKey).catch((e: unknown) => e), { includeFailed: true });
const oneGuardUpdate = (requests: RecordedRequest[], apiKey: string) => {
  expect(requests.map((r) => r.command)).toEqual(['UpdateItemCommand']);
  expect(requests[0]!.input).toMatchObject({ Key: keyRecordKeys.hashGuard(hashApiKey(apiKey)), ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
};

describe('verification cost: one conditional UpdateItem of the hash guard', () => {
  it('in the usual case and when last_used_at is due, which it records once a minute on the guard (the list shows it)', async () => {
    clock.set(Date.UTC(2026, 10, 23, 10, 0, 10));
    try {
      const { api_key } = await createKey('counted', { name: 'counted' });
      // Never used: due at once.
      const first = await verification(api_key);
      expect(first.result).toMatchObject({ user_id: 'counted' });
      oneGuardUpdate(first.requests, api_key);
      expect((await guardOf(api_key)).last_used_at).toBe(clock.nowIso());
      const firstUse = clock.nowIso();
      clock.advance(49_999);
      const usual = await verification(api_key);
      expect(usual.result).toMatchObject({ user_id: 'counted' });
      oneGuardUpdate(usual.requests, api_key);
      // Same minute: last_used_at stays the minute's first use.
      expect((await guardOf(api_key)).last_used_at).toBe(firstUse);
      clock.advance(1);
      const due = await verification(api_key);
      oneGuardUpdate(due.requests, api_key);
      expect((await guardOf(api_key)).last_used_at).toBe(clock.nowIso());
      expect((await listKeys('counted'))[0]!.last_used_at).toBe(clock.nowIso());
    } finally {
      clock.reset();
    }
  });

  it('refuses an unknown key with 1 request and a malformed one with none', async () => {
    const unknown = await verification(`ak_${'Z'.repeat(32)}`);
    expect(unknown.result).toMatchObject({ status: 401 });
    expect(unknown.requests.map((r) => r.command)).toEqual(['UpdateItemCommand']);
    const malformed = await verification('ak_short');
    expect(malformed.requests).toHaveLength(0);
  });

  it('refuses a key on the request right after its revoke or delete, with 1 request that writes nothing', async () => {
    const revoked = await createKey('ender', { name: 'revoked' });
    const deleted = await createKey('ender', { name: 'deleted' });
    await verifyAccessKey(revoked.api_key);
    await verifyAccessKey(deleted.api_key);
    await revokeKey('ender', revoked.key.id);
    await deleteKey('ender', deleted.key.id);
    const before = await guardOf(revoked.api_key);
    for (const apiKey of [revoked.api_key, deleted.api_key]) {
      const { result, requests } = await verification(apiKey);
      expect(result).toMatchObject({ status: 401, code: 'AUTH_ERROR' });
      oneGuardUpdate(requests, apiKey);
      expect(requests[0]!.failed).toBe(true);
    }
    expect(await guardOf(revoked.api_key)).toEqual(before);
  });

  it('refuses an expired key with 1 request', async () => {
    const { api_key } = await createKey('expiring', { name: 'e', expires_at: new Date(clock.now() + 60_000).toISOString() });
    await verifyAccessKey(api_key);
    clock.advance(60_000);
    try {
      const { result, requests } = await verification(api_key);
      expect(result).toMatchObject({ status: 401, reason: 'expired_key' });
      oneGuardUpdate(requests, api_key);
    } finally {
      clock.reset();
    }
  });

  it('refuses a key past its limit with 1 request once the minute\'s event is stored (the first refusal adds its one transaction)', async () => {
    clock.set(Date.UTC(2026, 10, 23, 10, 0, 10));
    try {
      const { api_key } = await createKey('limited', { name: 'l', rate_limit_per_minute: 2 });
      await verifyAccessKey(api_key);
      await verifyAccessKey(api_key);
      const first = await verification(api_key);
      expect(first.result).toMatchObject({ status: 429 });
      expect(first.requests.map((r) => r.command)).toEqual(['UpdateItemCommand', 'TransactWriteItemsCommand']);
      const limited = await verification(api_key);
      expect(limited.result).toMatchObject({ status: 429 });
      oneGuardUpdate(limited.requests, api_key);
    } finally {
      clock.reset();
    }
  });

  it('starts a minute slot left from a use a multiple of 31 minutes earlier afresh (its one extra request)', async () => {
    clock.set(Date.UTC(2026, 10, 23, 10, 0, 10));
    try {
      const { api_key } = await createKey('cyclic', { name: 'c', rate_limit_per_minute: 1 });
      await verifyAccessKey(api_key);
      clock.advance(MINUTE_SLOTS * 60_000);
      const again = await verification(api_key);
      expect(again.result).toMatchObject({ user_id: 'cyclic' });
      expect(again.requests.map((r) => r.command)).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
      // The slot counts this minute now: the limit of 1 holds.
      expect(await verification(api_key).then((v) => v.result)).toMatchObject({ status: 429 });
    } finally {
      clock.reset();
    }
  });

  it('refuses a suspended owner\'s key with 1 request from the next request on, and uses it again once reinstated', async () => {
    const { api_key } = await createKey('suspendee', { name: 's' });
    await verifyAccessKey(api_key);
    await markKeysSuspended('suspendee', true);
    const suspended = await verification(api_key);
    expect(suspended.result).toMatchObject({ status: 401, reason: 'account_suspended' });
    oneGuardUpdate(suspended.requests, api_key);
    await markKeysSuspended('suspendee', false);
    const reinstated = await verification(api_key);
    expect(reinstated.result).toMatchObject({ user_id: 'suspendee' });
    oneGuardUpdate(reinstated.requests, api_key);
  });

  it('admits exactly N of N + 1 parallel verifications with limit N, each one request (the refusal\'s event aside)', async () => {
    clock.set(Date.UTC(2026, 10, 23, 10, 0, 10));
    try {
      const { api_key } = await createKey('parallel', { name: 'p', rate_limit_per_minute: 8 });
      const { result, requests } = await recordRequests(() => Promise.all(Array.from({ length: 9 }, () => verifyAccessKey(api_key).then(() => 200, (e: { status: number }) => e.status))), { includeFailed: true });
      expect(result.filter((s) => s === 200)).toHaveLength(8);
      expect(result.filter((s) => s === 429)).toHaveLength(1);
      expect(requests.filter((r) => r.command === 'UpdateItemCommand')).toHaveLength(9);
      expect(requests.filter((r) => r.command !== 'UpdateItemCommand').map((r) => r.command)).toEqual(['TransactWriteItemsCommand']);
    } finally {
      clock.reset();
    }
  });

  it('records last_used_at on the guard once a minute when 20 verifications race, and admits them all with 20 requests', async () => {
    const { api_key, key } = await createKey('racer', { name: 'racer' });
    await verifyAccessKey(api_key);
    const before = (await listKeys('racer')).find((k) => k.id === key.id)!.last_used_at;
    clock.set(Date.now() + 61_000);
    try {
      const { requests } = await recordRequests(() => Promise.all(Array.from({ length: 20 }, () => verifyAccessKey(api_key))), { includeFailed: true });
      expect(requests.map((r) => r.command)).toEqual(Array(20).fill('UpdateItemCommand'));
      const after = (await listKeys('racer')).find((k) => k.id === key.id)!.last_used_at;
      expect(after).toBe(clock.nowIso());
      expect(Date.parse(after!)).toBeGreaterThan(Date.parse(before!));
      expect((await guardOf(api_key)).last_used_at).toBe(after);
    } finally {
      clock.reset();
    }
  });
});

describe('keys stored before key use moved onto the guard', () => {
  it('keep verifying, and their usage sums the old minute counters and the guard\'s day counters', async () => {
    clock.set(Date.UTC(2026, 10, 23, 10, 0, 10));
    try {
      const { api_key, key } = await createKey('legacy', { name: 'old' });
      // As the previous version left them: a last_used_at on record and guard, two minute counters of
      // today (one limited: usage counts min(n, lim)), none of the guard's use attributes.
      await db.send(new UpdateCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.record('legacy', key.id), UpdateExpression: 'SET last_used_at = :t', ExpressionAttributeValues: { ':t': '2026-11-23T09:00:00.000Z' } }));
      await db.send(new UpdateCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.hashGuard(hashApiKey(api_key)), UpdateExpression: 'SET last_used_at = :t', ExpressionAttributeValues: { ':t': '2026-11-23T09:00:00.000Z' } }));
      for (const [minute, n] of [['2026-11-23T09:00', 3], ['2026-11-23T09:01', 601]] as const) {
        await db.send(new PutCommand({ TableName: tableNames.apiKeys, Item: { ...minuteCounterKeys.usageMinute(key.id, minute), n, lim: 600 } }));
      }
      expect((await listKeys('legacy'))[0]!.last_used_at).toBe('2026-11-23T09:00:00.000Z');
      const { result, requests } = await recordRequests(() => verifyAccessKey(api_key));
      expect(result).toEqual({ user_id: 'legacy', scopes: [], key_id: key.id });
      expect(requests.map((r) => r.command)).toEqual(['UpdateItemCommand']);
      await verifyAccessKey(api_key);
      expect((await listKeys('legacy'))[0]!.last_used_at).toBe(clock.nowIso());
      const usage = await keyUsage('legacy', key.id);
      expect(usage.days.at(-1)).toEqual({ date: '2026-11-23', requests: 3 + 600 + 2 });
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
    expect(requests.map((r) => r.command)).toEqual(['UpdateItemCommand']);
    const again = await recordRequests(() => authorizeRequest(authorizerEvent(`Bearer ${api_key}`)));
    expect(again.result).toEqual(result);
    expect(again.requests.map((r) => r.command)).toEqual(['UpdateItemCommand']);
    expect(again.requests[0]!.input).toMatchObject({ Key: keyRecordKeys.hashGuard(hashApiKey(api_key)) });
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
