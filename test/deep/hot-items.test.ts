import { ThrottlingException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactTrend, trendUnit } from '../../lib/entities/catalog/trend.js';
import type { VideoItem } from '../../lib/entities/catalog/video-items.js';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { applyChangeRecords, streamDb } from '../../lib/features/streams/counters.js';
import type { ChangeRecord } from '../../lib/features/streams/facts.js';
import { recordRequests } from '../support/db-requests.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { reactionKeys } from '../../lib/entities/catalog/reaction-items.js';
import { commentKeys } from '../../lib/entities/comments/comments.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

/**
 * Hot items (docs/performance.md, "Hot items"): many accounts reacting to one video, or to one author's videos, at the same
 * moment. The reactions themselves commit without touching any item they share; the shared counters
 * converge through the stream processor, which is checked here by polling the stored items WITHOUT
 * settling (the processor's own background loop must get there), with a generous cap.
 */

let stack: Awaited<ReturnType<typeof startTestStack>>;
/** Sends at once, without waiting for the stream processor: the burst is really concurrent. */
let burst: ReturnType<typeof apiClient>;
/** Waits for the stream processor before each call (reads converged counters). */
let api: ReturnType<typeof apiClient>;
let author: TestAccount;
let people: TestAccount[];

beforeAll(async () => {
  // The stream processor polls in the background, as deployed: the convergence is its own.
  stack = await startTestStack({ streams: 'background' });
  burst = apiClient(stack.url, { settle: false });
  api = apiClient(stack.url, { settle: true });
  [author, ...people] = (await putTestAccounts(201)) as [TestAccount, ...TestAccount[]];
}, 120_000);
afterAll(async () => stack?.stop());

/** A stored item read as it is now, without waiting for the stream processor. */
const rawItem = async <T,>(key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: tableNames.hub, Key: key, ConsistentRead: true }))).Item as T | undefined;

/** Polls `read` until `done` holds, for at most `capMs` (the loose lag bound: far above the seconds it takes). */
async function converged<T>(read: () => Promise<T>, done: (value: T) => boolean, capMs = 60_000): Promise<T> {
  const deadline = Date.now() + capMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const likedCount = async () => (await rawItem<{ liked_count?: number }>(accountKeys.account(author.openid)))?.liked_count ?? 0;

describe('50 people commenting on one video at once', () => {
  it('stores every comment once, answers no 503, counts exactly and pages at the same cost at every depth', async () => {
    const video = await putTestVideo(author.openid, { tags: ['展会'] });
    const writers = people.slice(0, 50);
    const answers = await Promise.all(writers.map((w, i) => hub<{ comment: { cid: string }; comment_count: number }>(burst, 'comment_set', { openid: w.openid, token: w.token, vid: video.vid, content: `Comment ${i}` })));
    expect(answers.map((a) => a.status)).toEqual(writers.map(() => 200));
    expect(new Set(answers.map((a) => a.data.comment.cid)).size).toBe(50);
    // Each answer counts the comments numbered up to its own: all different, the last one 50.
    expect(answers.map((a) => a.data.comment_count).sort((a, b) => a - b)).toEqual(writers.map((_, i) => i + 1));

    const stored = await converged(
      () => rawItem<VideoItem>(videoKeys.video(video.vid)),
      (v) => v?.comment_count === 50,
    );
    expect(stored?.comment_count).toBe(50);

    type Page = { list: { cid: string; content: string }[]; total: number; has_more: boolean };
    const page = (n: number) => recordRequests(() => hub<Page>(api, 'comment_get', { openid: author.openid, token: author.token, vid: video.vid, page: n, d: 'device-1' }));
    const pages = [await page(1), await page(2), await page(3), await page(4)];
    expect(pages.map((p) => p.result.data.list.length)).toEqual([20, 20, 10, 0]);
    expect(pages.map((p) => p.result.data.total)).toEqual([50, 50, 50, 50]);
    expect(pages.map((p) => p.result.data.has_more)).toEqual([true, true, false, false]);
    const listed = pages.flatMap((p) => p.result.data.list.map((c) => c.cid));
    expect(listed.sort()).toEqual(answers.map((a) => a.data.comment.cid).sort());
    // Pages 2 and 3 cost the same requests: the authorizer's read, the sequence, the caller's block list
    // (docs/moderation.md, "Blocking"), one Query, the authors' names; page 1 one Query more, the
    // caller's own held comments (docs/moderation.md, "Filter").
    const commands = (p: (typeof pages)[number]) => p.requests.map((r) => r.command).sort();
    expect(commands(pages[2]!)).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'QueryCommand']);
    expect(commands(pages[1]!)).toEqual(commands(pages[2]!));
    expect(commands(pages[0]!)).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'QueryCommand', 'QueryCommand']);
  }, 120_000);

  it('skips the number of a comment whose write failed: pages stay 20 long and the total exact', async () => {
    const video = await putTestVideo(author.openid);
    const [writer] = people.slice(60, 61) as [TestAccount];
    for (let i = 0; i < 21; i++) expect((await hub(api, 'comment_set', { openid: people[70 + i]!.openid, token: people[70 + i]!.token, vid: video.vid, content: `c${i}` })).status).toBe(200);
    // A number taken and abandoned, as by a comment whose write failed after taking it.
    await db.send(new UpdateCommand({ TableName: tableNames.hub, Key: commentKeys.commentSequence(video.vid), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
    await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...commentKeys.comment(video.vid, 22), entity: 'comment_gap', vid: video.vid, seq: 22 } }));
    expect((await hub(api, 'comment_set', { openid: writer.openid, token: writer.token, vid: video.vid, content: 'after the gap' })).data).toMatchObject({ comment_count: 22 });
    type Page = { list: { content: string }[]; total: number; has_more: boolean };
    const first = await hub<Page>(api, 'comment_get', { openid: author.openid, token: author.token, vid: video.vid, page: 1, d: 'device-1' });
    const second = await hub<Page>(api, 'comment_get', { openid: author.openid, token: author.token, vid: video.vid, page: 2, d: 'device-1' });
    expect(first.data.total).toBe(22);
    expect(first.data.list.map((c) => c.content)).toEqual(['after the gap', ...Array.from({ length: 19 }, (_, i) => `c${20 - i}`)]);
    expect(second.data.list.map((c) => c.content)).toEqual(['c1', 'c0']);
    expect(second.data.has_more).toBe(false);
    expect((await getHubItem<VideoItem>(videoKeys.video(video.vid)))?.comment_count).toBe(22);
  });
});

