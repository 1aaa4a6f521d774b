import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { searchGrams, videoSearchText } from '../../lib/entities/catalog/search-index.js';
import { PUBLISH_RETRY_WINDOW_MS } from '../../lib/entities/catalog/videos.js';
import { clock } from '../../lib/platform/clock.js';
import { useAttributesAt } from '../../lib/features/keys/key-use.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { MAX_TRANSACTION_ITEMS } from '../../lib/platform/db/transact.js';
import { accountItem, accountRecord } from '../../lib/entities/accounts/accounts.js';
import { createKey, verifyAccessKey } from '../../lib/features/keys/key-service.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { expectUnavailable, snapshotDiff, storeSnapshot, sweepFaults, wipeStore, type FaultSweep, type PlannedFault } from '../support/fault-sweep.js';
import { clearFaults, failAt, failWhere, FAULT_KINDS } from '../support/faults.js';
import type { RecordedRequest } from '../support/db-requests.js';
import { getHubItem, newPhone, storedVideosOfAuthor } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { searchKeys } from '../../lib/entities/catalog/search-index.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

/**
 * The access-key service, publishing, role administration and the Lambda authorizer under DynamoDB
 * faults (see test/support/fault-sweep.ts for the plan of faults and what each case checks).
 */
const api = useTestStack();
afterEach(clearFaults);

let seq = 0;
const newUserId = () => `u_faults${++seq}`;
const apiKeysItem = async (key: { pk: string; sk: string }) => (await storeSnapshot()).get(`api_keys ${key.pk} | ${key.sk}`);
const parsed = (json: string | undefined) => (json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>));

/** An account with stored roles, written straight into the store, and its login JWT. */
async function accountWithRoles(roles: ('admin' | 'editor')[]): Promise<{ openid: string; token: string }> {
  const openid = newUserId();
  await db.send(new PutCommand({ TableName: tableNames.hub, Item: accountItem(accountRecord({ openid, phone: newPhone(), nickname: `editor ${seq}`, created_at: clock.nowIso(), roles })) }));
  return { openid, token: await tokenFor(openid, roles) };
}

