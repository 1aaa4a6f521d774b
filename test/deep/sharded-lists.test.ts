import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoItem, type VideoItem } from '../../lib/entities/catalog/video-items.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { SHARDS } from '../../lib/platform/db/keys.js';
import { commentItem, type StoredComment } from '../../lib/entities/comments/comments.js';
import { MAX_REQUESTS } from '../../lib/features/recommend/feed-context.js';
import { exploreStep } from '../../lib/features/recommend/sources.js';
import { dropSharedHeads } from '../../lib/entities/catalog/shared-heads.js';
import { recordRequests, type RecordedRequest } from '../support/db-requests.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { hub, putTestAccounts, signUp, type SignedUp, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { commentKeys, commentPartitions } from '../../lib/entities/comments/comments.js';
import { videoKeys, videoPartitions } from '../../lib/entities/catalog/video-items.js';
import { accountPartitions } from '../../lib/entities/accounts/accounts.js';

/**
 * The write-sharded index partitions (VIDEOS#k, TRENDING#k, ACCOUNTS#k, COMMENTS#k): the new and hot
 * walks and the admin exports page through every item exactly once, in the list's order, reading
 * every shard on each page within their request budgets.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let viewer: TestAccount;
let admin: SignedUp;

const VIDEOS = 45;
const ACCOUNTS = 14;
const COMMENTS = 23;
/** Trend scores with ties, within and across shards. */
const trendOf = (i: number) => 1 + (i % 4);
const base = Date.parse('2026-05-01T00:00:00.000Z');
const at = (i: number) => new Date(base + i * 60_000).toISOString();

function video(i: number): VideoItem {
  return {
    vid: `shardtest${String(i).padStart(3, '0')}`,
    title: `Video ${i}`,
    description: '',
    cover_url: 'https://cdn.example.com/c.jpg',
    video_url: 'https://cdn.example.com/v.mp4',
    duration_s: 30,
    tags: ['expo'],
    author_openid: 'u_shard_author',
    created_at: at(i),
    updated_at: at(i),
    like_count: 0,
    comment_count: 0,
    share_count: 0,
    gsi3sk: trendOf(i),
  };
}
const videos = Array.from({ length: VIDEOS }, (_, i) => video(i));

function comment(i: number): StoredComment {
  return { cid: `c_shard${String(i).padStart(3, '0')}`, vid: videos[0]!.vid, seq: i + 1, openid: 'u_shard_author', nickname: 'author', content: `comment ${i}`, created_at: at(i) };
}
const comments = Array.from({ length: COMMENTS }, (_, i) => comment(i));

async function batchPut(items: Record<string, unknown>[]) {
  for (let i = 0; i < items.length; i += 25) {
    const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableNames.hub]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    expect(out.UnprocessedItems?.[tableNames.hub] ?? []).toEqual([]);
  }
}

beforeAll(async () => {
  stack = await startTestStack({ env: { ENFORCE_KEY_SCOPES: 'false' } });
  api = apiClient(stack.url);
  await batchPut([...videos.map(videoItem), ...comments.map(commentItem)]);
  viewer = (await putTestAccounts(1))[0]!;
  await putTestAccounts(ACCOUNTS - 1);
  admin = await signUp(api, ADMIN_PHONE);
});
afterAll(async () => stack?.stop());

/** The Queries of an index (the caller's own state and call records are a Query of the table, not counted here). */
const queriesOf = (requests: RecordedRequest[]) => requests.filter((r) => r.command === 'QueryCommand' && (r.input as { IndexName?: string }).IndexName).map((r) => r.input);
const partitionOf = (input: Record<string, unknown>) => (input.ExpressionAttributeValues as Record<string, unknown>)[':p'];

