import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { commentKeys } from '../../lib/entities/comments/comments.js';
import { applyChangeRecords, streamDb } from '../../lib/features/streams/counters.js';
import { forgetTrendKeys } from '../../lib/features/streams/trend-keys.js';
import type { ChangeRecord } from '../../lib/features/streams/facts.js';
import { changeRecord, likeRecord, unlikeRecord } from '../support/stream-records.js';
import { installRequestRecorder, recordRequests, type RecordedRequest } from '../support/db-requests.js';
import { clearFaults, failWhere, injectFaultsInto } from '../support/faults.js';
import { getHubItem, putTestAccounts, putTestVideo, type TestAccount, type TestVideo } from '../support/hub-fixtures.js';
import { startTestStack } from '../support/stack.js';

/**
 * The stream processor's batches (docs/data-model.md, "Counters"): a batch's records on one video or
 * one author become one update of it (counted at the processor's client), and the counts stay exact
 * when a batch, or part of one, is delivered again, and when a batch fails half-way and is retried.
 * Records are built as the stream carries them (the items' images), handed to the processor as the
 * event source mapping hands them over.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let author: TestAccount;
let likers: TestAccount[];

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  installRequestRecorder(streamDb);
  injectFaultsInto(streamDb);
  const accounts = await putTestAccounts(61);
  author = accounts[0]!;
  likers = accounts.slice(1);
});
afterAll(async () => stack?.stop());
// Each case in a fresh container of the processor: no trend key of an earlier case pending.
beforeEach(() => forgetTrendKeys());
afterEach(() => clearFaults());

const [record, like, unlike] = [changeRecord, likeRecord, unlikeRecord];
const comment = (video: TestVideo, seq: number) =>
  record('INSERT', { ...commentKeys.comment(video.vid, seq), entity: 'comment', vid: video.vid, seq, cid: `c_${randomBytes(6).toString('hex')}`, openid: likers[0]!.openid });

interface Counts {
  likes: number;
  comments: number;
  trend: number;
}
/** The exact trend; its index keys (the video's, the tag ranking's) move at most once per interval: test/api/trend-keys.test.ts. */
async function countsOf(video: TestVideo): Promise<Counts> {
  const item = await getHubItem<{ like_count: number; comment_count: number; trend?: number }>(videoKeys.video(video.vid));
  return { likes: item!.like_count, comments: item!.comment_count, trend: item!.trend ?? 0 };
}
const likedCount = async (openid: string) => (await getHubItem<{ liked_count?: number }>(accountKeys.account(openid)))?.liked_count ?? 0;

/** The keys each succeeded TransactWriteItems updated, in order. */
function updates(requests: RecordedRequest[]): string[][] {
  return requests
    .filter((r) => r.command === 'TransactWriteItemsCommand')
    .map((r) => (r.input.TransactItems as { Update?: { Key: { pk: string; sk: string } } }[]).flatMap((t) => (t.Update ? [`${t.Update.Key.pk}|${t.Update.Key.sk}`] : [])));
}
const keyOf = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;

async function videosOf(owner: TestAccount, count: number): Promise<TestVideo[]> {
  return Promise.all(Array.from({ length: count }, () => putTestVideo(owner.openid, { tags: ['expo'] })));
}

describe('one update per video and per author per batch', () => {
  it('applies a batch of 40 likes and 20 comments on one video as ONE transaction: the video and its author once each', async () => {
    const [video] = await videosOf(author, 1);
    const batch = [...likers.slice(0, 40).map((l) => like(l, video!)), ...Array.from({ length: 20 }, (_, i) => comment(video!, i + 1))];
    const before = await likedCount(author.openid);
    const { result, requests } = await recordRequests(() => applyChangeRecords(batch));
    expect(result).toEqual({ applied: 60 });
    const written = updates(requests);
    expect(written).toHaveLength(1);
    expect(written[0]!.sort()).toEqual([keyOf(accountKeys.account(author.openid)), keyOf(videoKeys.video(video!.vid))].sort());
    expect(await countsOf(video!)).toEqual({ likes: 40, comments: 20, trend: 80 });
    expect((await likedCount(author.openid)) - before).toBe(40);
  });

  it('keeps an author once per transaction when the batch needs several: the author in the fewest, every video in exactly one', async () => {
    // 100 likes over 30 videos of one author, interleaved with 10 likes of another author's video:
    // 110 markers and 63 items to update do not fit in one transaction (at most 100 items).
    const [other] = await putTestAccounts(1);
    const videos = await videosOf(author, 30);
    const [theirs] = await videosOf(other!, 1);
    const batch: ChangeRecord[] = [];
    for (let i = 0; i < 100; i++) {
      batch.push(like(likers[i % 60]!, videos[i % 30]!));
      if (i % 10 === 0) batch.push(like(likers[i / 10]!, theirs!));
    }
    const before = await likedCount(author.openid);
    const { result, requests } = await recordRequests(() => applyChangeRecords(batch));
    expect(result).toEqual({ applied: 110 });
    const written = updates(requests);
    // 110 markers alone need two transactions; grouped by author and video, two are enough.
    expect(written).toHaveLength(2);
    const updatesOf = (key: { pk: string; sk: string }) => written.flat().filter((k) => k === keyOf(key)).length;
    expect(updatesOf(accountKeys.account(author.openid))).toBe(2);
    expect(updatesOf(accountKeys.account(other!.openid))).toBe(1);
    for (const v of [...videos, theirs!]) expect(updatesOf(videoKeys.video(v.vid)), v.vid).toBe(1);
    expect((await likedCount(author.openid)) - before).toBe(100);
    expect(await likedCount(other!.openid)).toBe(10);
  });

  it('writes nothing for a like and its removal in the same batch, and exactly the rest', async () => {
    const [video] = await videosOf(author, 1);
    const batch = [like(likers[0]!, video!), like(likers[1]!, video!), unlike(likers[0]!, video!)];
    const { result } = await recordRequests(() => applyChangeRecords(batch));
    expect(result).toEqual({ applied: 3 });
    expect(await countsOf(video!)).toEqual({ likes: 1, comments: 0, trend: 2 });
  });
});

