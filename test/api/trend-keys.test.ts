import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TREND_KEY_INTERVAL_MS } from '../../lib/entities/catalog/trend.js';
import { tagItem, videoKeys } from '../../lib/entities/catalog/video-items.js';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { applyChangeRecords, streamDb } from '../../lib/features/streams/counters.js';
import type { ChangeRecord } from '../../lib/features/streams/facts.js';
import { forgetTrendKeys } from '../../lib/features/streams/trend-keys.js';
import { likeRecord, unlikeRecord } from '../support/stream-records.js';
import { installRequestRecorder, recordRequests, type RecordedRequest } from '../support/db-requests.js';
import { getHubItem, putTestAccounts, putTestVideo, type TestAccount, type TestVideo } from '../support/hub-fixtures.js';
import { startTestStack } from '../support/stack.js';

/**
 * The trend's index key moves at most once per TREND_KEY_INTERVAL_MS per video (docs/data-model.md,
 * "Trend keys"): the exact trend takes every like at once; the key (the video's gsi3sk and its tag
 * rankings') is copied from it when due, and the last change's copy is made by the processor's next
 * invocation once due. Batches are handed to the processor directly, time moved with `clock`.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let author: TestAccount;
let likers: TestAccount[];
const T0 = Date.UTC(2026, 10, 26, 8, 0, 0);

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  installRequestRecorder(streamDb);
  const accounts = await putTestAccounts(41);
  author = accounts[0]!;
  likers = accounts.slice(1);
});
afterAll(async () => stack?.stop());
beforeEach(() => {
  forgetTrendKeys();
  clock.set(T0);
});
afterEach(() => clock.reset());

const [like, unlike] = [likeRecord, unlikeRecord];
const likes = (video: TestVideo, from: number, count: number) => likers.slice(from, from + count).map((l) => like(l, video));

/** A video with no exact trend yet (as every video from before it existed) and no key, in a tag ranking of its own (key 0). */
async function newVideo(tag: string): Promise<TestVideo> {
  const video = await putTestVideo(author.openid, { tags: [tag] });
  await db.send(new PutCommand({ TableName: tableNames.hub, Item: tagItem({ ...video, gsi3sk: 0, updated_at: video.created_at }, tag) }));
  return video;
}

async function trendOf(video: TestVideo) {
  const item = await getHubItem<{ gsi3sk: number; trend?: number }>(videoKeys.video(video.vid));
  const tag = await getHubItem<{ gsi3sk: number }>(videoKeys.videoTag(video.vid, video.tags[0]!));
  return { exact: item!.trend ?? item!.gsi3sk, key: item!.gsi3sk, tagKey: tag!.gsi3sk };
}

/** The processor's writes of a video's index key (refused ones included). */
const keyWrites = (requests: RecordedRequest[], video: TestVideo) =>
  requests.filter((r) => r.command === 'UpdateItemCommand' && JSON.stringify(r.input.Key) === JSON.stringify(videoKeys.video(video.vid)) && String(r.input.UpdateExpression).includes('gsi3sk'));

async function apply(batch: ChangeRecord[]) {
  const { result, requests } = await recordRequests(() => applyChangeRecords(batch), { includeFailed: true });
  expect(result).toEqual({ applied: batch.length });
  return requests;
}