describe('200 people liking at once', () => {
  it('one video: no 503, like_count, trend and liked_count exact once converged', async () => {
    const video = await putTestVideo(author.openid, { tags: ['机器人'] });
    const before = { liked: await likedCount(), trend: (await rawItem<VideoItem>(videoKeys.video(video.vid)))?.gsi3sk ?? 0 };
    const likers = people.slice(0, 200);
    const answers = await Promise.all(likers.map((u) => hub(burst, 'like', { openid: u.openid, token: u.token, vid: video.vid })));
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual([]);

    const stored = await converged(
      () => rawItem<VideoItem>(videoKeys.video(video.vid)),
      (v) => v?.like_count === 200,
    );
    expect(stored?.like_count).toBe(200);
    expect(await converged(likedCount, (n) => n === before.liked + 200)).toBe(before.liked + 200);
    // Every like added one trend unit of its moment to the exact trend; its index key moved with the
    // first batch and follows at most once per interval (test/api/trend-keys.test.ts).
    expect(exactTrend(stored!) / trendUnit(clock.now())).toBeGreaterThan(before.trend / trendUnit(clock.now()) + 199.99);
    expect(stored!.gsi3sk).toBeGreaterThan(before.trend);
    expect(stored!.gsi3sk).toBeLessThanOrEqual(exactTrend(stored!));
    // A later reader sees the count through the API too.
    const again = await hub<{ like_count: number }>(api, 'like', { openid: likers[0]!.openid, token: likers[0]!.token, vid: video.vid });
    expect(again.data.like_count).toBe(200);
  }, 120_000);

  it("one author's videos: no 503, every video's like_count and the author's liked_count exact once converged", async () => {
    const videos = await Promise.all(Array.from({ length: 20 }, () => putTestVideo(author.openid)));
    const likedBefore = await likedCount();
    const likers = people.slice(0, 200);
    const answers = await Promise.all(likers.map((u, i) => hub(burst, 'like', { openid: u.openid, token: u.token, vid: videos[i % 20]!.vid })));
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual([]);
    expect(await converged(likedCount, (n) => n === likedBefore + 200)).toBe(likedBefore + 200);
    const counts = await Promise.all(videos.map(async (v) => (await getHubItem<VideoItem>(videoKeys.video(v.vid)))?.like_count));
    expect(counts).toEqual(videos.map(() => 10));
  }, 120_000);

  it('a first like makes at most 6 requests and 12 WCU, none on an item another liker writes', async () => {
    const video = await putTestVideo(author.openid, { tags: ['展会', 'robotics'] });
    const [liker] = people.slice(150, 151) as [TestAccount];
    // An earlier like gives the liker a history.
    await hub(api, 'like', { openid: liker.openid, token: liker.token, vid: (await putTestVideo(author.openid)).vid });
    const { result, requests } = await recordRequests(() => hub(api, 'like', { openid: liker.openid, token: liker.token, vid: video.vid }));
    expect(result.status).toBe(200);
    expect(requests.length).toBeLessThanOrEqual(6);
    expect(requests.reduce((s, r) => s + r.consumedWrite, 0)).toBeLessThanOrEqual(12);
    const written = requests.flatMap((r) => ((r.input.TransactItems as Record<string, { Key?: { pk: string; sk: string }; Item?: { pk: string; sk: string } }>[] | undefined) ?? []).map((i) => Object.values(i)[0]!));
    const keys = written.map((w) => `${(w.Key ?? w.Item)!.pk}|${(w.Key ?? w.Item)!.sk}`);
    for (const shared of [videoKeys.video(video.vid), accountKeys.account(author.openid), videoKeys.videoTag(video.vid, '展会')]) {
      expect(keys).not.toContain(`${shared.pk}|${shared.sk}`);
    }
  });
});

