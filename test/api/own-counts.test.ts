import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { VideoItem } from '../../lib/entities/catalog/video-items.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { OWN_COUNT_HOLD_MS } from '../../lib/entities/catalog/own-counts.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../lib/platform/clock.js';
import { forgetCachedFilterTerms, seedFilterTerms } from '../../lib/features/filter/terms.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { recordRequests } from '../support/db-requests.js';
import { hub, putTestAccounts, putTestVideo } from '../support/hub-fixtures.js';
import { settleStreams, useTestStack } from '../support/stack.js';

/**
 * Read your own writes (docs/data-model.md, "Read your own writes"): a video's like_count and
 * comment_count follow from the stream, which runs here only when a test settles it, so every
 * step below sees the counts exactly as a person would between their action and the stream's. The
 * answer to a person's own like, dislike or comment (and to its retry) holds that action, and
 * nothing that person reads afterwards (the feed, get_fav's lists, comment_get) is on the other
 * side of it, whether or not the stream has applied it, alone or with others acting at once.
 */

type User = { openid: string; token: string };
interface Video {
  vid: string;
  like_count: number;
  comment_count: number;
}

// No `settle`: the stream is applied only where a test says so. The clock is reset after each test.
const api = useTestStack({ http: false });
let author: User;
let users: User[];

beforeAll(async () => {
  // A hold term for the held comment below (docs/moderation.md, "Filter"), stored before anything reads the list.
  expect(await seedFilterTerms([{ term: 'spam', action: 'hold' }])).toBe(true);
  forgetCachedFilterTerms();
  const accounts = await putTestAccounts(40);
  author = accounts[0]!;
  users = accounts.slice(1);
});
// Time stands still within a test (the comment retry's minute, the hold), and moves only where a test moves it.
beforeEach(() => clock.set(Date.now()));

const ok = <T>(res: { status: number; body: unknown; data: T }): T => {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.data;
};
const as = (u: User) => ({ openid: u.openid, token: u.token });
const like = async (u: User, vid: string) => ok(await hub<{ like_count: number }>(api, 'like', { ...as(u), vid })).like_count;
const dislike = async (u: User, vid: string) => ok(await hub<{ like_count: number }>(api, 'dislike', { ...as(u), vid, action: 'dislike' })).like_count;
const comment = async (u: User, vid: string, content: string) => ok(await hub<{ comment_count: number }>(api, 'comment_set', { ...as(u), vid, content })).comment_count;

/** A video that already has `likes` likes and `comments` comments, applied (as a popular video has). */
async function popularVideo(likes = 340, comments = 12): Promise<{ vid: string; shareid: string }> {
  const video = await putTestVideo(author.openid, { like_count: likes, comment_count: comments });
  const shareid = ok(await hub<{ shareid: string }>(api, 'sharetext', { openid: author.openid, vid: video.vid, d: 'device-1', locale: 'en', country: '' })).shareid;
  return { vid: video.vid, shareid };
}

/** The video as the feed shows it to `u` (opened from a share, in a fresh list: it comes first). */
async function inFeed(u: User, v: { vid: string; shareid: string }): Promise<Video> {
  const { list } = ok(await hub<{ list: Video[] }>(api, 'get_next_list', { ...as(u), shareid: v.shareid, watch_count: 1, cmd: 'refresh' }));
  expect(list[0]?.vid).toBe(v.vid);
  return list[0]!;
}

/** The video in one of u's get_fav lists. */
async function inFav(u: User, vid: string, watchList: 'like' | 'comment' | 'history'): Promise<Video> {
  const { list } = ok(await hub<{ list: Video[] }>(api, 'get_fav', { ...as(u), watch_list: watchList, view: '', next_id: 0, fav_index: 50, q: '' }));
  const found = list.find((v) => v.vid === vid);
  expect(found, `${vid} in ${watchList}`).toBeDefined();
  return found!;
}

const total = async (u: User, vid: string) => ok(await hub<{ total: number }>(api, 'comment_get', { ...as(u), vid, page: 1, d: '' })).total;
/** The video item as stored, the stream NOT settled first (unlike getHubItem). */
const stored = async (vid: string) => (await db.send(new GetCommand({ TableName: tableNames.hub, Key: videoKeys.video(vid), ConsistentRead: true }))).Item as VideoItem;

/**
 * What each person reads from now on, against what they were shown so far (`shown`, their answers):
 * never lower after a like or a comment (`up`), never higher after a dislike (`down`). `check` reads
 * once more; `last` is the latest each was shown.
 */
function neverBack(people: User[], shown: number[], way: 'up' | 'down', reads: (u: User, i: number) => Promise<number[]>) {
  const last = [...shown];
  const check = () =>
    Promise.all(
      people.map(async (u, i) => {
        const seen = await reads(u, i);
        for (const n of seen) {
          if (way === 'up') expect(n).toBeGreaterThanOrEqual(last[i]!);
          else expect(n).toBeLessThanOrEqual(last[i]!);
        }
        last[i] = way === 'up' ? Math.max(...seen) : Math.min(...seen);
      }),
    );
  return { check, last };
}