describe('access keys under DynamoDB faults', () => {
  it('create: 503 with no key, no quota and no id used; the retry creates one key', async () => {
    const sweep: FaultSweep<{ user: string; token: string }> = {
      async setup() {
        const user = newUserId();
        return { user, token: await tokenFor(user) };
      },
      call: ({ token }) => api.post('/api/v1/api-keys', { token, body: { name: 'ci pipeline' } }),
      status: 201,
      async once({ user }, res) {
        const { api_key, key } = res.data as { api_key: string; key: { id: number } };
        const records = await db.send(
          new QueryCommand({ TableName: tableNames.apiKeys, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keyRecordKeys.userPartition(user) }, ConsistentRead: true }),
        );
        expect((records.Items ?? []).map((i) => i.sk).sort()).toEqual([keyRecordKeys.record(user, key.id).sk, keyRecordKeys.quota(user).sk]);
        expect(parsed(await apiKeysItem(keyRecordKeys.quota(user)))).toMatchObject({ n: 1 });
        expect(parsed(await apiKeysItem(keyRecordKeys.idCounter))).toMatchObject({ n: key.id });
        await expect(verifyAccessKey(api_key)).resolves.toEqual({ user_id: user, scopes: [], key_id: key.id });
      },
      mayChange: {
        why: 'a timed-out create may have been applied: its id stays skipped, never handed out twice',
        attributes: (item, fault) => (fault.kind === 'timeout' && item === `api_keys ${keyRecordKeys.idCounter.pk} | ${keyRecordKeys.idCounter.sk}` ? ['n'] : []),
      },
    };
    const report = await sweepFaults(sweep);
    // The authorizer's session check (one BatchGetItem), the id, the transaction.
    expect(report.requests).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']);
  });

  interface OwnedKey {
    user: string;
    token: string;
    id: number;
    apiKey: string;
  }
  const ownedKey = async (): Promise<OwnedKey> => {
    const user = newUserId();
    const { api_key, key } = await createKey(user, { name: 'to be ended' });
    return { user, token: await tokenFor(user), id: key.id, apiKey: api_key };
  };

  it('revoke: 503 with the key still valid; the retry revokes record and guard together', async () => {
    const sweep: FaultSweep<OwnedKey> = {
      setup: ownedKey,
      call: ({ token, id }) => api.post(`/api/v1/api-keys/${id}/revoke`, { token }),
      async once({ user, id, apiKey }, res) {
        expect(res.data).toEqual({ revoked: true, id });
        expect(parsed(await apiKeysItem(keyRecordKeys.record(user, id)))).toMatchObject({ is_active: false });
        await expect(verifyAccessKey(apiKey)).rejects.toMatchObject({ status: 401 });
      },
    };
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('delete: 503 with the key and its quota kept; the retry removes them once', async () => {
    const sweep: FaultSweep<OwnedKey> = {
      setup: ownedKey,
      call: ({ token, id }) => api.delete(`/api/v1/api-keys/${id}`, { token }),
      async once({ user, id, apiKey }, res) {
        expect(res.data).toEqual({ deleted: true, id });
        expect(await apiKeysItem(keyRecordKeys.record(user, id))).toBeUndefined();
        expect(parsed(await apiKeysItem(keyRecordKeys.quota(user)))).toMatchObject({ n: 0 });
        await expect(verifyAccessKey(apiKey)).rejects.toMatchObject({ status: 401 });
      },
    };
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('verify: 503 when the key\'s guard cannot be written, never 401', async () => {
    const sweep: FaultSweep<OwnedKey> = {
      setup: ownedKey,
      call: ({ apiKey }) => api.get(`/api/v1/api-keys/verify?key=${apiKey}`),
      async once({ user }, res) {
        expect(res.data).toEqual({ user_id: user, scopes: [], valid: true });
      },
      mayChange: {
        why: 'a timed-out use of the key may have been applied: the attempt counts, as a used key does',
        attributes: (item, fault) => (fault.kind === 'timeout' && item.startsWith('api_keys KEYHASH#') ? useAttributesAt(clock.now()) : []),
      },
    };
    const report = await sweepFaults(sweep);
    // The guard's one update: its state, the rate limit, usage and last_used_at (a failure is 503: no uncounted use).
    expect(report.requests).toEqual(['UpdateItemCommand']);
    expect(report.tolerated).toEqual([]);
  });
});

describe('the Lambda authorizer under DynamoDB faults', () => {
  it.each(FAULT_KINDS.filter((k) => !k.startsWith('tx-')))('a JWT whose session check fails (%s) is 503 through the authorizer, not 401 or 500', async (kind) => {
    const user = newUserId();
    const token = await tokenFor(user);
    const fault = failAt(1, kind);
    const res = await api.get('/api/v1/me', { token });
    expect(fault.fired).toBe('BatchGetItemCommand');
    expectUnavailable(res, `${kind} at the session check`);
    clearFaults();
    expect((await api.get('/api/v1/me', { token })).data).toEqual({ user_id: user, auth_type: 'jwt', scopes: [], roles: [], terms: expect.objectContaining({ accepted_version: null }) });
  });

  it('GET /me whose read of the account\'s accepted terms fails is 503, then answers on the retry', async () => {
    const user = newUserId();
    const token = await tokenFor(user);
    const fault = failAt(2, 'throughput');
    const res = await api.get('/api/v1/me', { token });
    expect(fault.fired).toBe('GetItemCommand');
    expectUnavailable(res, 'throughput at the terms read');
    clearFaults();
    expect((await api.get('/api/v1/me', { token })).status).toBe(200);
  });

  it('an access key whose guard update fails is 503 through the authorizer, not 401 or 500', async () => {
    const user = newUserId();
    const { api_key } = await createKey(user, { name: 'script' });
    const lookup = failAt(1, 'throughput');
    expectUnavailable(await api.get('/api/v1/me', { token: api_key }), 'throughput at the hash guard update');
    expect(lookup.fired).toBe('UpdateItemCommand');
    const count = failAt(1, 'throttling');
    expectUnavailable(await api.get('/api/v1/me', { token: api_key }), 'throttling at the hash guard update');
    expect(count.fired).toBe('UpdateItemCommand');
    clearFaults();
    const res = await api.get('/api/v1/me', { token: api_key });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ user_id: user, auth_type: 'api_key', scopes: [], roles: [], key_id: expect.any(Number), terms: expect.objectContaining({ accepted_version: null }) });
  });
});

describe('role administration under DynamoDB faults', () => {
  it('set roles: 503 with the roles unchanged; the retry sets them', async () => {
    const sweep: FaultSweep<{ admin: string; target: string }> = {
      async setup() {
        const target = await accountWithRoles([]);
        // An account that holds the admin role: the route checks the stored roles too.
        return { admin: (await accountWithRoles(['admin'])).token, target: target.openid };
      },
      call: ({ admin, target }) => api.post(`/api/v1/admin/users/${target}/roles`, { token: admin, body: { roles: ['editor'] } }),
      async once({ target }, res) {
        expect(res.data).toEqual({ openid: target, roles: ['editor'] });
        expect(await getHubItem(accountKeys.account(target))).toMatchObject({ roles: ['editor'] });
      },
    };
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });
});

describe('publishing under DynamoDB faults', () => {
  interface Publisher {
    openid: string;
    token: string;
    body: Record<string, unknown>;
  }
  // A short text: its search postings fit in the video's transaction (the text of postingsOverflow does not).
  const body = (extra: Record<string, unknown> = {}) => ({
    title: 'Robot arm',
    video_url: 'https://cdn.example.com/v/arm.mp4',
    cover_url: 'https://cdn.example.com/c/arm.jpg',
    duration_s: 95,
    tags: ['机器人'],
    ...extra,
  });
  /** A description with more grams than the video's transaction holds: the rest of its postings follow the commit. */
  const postingsOverflow = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + ((i * 7) % 26))}${i}`).join(' ');
  const publisher = async (extra: Record<string, unknown> = {}): Promise<Publisher> => ({ ...(await accountWithRoles(['editor'])), body: body(extra) });
  const publish = (p: Publisher) => api.post<{ video: { vid: string }; created: boolean }>('/api/v1/videos', { token: p.token, body: p.body });

  const videosOf = storedVideosOfAuthor;
  /** One video, counted once, in the `new` list and the search postings of every gram of its text. */
  async function publishedOnce(p: Publisher, vid: string) {
    const [only, ...others] = await videosOf(p.openid);
    expect(others).toEqual([]);
    expect(only?.vid).toBe(vid);
    expect(await getHubItem(accountKeys.account(p.openid))).toMatchObject({ video_count: 1 });
    const grams = searchGrams(videoSearchText(only!));
    expect(grams.length).toBeGreaterThan(0);
    const snapshot = await storeSnapshot();
    for (const gram of grams) {
      const key = searchKeys.searchPosting(gram, only!.created_at, vid);
      expect(snapshot.has(`hub ${key.pk} | ${key.sk}`), `posting of "${gram}"`).toBe(true);
    }
    expect([...snapshot.keys()].filter((k) => k.startsWith('hub GRAM#'))).toHaveLength(grams.length);
    // The tag counters are best effort: never counted twice.
    expect((parsed(snapshot.get(`hub ${videoKeys.tagStats('机器人').pk} | STATS`)) as { n?: number } | undefined)?.n ?? 0).toBeLessThanOrEqual(1);
  }
  const isKey = (request: RecordedRequest, pk: (p: string) => boolean) => pk(String((request.input.Key as { pk?: unknown } | undefined)?.pk ?? ''));

  const writesPostings = (request: RecordedRequest) => request.command === 'BatchWriteItemCommand' && JSON.stringify(request.input).includes('"GRAM#');

  it.each([
    // Session, account (roles), author's latest list, the transaction with the postings, then the
    // counters of the tag and of the catalog; the answer is made of what was read (a new video).
    ['a short text', {}, []],
    // The same with the postings that do not fit in the transaction, in BatchWrites of 25, after it.
    ['a text with more grams than the transaction holds', { description: postingsOverflow }, ['BatchWriteItemCommand', 'BatchWriteItemCommand']],
  ])('publish of %s: 503 with no video; success once committed; the retry publishes one video', async (_label, extra, batches) => {
    const sweep: FaultSweep<Publisher> = {
      setup: () => publisher(extra),
      call: publish,
      status: 201,
      async once(p, res) {
        expect(res.data).toMatchObject({ created: true, video: { title: 'Robot arm', author: { openid: p.openid } } });
        await publishedOnce(p, (res.data as { video: { vid: string } }).video.vid);
      },
      tolerates(fault: PlannedFault) {
        if (isKey(fault.request, (pk) => pk.startsWith('TAG#') || pk === 'CATALOG')) return 'tag counters are best effort (lib/entities/catalog/tag-stats.ts)';
        if (writesPostings(fault.request)) return 'the postings after the transaction are sent again (puts are idempotent)';
        return undefined;
      },
    };
    const report = await sweepFaults(sweep);
    expect(report.requests.slice(0, 4)).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
    expect(report.requests.slice(4).sort()).toEqual([...batches, 'UpdateItemCommand', 'UpdateItemCommand'].sort());
  });

  it('publish when the search postings that follow the transaction stay down: 503; the same publish again completes that video, never a second one', async () => {
    await wipeStore();
    const p = await publisher({ description: postingsOverflow });
    expect(searchGrams(videoSearchText({ title: 'Robot arm', description: postingsOverflow })).length).toBeGreaterThan(MAX_TRANSACTION_ITEMS);
    const down = failWhere('throughput', (command, input) => writesPostings({ command, input } as RecordedRequest));
    const failed = await publish(p);
    clearFaults();
    expect(down.failures).toBeGreaterThan(3);
    expectUnavailable(failed, 'postings down');
    const [committed] = await videosOf(p.openid);
    expect(committed).toBeDefined();

    const retried = await publish(p);
    expect(retried.status).toBe(201);
    expect(retried.data).toMatchObject({ created: true, video: { vid: committed!.vid } });
    await publishedOnce(p, committed!.vid);
  });

  it('publish whose answer is lost after its transaction: the retry gets the same video, with or without external_id', async () => {
    for (const extra of [{}, { external_id: 'feed-7' }]) {
      await wipeStore();
      const p = await publisher(extra);
      // Session, account, [the external_id's link], the author's latest list, then the transaction.
      const lost = failAt('external_id' in extra ? 5 : 4, 'timeout', { applied: true });
      const failed = await publish(p);
      expect(lost.fired).toBe('TransactWriteItemsCommand');
      expectUnavailable(failed, `lost answer ${JSON.stringify(extra)}`);
      clearFaults();
      const retried = await publish(p);
      expect(retried.status).toBe(201);
      // With external_id the retry is an update of that video (created: false), as any re-run.
      expect(retried.data.created).toBe(!('external_id' in extra));
      await publishedOnce(p, retried.data.video.vid);
    }
  });

  it('the same content published again after the retry window is a second video', async () => {
    const p = await publisher();
    const start = Date.now();
    clock.set(start);
    const first = await publish(p);
    clock.set(start + PUBLISH_RETRY_WINDOW_MS - 1);
    expect((await publish(p)).data.video.vid).toBe(first.data.video.vid);
    clock.set(start + PUBLISH_RETRY_WINDOW_MS);
    const second = await publish(p);
    expect(second.data).toMatchObject({ created: true });
    expect(second.data.video.vid).not.toBe(first.data.video.vid);
    expect(await videosOf(p.openid)).toHaveLength(2);
  });
});

describe('the sweep harness itself', () => {
  it('sees a half-write: a write outside the failing operation shows in the diff', async () => {
    await wipeStore();
    const before = await storeSnapshot();
    const user = await accountWithRoles([]);
    const diff = snapshotDiff(before, await storeSnapshot());
    expect(diff).toEqual([expect.stringContaining(`added hub ACCOUNT#${user.openid} | PROFILE`)]);
  });
});
