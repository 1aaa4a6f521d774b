import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { config } from '../../lib/platform/config.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import type { PublicUser } from '../../lib/entities/accounts/accounts.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { recordRequests } from '../support/db-requests.js';
import { hubSample, PLACEHOLDER_WORLD } from '../support/hub-operations.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { MINUTE_MS, pinInsideWindow } from '../support/clock-windows.js';
import { followKeys } from '../../lib/entities/social/follows.js';
import { shareKeys } from '../../lib/features/share/shares.js';
import { commentKeys } from '../../lib/entities/comments/comments.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let alice: SignedUp;
let bob: SignedUp;
let carol: SignedUp;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  // Counters derived from the stream (like_count, comment_count, liked_count) are read after most calls.
  api = apiClient(stack.url);
  alice = await signUp(api);
  bob = await signUp(api);
  carol = await signUp(api);
});
afterAll(async () => stack?.stop());
afterEach(() => clock.reset());

type User = PublicUser;
interface RelationPage {
  list: User[];
  total: number;
  next_offset: number;
}
type Comment = CommentView;
interface CommentPage {
  list: Comment[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

const as = (user: { openid: string; token: string }) => ({ openid: user.openid, token: user.token });
const account = (openid: string) => getHubItem<Record<string, number>>(accountKeys.account(openid));
const followUser = (user: { openid: string; token: string }, target: string) => hub<{ follow_user: string; following: boolean; follower_count: number }>(api, 'follow_user', { ...as(user), follow_user: target });
const unfollowUser = (user: { openid: string; token: string }, target: string) => hub<{ follow_user: string; following: boolean; follower_count: number }>(api, 'unfollow_user', { ...as(user), follow_user: target });
const followers = (user: { openid: string; token: string }, watch_list: string, offset: number) => hub<RelationPage>(api, 'get_follower', { ...as(user), watch_list, offset });
const following = (user: { openid: string; token: string }, watch_list: string, offset: number) => hub<RelationPage>(api, 'get_follow', { ...as(user), watch_list, offset });
const postComment = (user: { openid: string; token: string }, vid: string, content: string) => hub<{ comment: Comment; comment_count: number }>(api, 'comment_set', { ...as(user), vid, content });
const commentPage = (user: { openid: string; token: string }, vid: string, page: number | string) => hub<CommentPage>(api, 'comment_get', { ...as(user), vid, page, d: 'device-1' });

/** Every page of a relation list, following next_offset. */
async function allPages(fetch: (offset: number) => ReturnType<typeof followers>): Promise<User[]> {
  const users: User[] = [];
  for (let offset = 0, guard = 0; offset !== -1 && guard < 50; guard++) {
    const res = await fetch(offset);
    expect(res.status).toBe(200);
    users.push(...res.data.list);
    offset = res.data.next_offset;
  }
  return users;
}

describe('authentication of the hub operations', () => {
  // Every operation that requires a credential, with parameters that pass its validation.
  const ops = Object.values(HUB_OPERATIONS)
    .filter((operation) => operation.auth === 'required')
    .map((operation) => [operation.name, hubSample(operation.name).params(PLACEHOLDER_WORLD)] as const);

  it.each(ops)('%s: no token, a bad token, or the token of another openid is 401', async (op, params) => {
    for (const token of [undefined, 'not-a-jwt', bob.token]) {
      const res = await hub(api, op, { openid: alice.openid, token, ...params });
      expect(res.status, `token ${token?.slice(0, 8)}`).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
  });

  it.each(ops)('%s: a missing openid is 400 naming openid', async (op, params) => {
    const res = await hub(api, op, { token: alice.token, ...params });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"openid"') });
  });

  it('accepts the token as Authorization: Bearer instead of the query parameter', async () => {
    const res = await hub(api, 'get_follow', { openid: alice.openid, watch_list: '', offset: 0 }, { authorization: `Bearer ${alice.token}` });
    expect(res.status).toBe(200);
  });
});

describe('follow_user / unfollow_user', () => {
  it('follows once, counts both sides, and is idempotent', async () => {
    const [fan, star] = await putTestAccounts(2);
    const first = await followUser(fan!, star!.openid);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ code: 0, data: { follow_user: star!.openid, following: true, follower_count: 1 } });
    const again = await followUser(fan!, star!.openid);
    expect(again.data).toEqual({ follow_user: star!.openid, following: true, follower_count: 1 });

    expect(await account(fan!.openid)).toMatchObject({ follow_count: 1, follower_count: 0 });
    expect(await account(star!.openid)).toMatchObject({ follow_count: 0, follower_count: 1 });
    expect(await getHubItem(followKeys.follows(fan!.openid, star!.openid))).toMatchObject({ follower: fan!.openid, followee: star!.openid });
    expect(await getHubItem(followKeys.followedBy(star!.openid, fan!.openid))).toMatchObject({ follower: fan!.openid, followee: star!.openid });

    const off = await unfollowUser(fan!, star!.openid);
    expect(off.body).toEqual({ code: 0, data: { follow_user: star!.openid, following: false, follower_count: 0 } });
    expect((await unfollowUser(fan!, star!.openid)).data).toEqual({ follow_user: star!.openid, following: false, follower_count: 0 });
    expect(await account(fan!.openid)).toMatchObject({ follow_count: 0 });
    expect(await account(star!.openid)).toMatchObject({ follower_count: 0 });
    expect(await getHubItem(followKeys.follows(fan!.openid, star!.openid))).toBeUndefined();
    expect(await getHubItem(followKeys.followedBy(star!.openid, fan!.openid))).toBeUndefined();
  });

  it.each([
    ['follow_user', followUser],
    ['unfollow_user', unfollowUser],
  ])('%s: self is 400, unknown is 404, missing is 400, and nothing changes', async (_op, call) => {
    const self = await call(alice, alice.openid);
    expect(self.status).toBe(400);
    expect(self.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"follow_user"') });
    const unknown = await call(alice, 'u_nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
    const missing = await hub(api, _op, as(alice));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: expect.stringContaining('"follow_user"') });
    expect(await account(alice.openid)).toMatchObject({ follow_count: 0, follower_count: 0 });
  });

  it('keeps counts exact under parallel follows, duplicates and unfollows', async () => {
    const [star, ...fans] = await putTestAccounts(9);
    // Every fan follows twice at once.
    const results = await Promise.all(fans.flatMap((fan) => [followUser(fan, star!.openid), followUser(fan, star!.openid)]));
    expect(results.every((r) => r.status === 200 && r.data.following)).toBe(true);
    expect(await account(star!.openid)).toMatchObject({ follower_count: 8 });
    for (const fan of fans) expect(await account(fan.openid)).toMatchObject({ follow_count: 1 });
    const page = await followers(star!, '', 0);
    expect(page.data.total).toBe(8);
    expect(page.data.list.map((u) => u.openid).sort()).toEqual(fans.map((f) => f.openid).sort());

    // Half unfollow, twice each, in parallel with a re-follow of the other half.
    const leaving = fans.slice(0, 4);
    await Promise.all([...leaving.flatMap((f) => [unfollowUser(f, star!.openid), unfollowUser(f, star!.openid)]), ...fans.slice(4).map((f) => followUser(f, star!.openid))]);
    expect(await account(star!.openid)).toMatchObject({ follower_count: 4 });
    const stored = await db.send(
      new QueryCommand({
        TableName: tableNames.hub,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': accountKeys.account(star!.openid).pk, ':p': 'FOLLOWER#' },
        ConsistentRead: true,
      }),
    );
    expect(stored.Items).toHaveLength(4);
  });
});

describe('get_follow / get_follower', () => {
  it('lists users newest relation first, with the relation flags, total and next_offset', async () => {
    const [dave] = await putTestAccounts(1);
    expect((await followUser(alice, bob.openid)).status).toBe(200);
    expect((await followUser(alice, carol.openid)).status).toBe(200);
    expect((await followUser(bob, alice.openid)).status).toBe(200);
    expect((await followUser(dave!, alice.openid)).status).toBe(200);

    const mine = await following(alice, '', 0);
    expect(mine.status).toBe(200);
    expect(mine.data).toEqual({
      list: [
        { openid: carol.openid, nickname: expect.any(String), signature: '', city: '', followed_by_me: true, follows_me: false },
        { openid: bob.openid, nickname: expect.any(String), signature: '', city: '', followed_by_me: true, follows_me: true },
      ],
      total: 2,
      next_offset: -1,
    });
    const fans = await followers(alice, '', 0);
    expect(fans.data.list.map((u) => u.openid)).toEqual([dave!.openid, bob.openid]);
    expect(fans.data.list[1]).toMatchObject({ followed_by_me: true, follows_me: true });
    expect(fans.data.total).toBe(2);

    // Another user's lists, with flags relative to the caller.
    const bobsFans = await followers(carol, alice.openid, 0);
    expect(bobsFans.data.list.map((u) => u.openid)).toEqual([dave!.openid, bob.openid]);
    expect(bobsFans.data.list.every((u) => !u.followed_by_me && !u.follows_me)).toBe(true);
    expect(JSON.stringify(bobsFans.body)).not.toContain('+86');
    const carolsFans = await followers(carol, '', 0);
    expect(carolsFans.data).toMatchObject({ total: 1, next_offset: -1 });
    expect(carolsFans.data.list[0]).toMatchObject({ openid: alice.openid, follows_me: true, followed_by_me: false });
  });

  it('pages 20 at a time through next_offset, at the same cost for any offset', async () => {
    const [star, ...fans] = await putTestAccounts(46);
    for (const fan of fans) expect((await followUser(fan, star!.openid)).status).toBe(200);
    const first = await followers(star!, '', 0);
    expect(first.data.list).toHaveLength(20);
    expect(first.data.total).toBe(45);
    expect(first.data.next_offset).toBe(20);
    expect(first.data.list[0]!.openid).toBe(fans[44]!.openid);
    const last = await followers(star!, '', 40);
    expect(last.data.list.map((u) => u.openid)).toEqual(fans.slice(0, 5).map((f) => f.openid).reverse());
    expect(last.data.next_offset).toBe(-1);
    expect((await followers(star!, '', 45)).data).toEqual({ list: [], total: 45, next_offset: -1 });

    const queriesAt = async (offset: number) => {
      const { requests } = await recordRequests(() => followers(star!, '', offset));
      return requests.map((r) => r.command).sort();
    };
    const atStart = await queriesAt(0);
    expect(atStart.filter((c) => c === 'QueryCommand')).toHaveLength(1);
    expect(await queriesAt(40)).toEqual(atStart);

    // After unfollows, following next_offset still visits every follower exactly once.
    for (const fan of [fans[3]!, fans[30]!, fans[44]!]) expect((await unfollowUser(fan, star!.openid)).status).toBe(200);
    const everyone = await allPages((offset) => followers(star!, '', offset));
    expect(everyone).toHaveLength(42);
    expect(new Set(everyone.map((u) => u.openid)).size).toBe(42);
    expect(everyone[0]!.openid).toBe(fans[43]!.openid);
    const bobFollows = await allPages((offset) => following(fans[0]!, '', offset));
    expect(bobFollows.map((u) => u.openid)).toEqual([star!.openid]);
  });

  it.each([
    ['missing watch_list', { offset: '0' }, 'watch_list'],
    ['missing offset', { watch_list: '' }, 'offset'],
    ['negative offset', { watch_list: '', offset: '-1' }, 'offset'],
    ['non-integer offset', { watch_list: '', offset: '1.5' }, 'offset'],
    ['text offset', { watch_list: '', offset: 'ten' }, 'offset'],
    ['a 65-character d', { watch_list: '', offset: '0', d: 'd'.repeat(65) }, 'd'],
  ])('%s is 400 naming the parameter', async (_label, params, name) => {
    for (const op of ['get_follow', 'get_follower']) {
      const res = await hub(api, op, { ...as(alice), ...params });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
    }
  });

  it('an unknown watch_list user is 404', async () => {
    for (const op of ['get_follow', 'get_follower']) {
      const res = await hub(api, op, { ...as(alice), watch_list: 'u_nobody', offset: 0 });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});

describe('comment_set', () => {
  it('stores a numbered comment, counts it on the video and answers {comment, comment_count}', async () => {
    const video = await putTestVideo(bob.openid);
    const res = await postComment(alice, video.vid, '  Great booth!\nSee you there.  ');
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      comment: { cid: expect.stringMatching(/^c_/), vid: video.vid, openid: alice.openid, nickname: expect.any(String), content: 'Great booth!\nSee you there.', created_at: expect.any(String) },
      comment_count: 1,
    });
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ comment_count: 1 });
    expect(await getHubItem(commentKeys.comment(video.vid, 1))).toMatchObject({ cid: res.data.comment.cid, openid: alice.openid, content: 'Great booth!\nSee you there.' });
    expect(await getHubItem(commentKeys.commented(alice.openid, video.vid))).toBeDefined();
    const second = await postComment(bob, video.vid, '谢谢！');
    expect(second.data.comment_count).toBe(2);
    expect(await getHubItem(commentKeys.comment(video.vid, 2))).toMatchObject({ cid: second.data.comment.cid });
  });

  it('returns the first comment for a retry within 60 s, and adds a new one after', async () => {
    const video = await putTestVideo(bob.openid);
    const first = await postComment(alice, video.vid, 'same words');
    // A retry answers the video's comment_count, which the stream processor derives (docs/data-model.md, "Counters").
    await settleStreams();
    const retry = await postComment(alice, video.vid, ' same words ');
    expect(retry.status).toBe(200);
    expect(retry.data).toEqual(first.data);
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ comment_count: 1 });
    // The same words on another video, or by another user, are other comments.
    const other = await putTestVideo(bob.openid);
    expect((await postComment(alice, other.vid, 'same words')).data.comment_count).toBe(1);
    expect((await postComment(bob, video.vid, 'same words')).data.comment_count).toBe(2);

    clock.advance(61_000);
    const later = await postComment(alice, video.vid, 'same words');
    expect(later.data.comment.cid).not.toBe(first.data.comment.cid);
    expect(later.data.comment_count).toBe(3);
  });

  it('creates one comment from parallel retries, and numbers parallel comments without gaps', async () => {
    const video = await putTestVideo(bob.openid);
    const retries = await Promise.all(Array.from({ length: 6 }, () => postComment(alice, video.vid, 'posted on a flaky network')));
    expect(retries.every((r) => r.status === 200)).toBe(true);
    expect(new Set(retries.map((r) => r.data.comment.cid)).size).toBe(1);
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ comment_count: 1 });

    const writers = await putTestAccounts(8);
    const parallel = await Promise.all(writers.map((w, i) => postComment(w, video.vid, `comment ${i}`)));
    expect(parallel.map((r) => r.status)).toEqual(writers.map(() => 200));
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ comment_count: 9 });
    const page = await commentPage(alice, video.vid, 1);
    expect(page.data.total).toBe(9);
    expect(new Set(page.data.list.map((c) => c.cid)).size).toBe(9);
    for (let seq = 1; seq <= 9; seq++) expect(await getHubItem(commentKeys.comment(video.vid, seq))).toBeDefined();
  });

  it.each([
    ['a missing content', { vid: 'VID' }, 'content'],
    ['an empty content', { vid: 'VID', content: '' }, 'content'],
    ['a blank content', { vid: 'VID', content: ' \n ' }, 'content'],
    ['1001 characters', { vid: 'VID', content: '展'.repeat(1001) }, 'content'],
    ['a control character', { vid: 'VID', content: 'bell\u0007' }, 'content'],
    ['a tab', { vid: 'VID', content: 'a\tb' }, 'content'],
    ['a missing vid', { content: 'hello' }, 'vid'],
  ])('%s is 400 naming the parameter and stores nothing', async (_label, params, name) => {
    const video = await putTestVideo(bob.openid);
    const res = await hub(api, 'comment_set', { ...as(alice), ...params, ...('vid' in params ? { vid: video.vid } : {}) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ comment_count: 0 });
  });

  it('accepts 1000 characters and rejects an unknown video with 404', async () => {
    const video = await putTestVideo(bob.openid);
    expect((await postComment(alice, video.vid, '展'.repeat(1000))).status).toBe(200);
    const unknown = await postComment(alice, 'no-such-video', 'hello');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('allows 10 comments per account per minute (429 with Retry-After) and the refused one changes nothing', async () => {
    const [writer] = await putTestAccounts(1);
    const video = await putTestVideo(bob.openid);
    pinInsideWindow(MINUTE_MS, 100);
    for (let i = 0; i < 10; i++) expect((await postComment(writer!, video.vid, `note ${i}`)).status).toBe(200);
    const refused = await postComment(writer!, video.vid, 'one too many');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ comment_count: 10 });
    // A retry of an accepted comment is not a new comment and is still answered.
    expect((await postComment(writer!, video.vid, 'note 9')).status).toBe(200);
    clock.advance(wait * 1000);
    expect((await postComment(writer!, video.vid, 'one too many')).data.comment_count).toBe(11);
  });
});

