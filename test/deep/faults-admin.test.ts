import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { accountItem, accountRecord } from '../../lib/entities/accounts/accounts.js';
import { hashApiKey } from '../../lib/features/keys/key-material.js';
import { createKey, revokeKey, verifyAccessKey } from '../../lib/features/keys/key-service.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { epochDay, guardUseAttributes, MINUTE_SLOTS } from '../../lib/features/keys/key-use.js';
import { expectUnavailable, retryAfterLostAnswer, snapshotDiff, storeSnapshot, sweepFaults, wipeStore, type FaultSweep, type PlannedFault } from '../support/fault-sweep.js';
import { clearFaults, failAt, failWhere } from '../support/faults.js';
import { getHubItem, newPhone, putTestAccounts, storedAuditEvents } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { DAY_MS, HOUR_MS, pinInsideWindow } from '../support/clock-windows.js';
import { auditKeys } from '../../lib/platform/audit/trail.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

/**
 * The administration endpoints (admin key list, revoke and lookup, suspend and reinstate), the audit
 * page, a key's usage and the per-key rate limit under DynamoDB faults (see
 * test/support/fault-sweep.ts for the plan of faults and what each case checks).
 */
const api = useTestStack();
afterEach(clearFaults);

let seq = 0;
const newUserId = () => `u_fadmin${++seq}`;
const apiKeysItem = async (key: { pk: string; sk: string }) => (await storeSnapshot()).get(`api_keys ${key.pk} | ${key.sk}`);
const parsed = (json: string | undefined) => (json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>));

const eventsOf = storedAuditEvents;
const typesOf = async (openid: string) => (await eventsOf(openid)).map((e) => e.type);

interface Owner {
  openid: string;
  keys: { id: number; apiKey: string; hash: string }[];
}

/** An account written straight into the store with `keys` access keys (created as the service creates them). */
async function ownerWithKeys(keys: number): Promise<Owner> {
  const openid = newUserId();
  await db.send(new PutCommand({ TableName: tableNames.hub, Item: accountItem(accountRecord({ openid, phone: newPhone(), nickname: `owner ${seq}`, created_at: clock.nowIso() })) }));
  const created = [];
  for (let i = 0; i < keys; i++) {
    const { api_key, key } = await createKey(openid, { name: `key ${i}`, rate_limit_per_minute: 100 });
    created.push({ id: key.id, apiKey: api_key, hash: hashApiKey(api_key) });
  }
  return { openid, keys: created };
}

interface AdminCase extends Owner {
  admin: string;
  adminToken: string;
}
const adminCase = async (keys: number): Promise<AdminCase> => {
  // An account that holds the admin role: the admin routes check the stored roles too.
  const [admin] = await putTestAccounts(1, ['admin']);
  return { ...(await ownerWithKeys(keys)), admin: admin!.openid, adminToken: admin!.token };
};

const isAuditPut = (fault: PlannedFault) => fault.request.command === 'PutItemCommand' && String((fault.request.input.Item as { sk?: unknown } | undefined)?.sk).startsWith(auditKeys.auditPrefix);
const AUDIT_PUT_RETRIED = 'audit() sends the same event item again on a transient failure (retryTransient): stored once';