/** Every like_count `u` reads of a video it liked. */
const likesSeen = async (u: User, v: { vid: string; shareid: string }) => [(await inFeed(u, v)).like_count, (await inFav(u, v.vid, 'like')).like_count];

describe('like: the answer and what the liker reads next hold the like', () => {
  it('likes again before the stream applied the first: the same answer, and every read at least that', async () => {
    const v = await popularVideo(340);
    const [alice] = users as [User];
    expect((await inFeed(alice, v)).like_count).toBe(340);

    const first = await like(alice, v.vid);
    expect(first).toBe(341);
    // The stream has not applied it: the video still says 340.
    expect((await stored(v.vid)).like_count).toBe(340);
    expect(await like(alice, v.vid)).toBe(341);
    expect(await likesSeen(alice, v)).toEqual([341, 341]);

    await settleStreams();
    expect((await stored(v.vid)).like_count).toBe(341);
    expect(await likesSeen(alice, v)).toEqual([341, 341]);
    expect(await like(alice, v.vid)).toBe(341);
  });

  it('many accounts like at once: each answer is at least its own view before plus one, and no later read by it is lower', async () => {
    const v = await popularVideo(340);
    const likers = users.slice(1, 11);
    const before = await Promise.all(likers.map(async (u) => (await inFeed(u, v)).like_count));

    const answers = await Promise.all(likers.map((u) => like(u, v.vid)));
    for (const [i, answer] of answers.entries()) expect(answer).toBeGreaterThanOrEqual(before[i]! + 1);

    // Each liker's reads, their retries' answers included: before the stream, and after it.
    const { check, last } = neverBack(likers, answers, 'up', async (u) => [...(await likesSeen(u, v)), await like(u, v.vid)]);
    await check();
    // Another burst by others, then the stream applies all twenty: never less than before.
    await Promise.all(users.slice(11, 21).map((u) => like(u, v.vid)));
    await settleStreams();
    await check();
    expect(last).toEqual(likers.map(() => 360));

    // The next liker, after the stream: all twenty are in its answer.
    expect(await like(users[21]!, v.vid)).toBe(361);
  });
});

describe('dislike: the answer and what the disliker reads next hold the removed like', () => {
  it('dislikes a liked video: one less than what it saw, and never more afterwards, before the stream and after', async () => {
    const v = await popularVideo(340);
    const [, , bob] = users as [User, User, User];
    // Bob sees the video (it joins his history) and likes it; the stream applies the like.
    ok(await hub(api, 'get_next_list', { ...as(bob), shareid: v.shareid, watch_count: 1, view: v.vid }));
    expect(await like(bob, v.vid)).toBe(341);
    await settleStreams();
    expect((await inFav(bob, v.vid, 'history')).like_count).toBe(341);

    expect(await dislike(bob, v.vid)).toBe(340);
    // Not applied yet: the video still holds his like, he is shown without it.
    expect((await stored(v.vid)).like_count).toBe(341);
    expect((await inFav(bob, v.vid, 'history')).like_count).toBe(340);
    expect(await dislike(bob, v.vid)).toBe(340);
    await settleStreams();
    expect((await inFav(bob, v.vid, 'history')).like_count).toBe(340);
    expect(await dislike(bob, v.vid)).toBe(340);
  });

  it('likes and dislikes before the stream applied either: the dislike answers one less than the like', async () => {
    const v = await popularVideo(340);
    const carol = users[22]!;
    ok(await hub(api, 'get_next_list', { ...as(carol), shareid: v.shareid, watch_count: 1, view: v.vid }));
    expect(await like(carol, v.vid)).toBe(341);
    expect(await dislike(carol, v.vid)).toBe(340);
    expect((await inFav(carol, v.vid, 'history')).like_count).toBe(340);
    // Liked again: one more than what the dislike showed.
    expect(await like(carol, v.vid)).toBe(341);
    expect(await likesSeen(carol, v)).toEqual([341, 341]);
    await settleStreams();
    expect((await stored(v.vid)).like_count).toBe(341);
    expect(await likesSeen(carol, v)).toEqual([341, 341]);
  });

  it('many accounts dislike at once: each answer is at most its own view before less one, and no later read by it is higher', async () => {
    const v = await popularVideo(340);
    const dislikers = users.slice(23, 33);
    for (const u of dislikers) ok(await hub(api, 'get_next_list', { ...as(u), shareid: v.shareid, watch_count: 1, view: v.vid }));
    await Promise.all(dislikers.map((u) => like(u, v.vid)));
    await settleStreams();
    const before = await Promise.all(dislikers.map(async (u) => (await inFav(u, v.vid, 'history')).like_count));
    expect(before).toEqual(dislikers.map(() => 350));

    const answers = await Promise.all(dislikers.map((u) => dislike(u, v.vid)));
    for (const [i, answer] of answers.entries()) expect(answer).toBeLessThanOrEqual(before[i]! - 1);
    const { check, last } = neverBack(dislikers, answers, 'down', async (u) => [(await inFav(u, v.vid, 'history')).like_count, await dislike(u, v.vid)]);
    await check();
    await settleStreams();
    await check();
    expect(last).toEqual(dislikers.map(() => 340));
  });
});