it('spreads each list over all its shards, with equal trends in different shards', () => {
  for (const k of videoPartitions.videos.keys()) expect(videos.filter((v) => videoPartitions.videoShard(v.vid) === k).length).toBeGreaterThan(5);
  for (const k of videoPartitions.trending.keys()) expect(videos.filter((v) => videoPartitions.trendingShard(v.vid) === k && v.gsi3sk === 1).length).toBeGreaterThan(0);
  expect(new Set(comments.map((c) => commentKeys.allCommentsIndex(c.created_at, c.cid).gsi2pk))).toEqual(new Set(commentPartitions.comments));
});

/**
 * A whole walk through get_next_list, each call measured; with `accessKey`, authenticated by it (3
 * requests) instead of a JWT (1). Each call finds no shared head kept (a container's first call:
 * docs/feed.md, "The shared heads' cache"), so each page reads its shards; with `kept`, the heads
 * read by earlier calls answer (the same pages, fewer requests).
 */
async function walkAll(order: 'new' | 'hot', count: number, accessKey?: string, kept = false) {
  const served: string[] = [];
  let cursor = '';
  const auth = accessKey ? { headers: { authorization: `Bearer ${accessKey}` }, params: {} } : { headers: undefined, params: { token: viewer.token } };
  for (let calls = 1; calls < 100; calls++) {
    if (!kept) dropSharedHeads();
    const { result, requests } = await recordRequests(() =>
      hub<{ list: { vid: string }[]; fav_index: string }>(api, 'get_next_list', { openid: viewer.openid, ...auth.params, order, watch_count: count, fav_index: cursor }, auth.headers),
    );
    expect(result.status).toBe(200);
    expect(requests.length, requests.map((r) => r.command).join(', ')).toBeLessThanOrEqual(MAX_REQUESTS);
    // Every page Queries every shard of its list; a call after the last page only says the walk ended.
    const partitions = queriesOf(requests).map(partitionOf);
    if (partitions.length > 0) expect(partitions.sort()).toEqual([...(order === 'new' ? videoPartitions.videos : videoPartitions.trending)].sort());
    else if (!kept) expect(result.data).toEqual({ list: [], fav_index: '' });
    served.push(...result.data.list.map((v) => v.vid));
    cursor = result.data.fav_index;
    if (!cursor) return served;
  }
  throw new Error('the walk did not end');
}

describe.each([1, 4, 7, 20])('walks of %i videos a call', (count) => {
  const timeout = 120_000;
  it('order=new serves every video once, newest first', { timeout }, async () => {
    const expected = [...videos].sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).map((v) => v.vid);
    expect(await walkAll('new', count)).toEqual(expected);
    expect(await walkAll('new', count, undefined, true)).toEqual(expected);
  });

  it('order=hot serves every video once, hottest first', { timeout }, async () => {
    const served = await walkAll('hot', count);
    expect([...served].sort()).toEqual(videos.map((v) => v.vid).sort());
    const trends = served.map((vid) => trendOf(videos.findIndex((v) => v.vid === vid)));
    expect(trends).toEqual([...trends].sort((a, b) => b - a));
  });
});

it('a walk with an access key, whose call leaves 2 requests for the page, still reads every shard and serves every video once', { timeout: 120_000 }, async () => {
  const created = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: viewer.token, body: { name: 'feed script' } });
  expect(created.status).toBe(201);
  const newest = [...videos].sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).map((v) => v.vid);
  expect(await walkAll('new', 10, created.data.api_key)).toEqual(newest);
  expect((await walkAll('hot', 10, created.data.api_key)).sort()).toEqual([...newest].sort());
});

