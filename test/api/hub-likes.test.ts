import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoItem } from '../../lib/entities/catalog/video-items.js';
import { putVideo } from '../../lib/entities/catalog/videos.js';
import { LIKED_RECENT_CAP, parseFeedState } from '../../lib/features/recommend/feed-state.js';
import { exactTrend, trendUnit } from '../../lib/entities/catalog/trend.js';
import { clock } from '../../lib/platform/clock.js';
import { getHubItem, hub, putTestAccounts, putTestVideo } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { reactionKeys } from '../../lib/entities/catalog/reaction-items.js';
import { feedKeys } from '../../lib/features/recommend/feed-state.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

type User = { openid: string; token: string };
interface LikeData {
  vid: string;
  liked: true;
  like_count: number;
}
interface DislikeData {
  vid: string;
  disliked: true;
  like_count: number;
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let author: User;
let users: User[];

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  // Counters derived from the stream (like_count, comment_count, liked_count) are read after most calls.
  api = apiClient(stack.url, { settle: true });
  const accounts = await putTestAccounts(32);
  author = accounts[0]!;
  users = accounts.slice(1);
});
afterAll(async () => stack?.stop());

let n = 0;
const newVideo = async (tags = ['机器人', 'robotics']) =>
  (
    await putVideo({
      author_openid: author.openid,
      title: `Like test ${++n}`,
      description: 'A video to like',
      cover_url: 'https://cdn.example.com/c.jpg',
      video_url: 'https://cdn.example.com/v.mp4',
      duration_s: 90,
      tags,
    })
  ).video;

const like = (user: User, vid: string) => hub<LikeData>(api, 'like', { openid: user.openid, token: user.token, vid });
const dislike = (user: User, vid: string, action = 'dislike') => hub<DislikeData>(api, 'dislike', { openid: user.openid, token: user.token, vid, action });
const video = (vid: string) => getHubItem<VideoItem>(videoKeys.video(vid));
const account = (openid: string) => getHubItem<{ like_count?: number; liked_count?: number }>(accountKeys.account(openid));
const feedState = async (openid: string) => parseFeedState(await getHubItem(feedKeys.feedState(openid)), clock.now());
const tagTrend = async (vid: string, tag: string) => (await getHubItem<{ gsi3sk: number }>(videoKeys.videoTag(vid, tag)))?.gsi3sk;