describe('comment_get', () => {
  it('pages newest first, 20 per page, with one Query whatever the page', async () => {
    const video = await putTestVideo(bob.openid);
    const writers = await putTestAccounts(5);
    for (let i = 1; i <= 45; i++) expect((await postComment(writers[i % 5]!, video.vid, `comment number ${i}`)).status).toBe(200);

    const first = await commentPage(alice, video.vid, 1);
    expect(first.status).toBe(200);
    expect(first.data).toMatchObject({ page: 1, page_size: 20, total: 45, has_more: true });
    expect(first.data.list.map((c) => c.content)).toEqual(Array.from({ length: 20 }, (_, i) => `comment number ${45 - i}`));
    expect(first.data.list[0]).toEqual({ cid: expect.any(String), vid: video.vid, openid: writers[0]!.openid, nickname: writers[0]!.nickname, content: 'comment number 45', created_at: expect.any(String) });

    const third = await commentPage(alice, video.vid, 3);
    expect(third.data.list.map((c) => c.content)).toEqual(['comment number 5', 'comment number 4', 'comment number 3', 'comment number 2', 'comment number 1']);
    expect(third.data).toMatchObject({ page: 3, total: 45, has_more: false });
    expect((await commentPage(alice, video.vid, 4)).data).toEqual({ list: [], page: 4, page_size: 20, total: 45, has_more: false });

    const commands = async (page: number) => (await recordRequests(() => commentPage(alice, video.vid, page))).requests.map((r) => r.command).sort();
    const page1 = await commands(1);
    // Page 1 adds one Query: the caller's own held comments on the video (docs/moderation.md, "Filter").
    expect(page1.filter((c) => c === 'QueryCommand')).toHaveLength(2);
    const page3 = await commands(3);
    expect(page3.filter((c) => c === 'QueryCommand')).toHaveLength(1);
    expect(await commands(2)).toEqual(page3);
  });

  it('shows the current nickname of the author', async () => {
    const [writer] = await putTestAccounts(1);
    const video = await putTestVideo(bob.openid);
    await postComment(writer!, video.vid, 'before the rename');
    expect((await hub(api, 'change_nickname', { ...as(writer!), nickname: '新名字' })).status).toBe(200);
    expect((await commentPage(alice, video.vid, 1)).data.list[0]).toMatchObject({ nickname: '新名字', content: 'before the rename' });
  });

  it('answers an empty first page for a video without comments', async () => {
    const video = await putTestVideo(bob.openid);
    expect((await commentPage(alice, video.vid, 1)).data).toEqual({ list: [], page: 1, page_size: 20, total: 0, has_more: false });
  });

  it.each([
    ['page 0', { page: '0', d: '' }, 'page'],
    ['a negative page', { page: '-1', d: '' }, 'page'],
    ['a missing page', { d: '' }, 'page'],
    ['a non-integer page', { page: '1.5', d: '' }, 'page'],
    ['a missing d', { page: '1' }, 'd'],
  ])('%s is 400 naming the parameter', async (_label, params, name) => {
    const video = await putTestVideo(bob.openid);
    const res = await hub(api, 'comment_get', { ...as(alice), vid: video.vid, ...params });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
  });

  it('an unknown video is 404', async () => {
    const res = await commentPage(alice, 'no-such-video', 1);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('sharetext', () => {
  const share = (params: Record<string, string>) => hub<{ text: string; url: string; shareid: string }>(api, 'sharetext', { openid: alice.openid, d: 'device-1', locale: 'zh-CN', country: 'CN', ...params });

  it('records a share, counts it on the video and answers {text, url, shareid} without a token (attributed to nobody)', async () => {
    const video = await putTestVideo(bob.openid, { title: '上海车展 2026' });
    const res = await share({ vid: video.vid });
    expect(res.status).toBe(200);
    const { text, url, shareid } = res.data;
    expect(shareid).toMatch(/^[A-Za-z0-9]{8,}$/);
    expect(url).toBe(`${config.SHARE_BASE_URL}/s/${shareid}`);
    expect(text).toContain('上海车展 2026');
    expect(text).toContain(url);
    expect(text).toMatch(/[推荐视频]/);
    const stored = await getHubItem(shareKeys.share(shareid));
    expect(stored).toMatchObject({ vid: video.vid, d: 'device-1', locale: 'zh-CN', country: 'CN' });
    expect(stored).not.toHaveProperty('openid');
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ share_count: 1 });

    // The same request again (a retry, or a repeat the same UTC day) is the same share; another
    // device is another share, not counted again from the same network that day (docs/hub-api.md,
    // sharetext).
    expect((await share({ vid: video.vid })).data.shareid).toBe(shareid);
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ share_count: 1 });
    const other = await share({ vid: video.vid, d: 'device-2', locale: 'en-US', country: 'us' });
    expect(other.data.shareid).not.toBe(shareid);
    expect(other.data.text).toBe(`Watch "上海车展 2026" on expohub: ${other.data.url}`);
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ share_count: 1 });
  });

  it('writes English for a non-Chinese or empty locale', async () => {
    const video = await putTestVideo(bob.openid, { title: 'Canton Fair' });
    for (const locale of ['', 'fr', 'en-GB']) {
      const res = await share({ vid: video.vid, locale, country: '', d: `d-${locale}` });
      expect(res.status).toBe(200);
      expect(res.data.text).toMatch(/^Watch "Canton Fair" on expohub: /);
    }
    expect((await share({ vid: video.vid, locale: 'zh-Hant-TW', d: 'tw' })).data.text).toContain('推荐');
  });

  it.each([
    ['an invalid locale', { locale: 'not a locale' }, 'locale'],
    ['an unknown country', { country: 'XX' }, 'country'],
    ['a three-letter country', { country: 'CHN' }, 'country'],
    ['a missing d', { d: undefined as unknown as string }, 'd'],
    ['a missing locale', { locale: undefined as unknown as string }, 'locale'],
    ['a missing openid', { openid: undefined as unknown as string }, 'openid'],
  ])('%s is 400 naming the parameter and records nothing', async (_label, params, name) => {
    const video = await putTestVideo(bob.openid);
    const res = await share({ vid: video.vid, ...params });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ share_count: 0 });
  });

  it('an unknown video is 404', async () => {
    const res = await share({ vid: 'no-such-video' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('an access key on the hub', () => {
  it('acts as its user', async () => {
    const created = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: await tokenFor(carol.openid), body: { name: 'hub script' } });
    expect(created.status).toBe(201);
    const res = await hub(api, 'get_follower', { openid: carol.openid, watch_list: '', offset: 0 }, { authorization: `Bearer ${created.data.api_key}` });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ total: expect.any(Number) });
  });

  it('is refused in the token query parameter (401, without a lookup), where a JWT is accepted', async () => {
    const created = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: await tokenFor(carol.openid), body: { name: 'url script' } });
    expect(created.status).toBe(201);
    const key = created.data.api_key;
    for (const [op, params] of [
      ['get_follower', { watch_list: '', offset: 0 }],
      ['get_next_list', {}],
      ['change_city', { city: 'Hangzhou' }],
    ] as const) {
      const res = await hub(api, op, { openid: carol.openid, token: key, ...params });
      expect(res.status, op).toBe(401);
      expect(res.body).toEqual({ code: 'AUTH_ERROR', error: expect.stringContaining('Authorization header') });
      expect(JSON.stringify(res.body)).not.toContain(key);
    }
    // Even alongside a valid Authorization header: what the URL carries decides.
    const both = await hub(api, 'get_follower', { openid: carol.openid, token: key, watch_list: '', offset: 0 }, { authorization: `Bearer ${key}` });
    expect(both.status).toBe(401);
    const jwt = await hub(api, 'get_follower', { openid: carol.openid, token: await tokenFor(carol.openid), watch_list: '', offset: 0 });
    expect(jwt.status).toBe(200);
  });
});