describe('the trend key', () => {
  it('moves once for many batches within the interval, while the exact trend takes every like', async () => {
    const video = await newVideo(`t${randomBytes(4).toString('hex')}`);
    expect(keyWrites(await apply(likes(video, 0, 10)), video)).toHaveLength(1);
    expect(await trendOf(video)).toEqual({ exact: 20, key: 20, tagKey: 20 });
    const writes: RecordedRequest[] = [];
    for (let n = 0; n < 4; n++) {
      clock.advance(1000);
      writes.push(...keyWrites(await apply(likes(video, 10 + n * 5, 5)), video));
    }
    // Not even a refused attempt: the container knows its own move.
    expect(writes).toHaveLength(0);
    expect(await trendOf(video)).toEqual({ exact: 60, key: 20, tagKey: 20 });
  });

  it('moves again once the interval has passed', async () => {
    const video = await newVideo(`t${randomBytes(4).toString('hex')}`);
    await apply(likes(video, 0, 3));
    clock.advance(TREND_KEY_INTERVAL_MS - 1);
    await apply(likes(video, 3, 3));
    expect(await trendOf(video)).toEqual({ exact: 12, key: 6, tagKey: 6 });
    clock.advance(1);
    const requests = await apply(likes(video, 6, 1));
    expect(keyWrites(requests, video).map((r) => r.failed)).toEqual([false]);
    expect(await trendOf(video)).toEqual({ exact: 14, key: 14, tagKey: 14 });
  });

  it('is not moved within the interval by another container either: the stored time of the last move decides, with no refused write', async () => {
    const video = await newVideo(`t${randomBytes(4).toString('hex')}`);
    await apply(likes(video, 0, 2));
    forgetTrendKeys(); // the next batch in another container
    clock.advance(TREND_KEY_INTERVAL_MS / 2);
    expect(keyWrites(await apply(likes(video, 2, 2)), video)).toHaveLength(0);
    expect(await trendOf(video)).toEqual({ exact: 8, key: 4, tagKey: 4 });
  });

  it("gets the last like's move when the likes stop: the next invocation moves it once due", async () => {
    const [video, other] = [await newVideo(`t${randomBytes(4).toString('hex')}`), await newVideo(`t${randomBytes(4).toString('hex')}`)];
    await apply(likes(video, 0, 4));
    clock.advance(1000);
    await apply(likes(video, 4, 1)); // the last like, within the interval: pending
    clock.advance(TREND_KEY_INTERVAL_MS / 2);
    expect(keyWrites(await apply([like(likers[0]!, other)]), video)).toHaveLength(0); // not due yet
    expect((await trendOf(video)).key).toBe(8);
    clock.advance(TREND_KEY_INTERVAL_MS / 2);
    expect(keyWrites(await apply([like(likers[1]!, other)]), video)).toHaveLength(1);
    expect(await trendOf(video)).toEqual({ exact: 10, key: 10, tagKey: 10 });
  });

  it('stays exact under likes and dislikes (a removed like takes back exactly what it added) and the key converges to it', async () => {
    const video = await newVideo(`t${randomBytes(4).toString('hex')}`);
    await apply([like(likers[0]!, video, 3), like(likers[1]!, video, 5), like(likers[2]!, video, 7)]);
    clock.advance(1000);
    await apply([unlike(likers[1]!, video, 5), like(likers[3]!, video, 11)]);
    clock.advance(1000);
    await apply([unlike(likers[0]!, video, 3)]);
    expect(await trendOf(video)).toEqual({ exact: 18, key: 15, tagKey: 15 });
    clock.advance(TREND_KEY_INTERVAL_MS);
    await apply([like(likers[4]!, await newVideo(`t${randomBytes(4).toString('hex')}`))]);
    expect(await trendOf(video)).toEqual({ exact: 18, key: 18, tagKey: 18 });
  });

  it('is what the rankings follow: a video passes another in the tag ranking when its key moves, not before', async () => {
    const tag = `t${randomBytes(4).toString('hex')}`;
    const [a, b] = [await newVideo(tag), await newVideo(tag)];
    await apply([...likes(a, 0, 3), ...likes(b, 3, 1)]);
    const ranking = async () =>
      ((await db.send(new QueryCommand({ TableName: tableNames.hub, IndexName: 'gsi3', KeyConditionExpression: 'gsi3pk = :p', ExpressionAttributeValues: { ':p': `TAG#${tag}` }, ScanIndexForward: false }))).Items ?? []).map((i) => i.vid);
    expect(await ranking()).toEqual([a.vid, b.vid]);
    clock.advance(1000);
    await apply(likes(b, 4, 5));
    expect((await trendOf(b)).exact).toBeGreaterThan((await trendOf(a)).exact);
    expect(await ranking()).toEqual([a.vid, b.vid]);
    clock.advance(TREND_KEY_INTERVAL_MS);
    await apply([like(likers[20]!, await newVideo(`t${randomBytes(4).toString('hex')}`))]);
    expect(await ranking()).toEqual([b.vid, a.vid]);
  });
});