describe('like', () => {
  it('counts the like on the video, both accounts, the trend and the taste, in one go', async () => {
    const [alice] = users as [User];
    const v = await newVideo();
    const before = { author: await account(author.openid), alice: await account(alice.openid), video: (await video(v.vid))! };

    const res = await like(alice, v.vid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, data: { vid: v.vid, liked: true, like_count: 1 } });

    const stored = (await video(v.vid))!;
    expect(stored.like_count).toBe(1);
    expect(stored.gsi3sk).toBeGreaterThan(before.video.gsi3sk);
    expect(await tagTrend(v.vid, '机器人')).toBeCloseTo(stored.gsi3sk, 130);
    expect(await getHubItem(reactionKeys.like(alice.openid, v.vid))).toMatchObject({ openid: alice.openid, vid: v.vid });
    expect((await account(alice.openid))?.like_count).toBe((before.alice?.like_count ?? 0) + 1);
    expect((await account(author.openid))?.liked_count).toBe((before.author?.liked_count ?? 0) + 1);
    const state = await feedState(alice.openid);
    expect(state.likedRecent).toContain(v.vid);
    expect(state.tags.get('机器人')).toBeGreaterThan(0);
  });

  it('is idempotent: liking twice is one like', async () => {
    const [, bob] = users as [User, User];
    const v = await newVideo();
    expect((await like(bob, v.vid)).data.like_count).toBe(1);
    const likesBefore = (await account(bob.openid))?.like_count;
    const again = await like(bob, v.vid);
    expect(again.status).toBe(200);
    expect(again.data).toEqual({ vid: v.vid, liked: true, like_count: 1 });
    expect((await video(v.vid))?.like_count).toBe(1);
    expect((await account(bob.openid))?.like_count).toBe(likesBefore);
  });

  it('clears a dislike of the same video', async () => {
    const [, , carol] = users as [User, User, User];
    const v = await newVideo();
    expect((await dislike(carol, v.vid)).data).toEqual({ vid: v.vid, disliked: true, like_count: 0 });
    expect((await feedState(carol.openid)).disliked.has(v.vid)).toBe(true);
    const res = await like(carol, v.vid);
    expect(res.data).toEqual({ vid: v.vid, liked: true, like_count: 1 });
    expect(await getHubItem(reactionKeys.dislike(carol.openid, v.vid))).toBeUndefined();
    expect((await feedState(carol.openid)).disliked.has(v.vid)).toBe(false);
  });

  it('adds up exactly when many accounts like one video in parallel', async () => {
    const v = await newVideo();
    const likers = users.slice(5, 30);
    const authorBefore = (await account(author.openid))?.liked_count ?? 0;
    const trendBefore = (await video(v.vid))!.gsi3sk;
    const answers = await Promise.all(likers.map((u) => like(u, v.vid)));
    expect(answers.map((a) => a.status)).toEqual(likers.map(() => 200));
    const stored = (await video(v.vid))!;
    expect(stored.like_count).toBe(likers.length);
    expect((await account(author.openid))?.liked_count).toBe(authorBefore + likers.length);
    // Every like added about one trend unit of its moment to the exact trend (the index key follows
    // at most once per interval: test/api/trend-keys.test.ts); the tag rankings hold the video's key.
    expect(exactTrend(stored) / trendUnit(clock.now())).toBeGreaterThan(trendBefore / trendUnit(clock.now()) + likers.length - 0.01);
    expect(await tagTrend(v.vid, 'robotics')).toBeCloseTo(stored.gsi3sk, 130);
  });

  it('adds one when the same like is retried in parallel', async () => {
    const [, , , dave] = users as [User, User, User, User];
    const v = await newVideo();
    const before = (await account(dave.openid))?.like_count ?? 0;
    const answers = await Promise.all(Array.from({ length: 8 }, () => like(dave, v.vid)));
    expect(answers.every((a) => a.status === 200 && a.data.liked === true)).toBe(true);
    expect((await video(v.vid))?.like_count).toBe(1);
    expect((await account(dave.openid))?.like_count).toBe(before + 1);
    // The call that stored the like answers 1; a retry answers the video's stored count, which the
    // stream processor may not have moved yet (0 or 1: lib/features/recommend/reactions.ts, shownLikes).
    const shown = answers.map((a) => a.data.like_count);
    expect(shown).toContain(1);
    expect(shown.every((n) => n === 0 || n === 1)).toBe(true);
  });
});

describe('the latest likes in the feed state', () => {
  it('stay bounded for an account that likes without ever calling get_next_list (a pipeline), the newest last', async () => {
    const liker = users[30]!;
    const vids: string[] = [];
    for (let i = 0; i < 2 * LIKED_RECENT_CAP + 5; i++) {
      const { vid } = await newVideo([`bound${i % 3}`]);
      vids.push(vid);
      expect((await hub(api, 'like', { openid: liker.openid, token: liker.token, vid })).status).toBe(200);
    }
    const state = await getHubItem<{ lr: string[] }>(feedKeys.feedState(liker.openid));
    // Exactly the latest likes' vids, in order: the like writes the list anew.
    expect(state!.lr).toEqual(vids.slice(-LIKED_RECENT_CAP));
  });
});

describe('accounts', () => {
  it('likes a video whose author has no account without inventing one', async () => {
    const [, , , , , , , grace] = users as User[] as [User, User, User, User, User, User, User, User];
    const orphan = await putTestVideo('u_goneAuthor', { tags: ['展会'] });
    const res = await like(grace, orphan.vid);
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ vid: orphan.vid, liked: true, like_count: 1 });
    expect(await getHubItem(accountKeys.account('u_goneAuthor'))).toBeUndefined();
    expect((await dislike(grace, orphan.vid)).data).toEqual({ vid: orphan.vid, disliked: true, like_count: 0 });
    expect(await getHubItem(accountKeys.account('u_goneAuthor'))).toBeUndefined();
  });

  it('answers 404 when the caller\'s own account does not exist, and changes nothing', async () => {
    const v = await newVideo();
    const ghost = { openid: 'u_ghostCaller', token: await tokenFor('u_ghostCaller') };
    const res = await like(ghost, v.vid);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    expect((await video(v.vid))?.like_count).toBe(0);
    expect(await getHubItem(reactionKeys.like(ghost.openid, v.vid))).toBeUndefined();
    expect(await getHubItem(accountKeys.account(ghost.openid))).toBeUndefined();
  });
});