describe('administration of access keys under DynamoDB faults', () => {
  it.each([
    // Session, the account's key records, their guards' last use (lib/features/keys/key-records.ts withLastUse), the look's event.
    ['an account with keys', 2, ['BatchGetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'PutItemCommand']],
    // With no key the account is read (404 when it does not exist either) before the event.
    ['an account without keys', 0, ['BatchGetItemCommand', 'QueryCommand', 'GetItemCommand', 'PutItemCommand']],
  ])('list the keys of %s: 503 with nothing stored; its event stored once', async (_label, keys, requests) => {
    const sweep: FaultSweep<AdminCase> = {
      setup: () => adminCase(keys),
      call: ({ openid, adminToken }) => api.get(`/api/v1/admin/users/${openid}/api-keys`, { token: adminToken }),
      async once({ openid, admin, keys: created }, res) {
        expect((res.data as { id: number }[]).map((k) => k.id)).toEqual(created.map((k) => k.id).reverse());
        const listed = (await eventsOf(openid)).filter((e) => e.type === 'admin.keys_listed');
        expect(listed).toEqual([expect.objectContaining({ actor: admin, details: { via: 'jwt' } })]);
        expect(await typesOf(openid)).toHaveLength(created.length + 1);
      },
      tolerates: (fault) => (isAuditPut(fault) ? AUDIT_PUT_RETRIED : undefined),
    };
    const report = await sweepFaults(sweep);
    expect(report.requests).toEqual(requests);
    // The event's Put: throughput, throttling (it is the last request) and timeout, each retried.
    expect(report.tolerated).toHaveLength(3);
  });

  it('list when the event write stays down: 503 with no list shown and nothing stored; the retry stores one event', async () => {
    await wipeStore();
    const c = await adminCase(1);
    const before = await storeSnapshot();
    const down = failWhere('throughput', (command) => command === 'PutItemCommand');
    const res = await api.get(`/api/v1/admin/users/${c.openid}/api-keys`, { token: c.adminToken });
    clearFaults();
    // audit() tried its three times: a look is answered only once it is recorded.
    expect(down.failures).toBe(3);
    expectUnavailable(res, 'event write down');
    expect(snapshotDiff(before, await storeSnapshot())).toEqual([]);
    const retried = await api.get(`/api/v1/admin/users/${c.openid}/api-keys`, { token: c.adminToken });
    expect(retried.status).toBe(200);
    expect(await typesOf(c.openid)).toEqual(['key.created', 'admin.keys_listed']);
  });

  const adminRevoke: FaultSweep<AdminCase> = {
    setup: () => adminCase(1),
    call: ({ keys, adminToken }) => api.post(`/api/v1/admin/api-keys/${keys[0]!.id}/revoke`, { token: adminToken }),
    async once({ openid, admin, keys: [key] }, res) {
      expect(res.data).toEqual({ revoked: true, id: key!.id, user_id: openid });
      expect(parsed(await apiKeysItem(keyRecordKeys.record(openid, key!.id)))).toMatchObject({ is_active: false });
      expect(parsed(await apiKeysItem(keyRecordKeys.hashGuard(key!.hash)))).toMatchObject({ is_active: false });
      await expect(verifyAccessKey(key!.apiKey)).rejects.toMatchObject({ status: 401 });
      const revoked = (await eventsOf(openid)).filter((e) => e.type === 'key.revoked');
      expect(revoked).toEqual([expect.objectContaining({ actor: admin, details: { via: 'jwt', key_id: key!.id, key_name: 'key 0' } })]);
    },
  };

  it('revoke any key: 503 with the key still valid; the retry revokes record and guard with one event', async () => {
    // Session, the key_id index (the owner), the record, then record, guard and event in one transaction.
    expect((await sweepFaults(adminRevoke)).requests).toEqual(['BatchGetItemCommand', 'QueryCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('revoke whose answer is lost after its transaction: the retry succeeds without a second event', async () => {
    await retryAfterLostAnswer(adminRevoke);
  });

  it('revoke a key already revoked: 503 with updated_at kept; the retry succeeds without an event', async () => {
    const report = await sweepFaults({
      ...adminRevoke,
      async setup() {
        const c = await adminCase(1);
        await revokeKey(c.openid, c.keys[0]!.id);
        return c;
      },
      async once({ openid, keys: [key] }, res) {
        expect(res.data).toEqual({ revoked: true, id: key!.id, user_id: openid });
        await expect(verifyAccessKey(key!.apiKey)).rejects.toMatchObject({ status: 401 });
        // The owner's revoke of the setup only.
        expect(await typesOf(openid)).toEqual(['key.created', 'key.revoked']);
      },
    });
    expect(report.requests).toEqual(['BatchGetItemCommand', 'QueryCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  const lookup = (revoke: boolean): FaultSweep<AdminCase> => ({
    setup: () => adminCase(1),
    call: ({ keys, adminToken }) => api.post('/api/v1/admin/api-keys/lookup', { token: adminToken, body: { key: keys[0]!.apiKey, revoke } }),
    async once({ openid, admin, keys: [key] }, res) {
      expect(res.data).toMatchObject({ user_id: openid, key: { id: key!.id, is_active: !revoke, status: revoke ? 'revoked' : 'valid' } });
      const events = await eventsOf(openid);
      expect(events.filter((e) => e.type === 'admin.key_looked_up')).toEqual([expect.objectContaining({ actor: admin, details: { via: 'jwt', key_id: key!.id, key_name: 'key 0' } })]);
      expect(events.filter((e) => e.type === 'key.revoked')).toHaveLength(revoke ? 1 : 0);
      if (revoke) await expect(verifyAccessKey(key!.apiKey)).rejects.toMatchObject({ status: 401 });
      else await expect(verifyAccessKey(key!.apiKey)).resolves.toMatchObject({ user_id: openid });
    },
    tolerates: (fault) => (isAuditPut(fault) ? AUDIT_PUT_RETRIED : undefined),
  });

  it('look up a leaked key: 503 with nothing stored; its event stored once', async () => {
    const report = await sweepFaults(lookup(false));
    // Session, the hash guard, the record, the look's event.
    expect(report.requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'PutItemCommand']);
    expect(report.tolerated).toHaveLength(3);
  });

  it('look up and revoke a leaked key: 503 with the key valid and no event; the retry stores the look and the revoke once each', async () => {
    const report = await sweepFaults(lookup(true));
    // Session, the hash guard, the record, then record, guard and both events in one transaction.
    expect(report.requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
    // Only the conflict, which lib/platform/db/transact.ts retries: the look's event no longer precedes the revoke on its own.
    expect(report.tolerated).toEqual([expect.stringContaining('tx-conflict')]);
  });

  it('look up and revoke a key already revoked: 503 with no event and updated_at kept; the retry stores the look once', async () => {
    const sweep = lookup(true);
    const report = await sweepFaults({
      ...sweep,
      async setup() {
        const c = await adminCase(1);
        await revokeKey(c.openid, c.keys[0]!.id);
        return c;
      },
      async once(c, res) {
        expect(res.data).toMatchObject({ user_id: c.openid, key: { id: c.keys[0]!.id, status: 'revoked' } });
        // The owner's revoke in the setup, then the administrator's look: no second revoke.
        expect((await eventsOf(c.openid)).map((e) => e.type)).toEqual(['key.created', 'key.revoked', 'admin.key_looked_up']);
      },
    });
    expect(report.requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('look up and revoke whose answer is lost: the retry is a second look (recorded), never a second revoke', async () => {
    await wipeStore();
    const c = await adminCase(1);
    const lost = failAt(4, 'timeout', { applied: true });
    const res = await lookup(true).call(c);
    clearFaults();
    expect(lost.fired).toBe('TransactWriteItemsCommand');
    expectUnavailable(res, 'answer of the revoking lookup lost');
    const retried = await lookup(true).call(c);
    expect(retried.status).toBe(200);
    expect(retried.data).toMatchObject({ user_id: c.openid, key: { id: c.keys[0]!.id, status: 'revoked' } });
    // The first look did reach the store with its revoke; the retry, which finds the key revoked,
    // records its own look only.
    expect((await typesOf(c.openid)).sort()).toEqual(['admin.key_looked_up', 'admin.key_looked_up', 'key.created', 'key.revoked']);
  });
});

describe('suspension under DynamoDB faults', () => {
  const guardOf = async (hash: string) => parsed(await apiKeysItem(keyRecordKeys.hashGuard(hash)));

  const suspend: FaultSweep<AdminCase> = {
    setup: () => adminCase(2),
    call: ({ openid, adminToken }) => api.post(`/api/v1/admin/users/${openid}/suspend`, { token: adminToken }),
    async once({ openid, admin, keys }, res) {
      expect(res.data).toEqual({ openid, suspended: true, suspended_at: expect.any(String), keys: 2 });
      expect(await getHubItem(accountKeys.account(openid))).toMatchObject({ suspended_at: (res.data as { suspended_at: string }).suspended_at, suspended_by: admin });
      for (const key of keys) {
        expect(await guardOf(key.hash)).toMatchObject({ suspended: true });
        await expect(verifyAccessKey(key.apiKey)).rejects.toMatchObject({ status: 401 });
      }
      expect((await eventsOf(openid)).filter((e) => e.type === 'account.suspended')).toEqual([expect.objectContaining({ actor: admin })]);
    },
  };

  it('suspend: 503 with the account and its keys untouched; the retry suspends them with one event', async () => {
    // Session, the account's keys, then account, event, key count check and both guards in one transaction.
    expect((await sweepFaults(suspend)).requests).toEqual(['BatchGetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);
  });

  it('suspend whose answer is lost after its transaction: the retry answers the suspension without a second event', async () => {
    await retryAfterLostAnswer(suspend);
  });

  const reinstate: FaultSweep<AdminCase> = {
    async setup() {
      const c = await adminCase(2);
      expect((await api.post(`/api/v1/admin/users/${c.openid}/suspend`, { token: c.adminToken })).status).toBe(200);
      return c;
    },
    call: ({ openid, adminToken }) => api.post(`/api/v1/admin/users/${openid}/reinstate`, { token: adminToken }),
    async once({ openid, keys }, res) {
      expect(res.data).toEqual({ openid, suspended: false, suspended_at: null, keys: 2 });
      const account = await getHubItem(accountKeys.account(openid));
      expect(account).toBeDefined();
      expect(account).not.toHaveProperty('suspended_at');
      for (const key of keys) {
        expect(await guardOf(key.hash)).not.toHaveProperty('suspended');
        await expect(verifyAccessKey(key.apiKey)).resolves.toMatchObject({ user_id: openid });
      }
      const types = await typesOf(openid);
      expect(types.filter((t) => t === 'account.suspended')).toHaveLength(1);
      expect(types.filter((t) => t === 'account.reinstated')).toHaveLength(1);
    },
  };

  it('suspend an account with more keys than one transaction holds: a guard write failing after the account is 503; the retry marks every guard, one event', async () => {
    await wipeStore();
    const c = await adminCase(98);
    const call = () => suspend.call(c);
    // Session, the keys (98: too many for the transaction), account and event, the keys again, then
    // one UpdateItem per guard, ten at a time: the 50th guard fails.
    const fault = failAt(4 + 50, 'throughput');
    const res = await call();
    clearFaults();
    expect(fault.fired).toBe('UpdateItemCommand');
    expectUnavailable(res, 'throughput at a guard of the fallback');
    // The fallback's documented order (lib/features/admin/suspension.ts): the account and its event first,
    // then the markers; a 503 there leaves some keys working until the retry completes them.
    expect(await getHubItem(accountKeys.account(c.openid))).toMatchObject({ suspended_by: c.admin });
    const marked = async () => (await Promise.all(c.keys.map((k) => guardOf(k.hash)))).filter((g) => g?.suspended === true).length;
    expect(await marked()).toBeLessThan(98);
    const retried = await call();
    expect(retried.status).toBe(200);
    expect(retried.data).toEqual({ openid: c.openid, suspended: true, suspended_at: expect.any(String), keys: 98 });
    expect(await marked()).toBe(98);
    expect((await typesOf(c.openid)).filter((t) => t === 'account.suspended')).toEqual(['account.suspended']);
  });

  it('reinstate: 503 with the account and its keys still suspended; the retry reinstates them with one event', async () => {
    expect((await sweepFaults(reinstate)).requests).toEqual(['BatchGetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);
  });

  it('reinstate whose answer is lost after its transaction: the retry answers the reinstatement without a second event', async () => {
    await retryAfterLostAnswer(reinstate);
  });
});

describe('reading the audit trail and a key usage under DynamoDB faults', () => {
  it('the audit page: 503 and nothing written; the retry answers the page', async () => {
    const sweep: FaultSweep<Owner & { token: string }> = {
      async setup() {
        const owner = await ownerWithKeys(2);
        return { ...owner, token: await tokenFor(owner.openid) };
      },
      call: ({ token }) => api.get('/api/v1/audit?limit=1', { token }),
      async once({ keys }, res) {
        const page = res.data as { items: { type: string; details: { key_id?: number } }[]; next_cursor: string | null };
        expect(page.items).toEqual([expect.objectContaining({ type: 'key.created', details: expect.objectContaining({ key_id: keys[1]!.id }) })]);
        expect(page.next_cursor).toEqual(expect.any(String));
      },
    };
    // Session, one Query of the account's events.
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'QueryCommand']);
  });

  it("a key's usage: 503 and nothing written; the retry answers the days", async () => {
    const sweep: FaultSweep<Owner & { token: string }> = {
      async setup() {
        // Noon of a UTC day ahead: the key's use and the usage that counts it are of one day.
        pinInsideWindow(DAY_MS, 12 * HOUR_MS);
        const owner = await ownerWithKeys(1);
        await verifyAccessKey(owner.keys[0]!.apiKey);
        return { ...owner, token: await tokenFor(owner.openid) };
      },
      call: ({ token, keys }) => api.get(`/api/v1/api-keys/${keys[0]!.id}/usage`, { token }),
      async once(_c, res) {
        const { days } = res.data as { days: { date: string; requests: number }[] };
        expect(days).toHaveLength(30);
        expect(days.at(-1)).toEqual({ date: clock.nowIso().slice(0, 10), requests: 1 });
        expect(days.reduce((s, d) => s + d.requests, 0)).toBe(1);
      },
    };
    // Session, the key record (the caller's), then its guard's day counters and one Query of the
    // minute counters written before the guard counted, in parallel.
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'QueryCommand']);
  });

  it("the account's data export: 503 and nothing written; the retry answers the first page", async () => {
    const sweep: FaultSweep<Owner & { token: string }> = {
      async setup() {
        const owner = await ownerWithKeys(2);
        await verifyAccessKey(owner.keys[0]!.apiKey);
        return { ...owner, token: await tokenFor(owner.openid) };
      },
      call: ({ token }) => api.get('/api/v1/me/data', { token }),
      async once({ openid, keys }, res) {
        const page = res.data as { account: { openid: string }; records: Record<string, unknown>[]; next_cursor: string | null };
        expect(page.account.openid).toBe(openid);
        expect(page.records).toEqual([
          expect.objectContaining({ type: 'key', id: keys[0]!.id, last_used_at: expect.any(String) }),
          expect.objectContaining({ type: 'key', id: keys[1]!.id, last_used_at: null }),
        ]);
        expect(page.next_cursor).toEqual(expect.any(String));
      },
    };
    // Session, the account, the keys and their guards' last_used_at: the first key's usage (up to 5
    // requests) would not fit in the page's 6 (docs/protected-api.md, "Download my data").
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']);
  });
});

describe('the per-key rate limit under DynamoDB faults', () => {
  /** 10 s into a UTC minute: every case of a sweep counts in the same minute. */
  const MINUTE_START = Date.UTC(2026, 10, 23, 10, 0, 0);
  const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  const slot = () => Math.floor(clock.now() / 60_000) % MINUTE_SLOTS;
  /** The guard's count of the current minute (key-use.ts). */
  const countOf = async (hash: string) => parsed(await apiKeysItem(keyRecordKeys.hashGuard(hash)))?.[guardUseAttributes.count(slot())];
  const useMayHaveCounted = {
    why: 'a timed-out use of the key may have been applied: the attempt counts, as a used key does',
    attributes: (item: string, fault: PlannedFault) =>
      fault.kind === 'timeout' && item.startsWith('api_keys KEYHASH#')
        ? [guardUseAttributes.count(slot()), guardUseAttributes.firstUse(slot()), guardUseAttributes.window, guardUseAttributes.day(epochDay(clock.now())), 'last_used_at']
        : [],
  };

  it('a key-authenticated call: 503 when the guard cannot be written, never 401 or 500; the retry counts once', async () => {
    clock.set(MINUTE_START + 10_000);
    const sweep: FaultSweep<Owner> = {
      setup: () => ownerWithKeys(1),
      call: ({ keys }) => api.get('/api/v1/me', { token: keys[0]!.apiKey }),
      async once({ openid, keys: [key] }, res) {
        expect(res.data).toEqual({ user_id: openid, auth_type: 'api_key', scopes: [], roles: [], key_id: expect.any(Number), terms: expect.objectContaining({ accepted_version: null }) });
        expect(await countOf(key!.hash)).toBe(1);
      },
      mayChange: useMayHaveCounted,
      // The authorizer's request: the function's own read after it (the account's terms) fails a
      // request the key has already been counted for, as any failing function does.
      within: (request) => request.input && JSON.stringify(request.input).includes(tableNames.apiKeys),
    };
    const report = await sweepFaults(sweep);
    // The guard's one update (a new key's last_used_at included); then the function's read of the
    // account's accepted terms (no fault planned there).
    expect(report.requests).toEqual(['UpdateItemCommand', 'GetItemCommand']);
    expect(report.tolerated).toEqual([]);
  });

  interface Limited extends Owner {
    id: number;
  }
  /** A key with a limit of 1 that was used once this minute: its next use is the minute's first refusal. */
  const atItsLimit = async (): Promise<Limited> => {
    const owner = await ownerWithKeys(0);
    const { api_key, key } = await createKey(owner.openid, { name: 'limited', rate_limit_per_minute: 1 });
    await verifyAccessKey(api_key);
    return { ...owner, keys: [{ id: key.id, apiKey: api_key, hash: hashApiKey(api_key) }], id: key.id };
  };
  const rateLimitedEvents = async (openid: string) => (await eventsOf(openid)).filter((e) => e.type === 'key.rate_limited');
  const markOf = async (c: Limited) => parsed(await apiKeysItem(keyRecordKeys.hashGuard(c.keys[0]!.hash)))?.[guardUseAttributes.limitAudited];

  const firstRefusal: FaultSweep<Limited> = {
    setup: atItsLimit,
    call: ({ keys }) => api.get('/api/v1/me', { token: keys[0]!.apiKey }),
    status: 429,
    async once(c, res) {
      expect(res.body).toEqual({ code: 'RATE_LIMITED', error: expect.stringContaining('1 requests per minute') });
      expect(res.headers.get('retry-after')).toBe('50');
      expect(await rateLimitedEvents(c.openid)).toEqual([expect.objectContaining({ actor: c.openid, details: { via: 'api_key', key_id: c.id } })]);
      expect(await markOf(c)).toBe(minute(clock.now()));
      // The admitted use only: a refusal writes nothing to the count.
      expect(await countOf(c.keys[0]!.hash)).toBe(1);
    },
    tolerates: (fault) =>
      fault.request.command === 'TransactWriteItemsCommand' ? 'the event and the guard\'s mark are sent again on a transient failure: stored once (the mark\'s condition)' : undefined,
  };

  it("a key's first refusal in a minute: 503 when the guard fails; the event write is retried; the retry stores one event", async () => {
    clock.set(MINUTE_START + 10_000);
    const report = await sweepFaults(firstRefusal);
    // The guard's update (which refuses, answering the old item), the event with the guard's mark.
    expect(report.requests).toEqual(['UpdateItemCommand', 'TransactWriteItemsCommand']);
    expect(report.tolerated.length).toBeGreaterThan(0);
  });

  /** Refused twice more in the minute: 429s, one event still, nothing written. */
  async function refusedWithOneEvent(c: Limited) {
    for (let i = 0; i < 2; i++) {
      const before = await storeSnapshot();
      const again = await firstRefusal.call(c);
      expect(again.status).toBe(429);
      expect(await rateLimitedEvents(c.openid)).toHaveLength(1);
      expect(snapshotDiff(before, await storeSnapshot())).toEqual([]);
    }
  }

  it("a key's first refusal whose event write stays down: 503 with nothing written; the retry is the first refusal again and stores one event", async () => {
    clock.set(MINUTE_START + 10_000);
    await wipeStore();
    const c = await atItsLimit();
    const before = await storeSnapshot();
    const down = failWhere('throughput', (command, input) => command === 'TransactWriteItemsCommand' && JSON.stringify(input).includes(guardUseAttributes.limitAudited));
    const res = await firstRefusal.call(c);
    clearFaults();
    expect(down.failures).toBe(3);
    expectUnavailable(res, 'rate-limit event write down');
    expect(snapshotDiff(before, await storeSnapshot())).toEqual([]);
    await firstRefusal.once(c, await firstRefusal.call(c));
    await refusedWithOneEvent(c);
  });

  it("a key's first refusal whose event write was applied but its answer lost: sent again, the guard's mark stores it once", async () => {
    clock.set(MINUTE_START + 10_000);
    await wipeStore();
    const c = await atItsLimit();
    const lost = failAt(2, 'timeout', { applied: true });
    const res = await firstRefusal.call(c);
    clearFaults();
    expect(lost.fired).toBe('TransactWriteItemsCommand');
    await firstRefusal.once(c, res);
    await refusedWithOneEvent(c);
  });
});

describe('sign-out under DynamoDB faults', () => {
  it('503 with the session still valid and no event; the retry ends it with one event', async () => {
    let n = 0;
    const sweep: FaultSweep<{ openid: string; token: string }> = {
      async setup() {
        const openid = `u_signout${++n}`;
        return { openid, token: await tokenFor(openid) };
      },
      call: ({ token }) => api.post('/api/v1/logout', { token }),
      async once({ openid, token }, res) {
        expect(res.data).toEqual({ ended: true });
        expect((await api.get('/api/v1/me', { token })).status).toBe(401);
        expect((await eventsOf(openid)).filter((e) => e.type === 'session.ended')).toEqual([expect.objectContaining({ actor: openid, details: expect.objectContaining({ via: 'jwt' }) })]);
      },
    };
    // The authorizer's session check, then the ended marker with its event in one transaction.
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
  });
});