describe('comment_set: the answer and what the commenter reads next hold the comment', () => {
  it('comments, retries and reads before the stream applied it: every count includes the comment', async () => {
    const v = await popularVideo(340, 0);
    const dave = users[33]!;
    const n = await comment(dave, v.vid, 'Great booth');
    expect(n).toBe(1);
    expect((await stored(v.vid)).comment_count).toBe(0);
    // The retry (the same text within the minute) answers the first comment with at least its count.
    expect(await comment(dave, v.vid, 'Great booth')).toBe(1);
    expect((await inFeed(dave, v)).comment_count).toBe(1);
    expect((await inFav(dave, v.vid, 'comment')).comment_count).toBe(1);
    expect(await total(dave, v.vid)).toBe(1);
    await settleStreams();
    expect((await inFeed(dave, v)).comment_count).toBe(1);
    expect(await comment(dave, v.vid, 'Great booth')).toBe(1);
  });

  it('a held comment answers the count as its author was shown it, their own earlier comment in', async () => {
    const v = await popularVideo(340, 0);
    const gina = users[36]!;
    expect(await comment(gina, v.vid, 'First!')).toBe(1);
    const held = ok(await hub<{ comment_count: number; held?: true }>(api, 'comment_set', { ...as(gina), vid: v.vid, content: 'cheap spam here' }));
    expect(held).toMatchObject({ held: true, comment_count: 1 });
  });

  it('many accounts comment at once: each answer is at least its own view before plus one, and no later read by it is lower', async () => {
    const v = await popularVideo(340, 0);
    const commenters = users.slice(1, 11);
    const before = await Promise.all(commenters.map(async (u) => (await inFeed(u, v)).comment_count));
    const answers = await Promise.all(commenters.map((u, i) => comment(u, v.vid, `Comment ${i}`)));
    for (const [i, answer] of answers.entries()) expect(answer).toBeGreaterThanOrEqual(before[i]! + 1);
    expect(new Set(answers).size).toBe(10);

    const { check, last } = neverBack(commenters, answers, 'up', async (u, i) => [
      (await inFeed(u, v)).comment_count,
      (await inFav(u, v.vid, 'comment')).comment_count,
      await total(u, v.vid),
      await comment(u, v.vid, `Comment ${i}`),
    ]);
    await check();
    await settleStreams();
    await check();
    expect(last).toEqual(commenters.map(() => 10));
  });
});

describe('what the hold costs', () => {
  it('is bounded: past OWN_COUNT_HOLD_MS the liker is shown the applied count again', async () => {
    const v = await popularVideo(340);
    const erin = users[34]!;
    expect(await like(erin, v.vid)).toBe(341);
    await settleStreams();
    // Others' removals (here written straight onto the applied count) stay under the liker's answer while it holds...
    await putTestVideo(author.openid, { vid: v.vid, like_count: 330, comment_count: 12 });
    expect((await inFav(erin, v.vid, 'like')).like_count).toBe(341);
    // ...and show once it has passed.
    clock.advance(OWN_COUNT_HOLD_MS);
    expect((await inFav(erin, v.vid, 'like')).like_count).toBe(330);
  });

  it('writes nothing on the video item: the like, the comment and the dislike write their actor own items', async () => {
    const v = await popularVideo(340, 0);
    const fred = users[35]!;
    const video = videoKeys.video(v.vid);
    for (const act of [() => like(fred, v.vid), () => comment(fred, v.vid, 'Nice'), () => dislike(fred, v.vid)]) {
      const { requests } = await recordRequests(act);
      const written = requests
        .filter((q) => /^(Put|Update|Delete|TransactWrite|BatchWrite)/.test(q.command))
        .flatMap((q) => (q.command.startsWith('TransactWrite') ? (q.input.TransactItems as Record<string, WriteOp>[]).flatMap((t) => Object.entries(t).filter(([kind]) => kind !== 'ConditionCheck').map(([, op]) => op)) : [q.input as WriteOp]))
        .map((op) => op.Key ?? op.Item);
      expect(written.length).toBeGreaterThan(0);
      expect(written).not.toContainEqual(expect.objectContaining(video));
    }
  });
});

type WriteOp = { Key?: { pk: string; sk: string }; Item?: { pk: string; sk: string } };