describe('dislike', () => {
  it('removes the like and takes back exactly what it counted', async () => {
    const [, , , , erin] = users as [User, User, User, User, User];
    const v = await newVideo();
    const before = { video: (await video(v.vid))!, erin: (await account(erin.openid))?.like_count ?? 0, author: (await account(author.openid))?.liked_count ?? 0 };
    await like(erin, v.vid);
    const res = await dislike(erin, v.vid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, data: { vid: v.vid, disliked: true, like_count: 0 } });
    const stored = (await video(v.vid))!;
    expect(stored.like_count).toBe(0);
    expect(exactTrend(stored) / before.video.gsi3sk).toBeCloseTo(1, 9);
    expect(await getHubItem(reactionKeys.like(erin.openid, v.vid))).toBeUndefined();
    expect(await getHubItem(reactionKeys.dislike(erin.openid, v.vid))).toMatchObject({ vid: v.vid });
    expect((await account(erin.openid))?.like_count).toBe(before.erin);
    expect((await account(author.openid))?.liked_count).toBe(before.author);
    const state = await feedState(erin.openid);
    expect(state.disliked.has(v.vid)).toBe(true);
    expect(state.tags.get('机器人')).toBeLessThan(0);
  });

  it('is idempotent, also under parallel retries', async () => {
    const [, , , , , frank] = users as User[] as [User, User, User, User, User, User];
    const v = await newVideo();
    await like(users[6]!, v.vid);
    await like(frank, v.vid);
    const answers = await Promise.all(Array.from({ length: 6 }, () => dislike(frank, v.vid)));
    expect(answers.every((a) => a.status === 200 && a.data.disliked === true)).toBe(true);
    // An answer shows the count the stream has applied, less the caller's own removal: a parallel
    // retry that read the video after the winner's commit but before its removal was applied shows 2.
    expect(answers.every((a) => a.data.like_count === 1 || a.data.like_count === 2)).toBe(true);
    expect(answers.some((a) => a.data.like_count === 1)).toBe(true);
    expect((await video(v.vid))?.like_count).toBe(1);
    expect((await dislike(frank, v.vid)).data).toEqual({ vid: v.vid, disliked: true, like_count: 1 });
  });
});

describe('errors change nothing', () => {
  let v: VideoItem;
  let alice: User;
  beforeAll(async () => {
    v = await newVideo();
    alice = users[30]!;
  });

  const unchanged = async () => {
    expect((await video(v.vid))?.like_count).toBe(0);
    expect(await getHubItem(reactionKeys.like(alice.openid, v.vid))).toBeUndefined();
    expect(await getHubItem(reactionKeys.dislike(alice.openid, v.vid))).toBeUndefined();
  };

  it.each([
    ['like without vid', 'like', { vid: undefined }, 'vid'],
    ['like with an empty vid', 'like', { vid: '  ' }, 'vid'],
    ['like without openid', 'like', { openid: undefined }, 'openid'],
    ['dislike without action', 'dislike', { action: undefined }, 'action'],
    ['dislike with action=like', 'dislike', { action: 'like' }, 'action'],
    ['dislike without vid', 'dislike', { vid: undefined }, 'vid'],
  ])('%s: 400 naming the parameter', async (_label, op, override, param) => {
    const params = { openid: alice.openid, token: alice.token, vid: v.vid, ...(op === 'dislike' ? { action: 'dislike' } : {}), ...override };
    const res = await hub(api, op, params);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((res.body as { error: string }).error).toContain(`"${param}"`);
    await unchanged();
  });

  it.each(['like', 'dislike'])('%s: 401 without a token, with a bad token, with another openid\'s token', async (op) => {
    const base = { vid: v.vid, action: 'dislike' };
    const bobToken = await tokenFor(users[29]!.openid);
    for (const params of [
      { ...base, openid: alice.openid },
      { ...base, openid: alice.openid, token: 'not-a-jwt' },
      { ...base, openid: alice.openid, token: `${alice.token.slice(0, -2)}xx` },
      { ...base, openid: alice.openid, token: bobToken },
    ]) {
      const res = await hub(api, op, params);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
    await unchanged();
  });

  it.each(['like', 'dislike'])('%s: 404 for an unknown vid', async (op) => {
    const res = await hub(api, op, { openid: alice.openid, token: alice.token, vid: 'noSuchVideo', action: 'dislike' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    expect((res.body as { error: string }).error).toContain('noSuchVideo');
    expect(await getHubItem(reactionKeys.like(alice.openid, 'noSuchVideo'))).toBeUndefined();
    expect(await getHubItem(reactionKeys.dislike(alice.openid, 'noSuchVideo'))).toBeUndefined();
  });
});