describe('the stream processor', () => {
  /** A like's stream record as DynamoDB delivers it (the like itself is not stored: only its counters are checked). */
  const likeRecord = (eventID: string, vid: string, openid: string, sequence: number): ChangeRecord => ({
    eventID,
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: String(sequence).padStart(21, '0'),
      NewImage: marshall({ ...reactionKeys.like(openid, vid), entity: 'like', openid, vid, trend_add: trendUnit(clock.now()), author_openid: author.openid, tags: [], co_vids: [] }) as Record<string, unknown>,
    },
  });
  const likes = async (vid: string) => (await rawItem<VideoItem>(videoKeys.video(vid)))?.like_count ?? 0;

  it('applies a record delivered twice, or in parallel, once', async () => {
    const video = await putTestVideo(author.openid);
    const record = likeRecord(`dup-${video.vid}`, video.vid, 'u_someone', 1);
    expect((await applyChangeRecords([record])).applied).toBe(1);
    expect((await applyChangeRecords([record])).applied).toBe(0);
    const parallel = await Promise.all(Array.from({ length: 4 }, () => applyChangeRecords([record])));
    expect(parallel.map((o) => o.failedFrom)).toEqual([undefined, undefined, undefined, undefined]);
    expect(await likes(video.vid)).toBe(1);
    // A batch delivered again with one new record: only the new one counts.
    const next = likeRecord(`dup2-${video.vid}`, video.vid, 'u_other', 2);
    expect((await applyChangeRecords([record, next])).applied).toBe(1);
    expect(await likes(video.vid)).toBe(2);
  });

  it('a batch failing half-way keeps what it applied, reports the first record not applied, and the retry applies the rest once', async () => {
    const video = await putTestVideo(author.openid);
    const records = Array.from({ length: 150 }, (_, i) => likeRecord(`half-${video.vid}-${i}`, video.vid, `u_liker${i}`, i + 1));
    let transactions = 0;
    streamDb.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName?.startsWith('TransactWrite') && ++transactions === 2) {
          throw new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: { httpStatusCode: 400 } });
        }
        return next(args);
      },
      { step: 'initialize', name: 'hotItemsFault' },
    );
    let first;
    try {
      first = await applyChangeRecords(records);
    } finally {
      streamDb.middlewareStack.remove('hotItemsFault');
    }
    expect(first.applied).toBeGreaterThan(0);
    expect(first.applied).toBeLessThan(150);
    expect(first.failedFrom).toBe(records[first.applied]!.dynamodb!.SequenceNumber);
    expect(await likes(video.vid)).toBe(first.applied);
    // Lambda retries the whole batch (or from the failed record): either way each like counts once.
    const retry = await applyChangeRecords(records);
    expect(retry).toEqual({ applied: 150 - first.applied });
    expect(await likes(video.vid)).toBe(150);
  });
});