describe('exact once converged, whatever is delivered again', () => {
  it('changes nothing when a whole batch is delivered again: its markers refuse it in one request', async () => {
    const [video] = await videosOf(author, 1);
    const batch = [...likers.slice(0, 30).map((l) => like(l, video!)), comment(video!, 1)];
    expect(await applyChangeRecords(batch)).toEqual({ applied: 31 });
    const before = { counts: await countsOf(video!), liked: await likedCount(author.openid) };
    const { result, requests } = await recordRequests(() => applyChangeRecords(batch), { includeFailed: true });
    expect(result).toEqual({ applied: 0 });
    expect(requests.map((r) => [r.command, r.failed])).toEqual([['TransactWriteItemsCommand', true]]);
    expect(await countsOf(video!)).toEqual(before.counts);
    expect(await likedCount(author.openid)).toBe(before.liked);
  });

  it('applies only the new records of a batch that holds part of an earlier one (a retry from a record on, or a bisected half)', async () => {
    const [video] = await videosOf(author, 1);
    const first = likers.slice(0, 30).map((l) => like(l, video!));
    expect(await applyChangeRecords(first)).toEqual({ applied: 30 });
    const again = [...first.slice(10, 20), ...likers.slice(30, 45).map((l) => like(l, video!)), comment(video!, 1)];
    const before = await likedCount(author.openid);
    expect(await applyChangeRecords(again)).toEqual({ applied: 16 });
    expect(await countsOf(video!)).toEqual({ likes: 45, comments: 1, trend: 90 });
    expect((await likedCount(author.openid)) - before).toBe(15);
  });

  it('leaves no half-applied batch when a transaction fails half-way: the retry from the reported record makes every count exact', async () => {
    // Three authors' videos, 50 likes each: one transaction per author (grouped; two would not fit).
    // The batch starts with a like of the author whose transaction comes last, and the middle one fails:
    // the retry must start at the batch's first record, though the first transaction applied later ones.
    const owners = (await putTestAccounts(3)).sort((a, b) => (a.openid < b.openid ? -1 : 1));
    const videos = await Promise.all(owners.map(async (o) => (await videosOf(o, 1))[0]!));
    const batch: ChangeRecord[] = [];
    for (let i = 0; i < 150; i++) batch.push(like(likers[i % 60]!, videos[2 - (i % 3)]!));
    const fault = failWhere('throughput', (command, input) => command === 'TransactWriteItemsCommand' && JSON.stringify(input.TransactItems).includes(`VIDEO#${videos[1]!.vid}`));
    const outcome = await applyChangeRecords(batch);
    expect(fault.fired).toBe('TransactWriteItemsCommand');
    expect(outcome.applied).toBe(50);
    expect(outcome.failedFrom).toBe(batch[0]!.dynamodb!.SequenceNumber);
    expect((await countsOf(videos[1]!)).likes).toBe(0);
    expect((await countsOf(videos[2]!)).likes).toBe(0);
    clearFaults();
    const from = batch.findIndex((r) => r.dynamodb!.SequenceNumber === outcome.failedFrom);
    expect(await applyChangeRecords(batch.slice(from))).toEqual({ applied: 100 });
    for (const [i, video] of videos.entries()) {
      expect(await countsOf(video)).toEqual({ likes: 50, comments: 0, trend: 100 });
      expect(await likedCount(owners[i]!.openid)).toBe(50);
    }
  });
});