describe("rec's exploration walk", () => {
  /** A whole walk from its start, one step a request: the vids in the order read. */
  async function explore(limit: number, kept = false) {
    const seen: string[] = [];
    let next: string | null | undefined;
    for (let steps = 1; steps < 200; steps++) {
      if (!kept) dropSharedHeads(); // each step's one request, as in a container that keeps no head
      const { result, requests } = await recordRequests(() => exploreStep(next ?? undefined, limit));
      // A kept shard head answers a step without a request (docs/feed.md, "The shared heads' cache").
      if (kept) expect(requests.length).toBeLessThanOrEqual(1);
      else expect(requests).toHaveLength(1);
      seen.push(...result.videos.map((v) => v.vid));
      next = result.next;
      if (next === null) return seen;
    }
    throw new Error('the walk did not end');
  }

  it.each([1, 7, 100])('covers every shard once, whichever shard it starts in (%i videos a step)', async (limit) => {
    // Walks started one after the other start in different shards (the shards in turn).
    for (let walk = 0; walk < SHARDS.videos + 1; walk++) {
      const seen = await explore(limit);
      expect([...seen].sort()).toEqual(videos.map((v) => v.vid).sort());
      expect((await explore(limit, true)).sort()).toEqual(videos.map((v) => v.vid).sort());
    }
  });
});

/** A whole export, each page measured. */
async function exportAll<T>(kind: 'accounts' | 'comments', limit: number): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages < 100; pages++) {
    const query: URLSearchParams = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const { result, requests } = await recordRequests(() => api.get<{ items: T[]; next_cursor: string | null }>(`/api/v1/export/${kind}?${query.toString()}`, { token: admin.token }));
    expect(result.status).toBe(200);
    expect(result.data.items.length).toBeLessThanOrEqual(limit);
    // One Query per shard, in parallel; accounts are read after the index (it holds no counters).
    const partitions = queriesOf(requests).map(partitionOf);
    expect(partitions.sort()).toEqual([...(kind === 'accounts' ? accountPartitions.accounts : commentPartitions.comments)].sort());
    expect(requests.filter((r) => r.command === 'BatchGetCommand').length).toBeLessThanOrEqual(1);
    rows.push(...result.data.items);
    cursor = result.data.next_cursor;
    if (!cursor) return rows;
    expect(result.data.items).toHaveLength(limit);
  }
  throw new Error('the export did not end');
}

describe.each([1, 3, 5, 100])('admin exports, %i rows a page', (limit) => {
  it('accounts: every account once, oldest first, with its counters', { timeout: 60_000 }, async () => {
    const rows = await exportAll<{ openid: string; created_at: string; follow_count: number }>('accounts', limit);
    expect(rows).toHaveLength(ACCOUNTS + 1);
    expect(new Set(rows.map((r) => r.openid)).size).toBe(rows.length);
    const keys = rows.map((r) => `${r.created_at}#${r.openid}`);
    expect(keys).toEqual([...keys].sort());
    expect(rows.every((r) => typeof r.follow_count === 'number')).toBe(true);
  });

  it('comments: every comment once, oldest first, whole', { timeout: 60_000 }, async () => {
    const rows = await exportAll<{ cid: string; content: string; vid: string; openid: string }>('comments', limit);
    expect(rows.map((r) => r.cid)).toEqual(comments.map((c) => c.cid));
    expect(rows[3]).toMatchObject({ cid: comments[3]!.cid, content: 'comment 3', vid: videos[0]!.vid, openid: 'u_shard_author' });
  });
});

it('indexes hold no counters: a counter update writes no index entry', async () => {
  const vid = videos[0]!.vid;
  const out = await db.send(
    new UpdateCommand({ TableName: tableNames.hub, Key: videoKeys.video(vid), UpdateExpression: 'ADD like_count :one, comment_count :one', ExpressionAttributeValues: { ':one': 1 }, ReturnConsumedCapacity: 'INDEXES' }),
  );
  expect(Object.keys(out.ConsumedCapacity?.GlobalSecondaryIndexes ?? {})).toEqual([]);
  const trend = await db.send(
    new UpdateCommand({ TableName: tableNames.hub, Key: videoKeys.video(vid), UpdateExpression: 'ADD gsi3sk :d', ExpressionAttributeValues: { ':d': 0.5 }, ReturnConsumedCapacity: 'INDEXES' }),
  );
  expect(Object.keys(trend.ConsumedCapacity?.GlobalSecondaryIndexes ?? {})).toEqual(['gsi3']);
});
