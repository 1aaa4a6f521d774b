import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { DEMO_AUTHORS, demoVideos, seedDemoCatalog } from '../../local/demo-catalog.js';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import type { PublicUser } from '../../lib/entities/accounts/accounts.js';
import { accountKeys, personIdOf } from '../../lib/entities/accounts/accounts.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { followKeys } from '../../lib/entities/social/follows.js';
import { MAX_BLOCKS } from '../../lib/entities/social/blocks.js';
import { blockKeys } from '../../lib/entities/social/block-items.js';
import { MAX_REQUESTS } from '../../lib/features/recommend/feed-context.js';
import { recordRequests } from '../support/db-requests.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';

/** Blocking (docs/moderation.md, "Blocking"; docs/hub-api.md, "block_user / unblock_user", "get_blocked"). */
const CATALOG_SIZE = 120;
const catalog = demoVideos(CATALOG_SIZE, 0);
const BLOCKED_AUTHOR = DEMO_AUTHORS[0].openid;
const blockedVids = new Set(catalog.filter((v) => v.author_openid === BLOCKED_AUTHOR).map((v) => v.vid));
const otherVid = catalog.find((v) => v.author_openid !== BLOCKED_AUTHOR)!.vid;
const blockedVid = [...blockedVids][0]!;

type User = { openid: string; token: string };
interface Feed {
  list: VideoView[];
  fav_index: string;
}
interface BlockAnswer {
  block_user: string;
  blocked: boolean;
}
interface BlockedPage {
  list: { openid: string; nickname: string; blocked_at: string; state: string }[];
  total: number;
  next_offset: number;
}
interface RelationPage {
  list: PublicUser[];
  total: number;
  next_offset: number;
}
interface CommentPage {
  list: CommentView[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let pool: TestAccount[];
const people = () => pool.splice(0, 1)[0]!;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  expect(await seedDemoCatalog(CATALOG_SIZE)).toBe(CATALOG_SIZE);
  pool = await putTestAccounts(90);
}, 120_000);
afterAll(async () => stack?.stop());
afterEach(() => clock.reset());

const as = (u: User) => ({ openid: u.openid, token: u.token });
const block = (u: User, target: string) => hub<BlockAnswer>(api, 'block_user', { ...as(u), block_user: target });
const unblock = (u: User, target: string) => hub<BlockAnswer>(api, 'unblock_user', { ...as(u), block_user: target });
const blockedList = (u: User, offset = 0) => hub<BlockedPage>(api, 'get_blocked', { ...as(u), offset });
const follow = (u: User, target: string) => hub<{ following: boolean; follower_count: number }>(api, 'follow_user', { ...as(u), follow_user: target });
const followers = (u: User, whose: string) => hub<RelationPage>(api, 'get_follower', { ...as(u), watch_list: whose, offset: 0 });
const following = (u: User, whose: string) => hub<RelationPage>(api, 'get_follow', { ...as(u), watch_list: whose, offset: 0 });
const comment = (u: User, vid: string, content: string) => hub<{ comment: CommentView; comment_count: number }>(api, 'comment_set', { ...as(u), vid, content });
const comments = (u: User, vid: string, page = 1) => hub<CommentPage>(api, 'comment_get', { ...as(u), vid, page, d: '' });
const fav = (u: User, watch_list: string, view = '') => hub<{ profile: Record<string, unknown>; list: VideoView[]; next_id: number }>(api, 'get_fav', { ...as(u), next_id: 0, fav_index: 50, watch_list, view, q: '' });
const feed = (u: User, params: Record<string, string | number>) => hub<Feed>(api, 'get_next_list', { ...as(u), ...params });
const counts = async (openid: string) => {
  const a = (await getHubItem<{ follow_count?: number; follower_count?: number }>(accountKeys.account(openid)))!;
  return { follow_count: a.follow_count ?? 0, follower_count: a.follower_count ?? 0 };
};
const exists = async (key: { pk: string; sk: string }) => (await getHubItem(key)) !== undefined;

/** Every page of a new/hot/q walk: the vids in order. */
async function walkAll(u: User, params: Record<string, string | number>): Promise<string[]> {
  const vids: string[] = [];
  let cursor = '';
  for (let i = 0; i < 60; i++) {
    const res = await feed(u, { ...params, watch_count: 20, fav_index: cursor });
    expect(res.status).toBe(200);
    vids.push(...res.data.list.map((v) => v.vid));
    cursor = res.data.fav_index;
    if (!cursor) return vids;
  }
  throw new Error('the cursor never ended');
}

/** Rec calls, each reporting the previous answer as viewed, until the catalog is covered: every vid served. */
async function recServed(u: User, extra: Record<string, string | number> = {}): Promise<string[]> {
  const served: string[] = [];
  let viewed: string[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await feed(u, { watch_count: 20, view_list: viewed.join(','), ...extra });
    expect(res.status).toBe(200);
    viewed = res.data.list.map((v) => v.vid);
    served.push(...viewed);
  }
  return served;
}

const byBlocked = (vids: string[]) => vids.filter((vid) => blockedVids.has(vid));

describe('block_user / unblock_user', () => {
  it('answers {block_user, blocked}, is idempotent both ways and keeps the first blocked_at', async () => {
    const [a, b] = [people(), people()];
    const first = await block(a, b.openid);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ code: 0, data: { block_user: b.openid, blocked: true } });
    const at = (await blockedList(a)).data.list[0]!.blocked_at;
    clock.advance(60_000);
    expect((await block(a, b.openid)).data).toEqual({ block_user: b.openid, blocked: true });
    const list = await blockedList(a);
    expect(list.data).toEqual({ list: [{ openid: b.openid, nickname: b.nickname, blocked_at: at, state: 'active' }], total: 1, next_offset: -1 });

    expect((await unblock(a, b.openid)).body).toEqual({ code: 0, data: { block_user: b.openid, blocked: false } });
    expect((await unblock(a, b.openid)).data).toEqual({ block_user: b.openid, blocked: false });
    expect((await blockedList(a)).data).toEqual({ list: [], total: 0, next_offset: -1 });
    expect(await exists(blockKeys.blockList(a.openid))).toBe(false);
    expect(await exists(blockKeys.blockedBy(b.openid, a.openid))).toBe(false);
  });

  it('refuses yourself (400 naming block_user), an unknown or deleted account (404) and a missing target (400)', async () => {
    const [a, gone] = [people(), people()];
    for (const op of ['block_user', 'unblock_user']) {
      const self = await hub(api, op, { ...as(a), block_user: a.openid });
      expect(self.status).toBe(400);
      expect(self.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"block_user"') });
      expect((await hub(api, op, { ...as(a), block_user: 'u_nobody' })).status).toBe(404);
      const missing = await hub(api, op, { ...as(a) });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"block_user"') });
    }
    expect((await hub(api, 'delete_account', { ...as(gone), confirm: 'delete' })).status).toBe(200);
    expect((await block(a, gone.openid)).status).toBe(404);
    expect(await exists(blockKeys.blockList(a.openid))).toBe(false);
  });

  it(`refuses a block past ${MAX_BLOCKS} accounts with 409, changing nothing`, async () => {
    const [a, b] = [people(), people()];
    const full = Object.fromEntries(Array.from({ length: MAX_BLOCKS }, (_, i) => [`u_filler${i}`, clock.nowIso()]));
    await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...blockKeys.blockList(a.openid), entity: 'blocks', openid: a.openid, blocked: full, version: 1 } }));
    expect((await follow(a, b.openid)).status).toBe(200);
    const refused = await block(a, b.openid);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ code: 'LIMIT_EXCEEDED', error: expect.stringContaining(String(MAX_BLOCKS)) });
    expect(await exists(followKeys.follows(a.openid, b.openid))).toBe(true);
    expect(await exists(blockKeys.blockedBy(b.openid, a.openid))).toBe(false);
    expect((await blockedList(a)).data.total).toBe(MAX_BLOCKS);
  });
});

describe('get_blocked', () => {
  it('lists the blocked accounts newest block first, 20 a page, with next_offset', async () => {
    const a = people();
    const targets = Array.from({ length: 23 }, () => people());
    for (const t of targets) {
      expect((await block(a, t.openid)).status).toBe(200);
      clock.advance(1000);
    }
    const first = await blockedList(a);
    expect(first.data.total).toBe(23);
    expect(first.data.next_offset).toBe(20);
    const second = await blockedList(a, 20);
    expect(second.data.next_offset).toBe(-1);
    const listed = [...first.data.list, ...second.data.list];
    expect(listed.map((e) => e.openid)).toEqual([...targets].reverse().map((t) => t.openid));
    expect(listed.map((e) => e.nickname)).toEqual([...targets].reverse().map((t) => t.nickname));
    const times = listed.map((e) => e.blocked_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect((await blockedList(a, 23)).data).toEqual({ list: [], total: 23, next_offset: -1 });
    const bad = await hub(api, 'get_blocked', { ...as(a), offset: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"offset"') });
  });
});

describe('follows end both ways at the block, counts exact', () => {
  it('removes both relations in the block, and neither comes back on unblock', async () => {
    const [a, b, c] = [people(), people(), people()];
    expect((await follow(a, b.openid)).status).toBe(200);
    expect((await follow(b, a.openid)).status).toBe(200);
    expect((await follow(c, a.openid)).status).toBe(200);
    expect((await follow(c, b.openid)).status).toBe(200);
    expect(await counts(a.openid)).toEqual({ follow_count: 1, follower_count: 2 });
    expect(await counts(b.openid)).toEqual({ follow_count: 1, follower_count: 2 });

    expect((await block(a, b.openid)).status).toBe(200);
    expect(await counts(a.openid)).toEqual({ follow_count: 0, follower_count: 1 });
    expect(await counts(b.openid)).toEqual({ follow_count: 0, follower_count: 1 });
    for (const key of [followKeys.follows(a.openid, b.openid), followKeys.followedBy(b.openid, a.openid), followKeys.follows(b.openid, a.openid), followKeys.followedBy(a.openid, b.openid)]) {
      expect(await exists(key)).toBe(false);
    }
    expect((await following(a, '')).data).toMatchObject({ list: [], total: 0 });
    expect((await followers(a, '')).data.list.map((u) => u.openid)).toEqual([c.openid]);
    expect((await following(b, '')).data).toMatchObject({ list: [], total: 0 });
    expect((await followers(b, '')).data.list.map((u) => u.openid)).toEqual([c.openid]);

    expect((await unblock(a, b.openid)).status).toBe(200);
    expect(await counts(a.openid)).toEqual({ follow_count: 0, follower_count: 1 });
    expect(await exists(followKeys.follows(a.openid, b.openid))).toBe(false);
    expect(await exists(followKeys.follows(b.openid, a.openid))).toBe(false);
    // Unblocked: both may follow again.
    expect((await follow(b, a.openid)).status).toBe(200);
    expect((await follow(a, b.openid)).status).toBe(200);
    expect(await counts(a.openid)).toEqual({ follow_count: 1, follower_count: 2 });
  });

  it('ends a follow racing the block: whatever commits first, no relation is left and the counts are exact', async () => {
    for (let i = 0; i < 6; i++) {
      const [a, b] = [people(), people()];
      const [blocked, followed] = await Promise.all([block(a, b.openid), follow(b, a.openid)]);
      expect(blocked.status).toBe(200);
      expect([200, 403]).toContain(followed.status);
      expect(await exists(followKeys.follows(b.openid, a.openid))).toBe(false);
      expect(await exists(followKeys.followedBy(a.openid, b.openid))).toBe(false);
      expect(await counts(a.openid)).toEqual({ follow_count: 0, follower_count: 0 });
      expect(await counts(b.openid)).toEqual({ follow_count: 0, follower_count: 0 });
    }
  });
});

describe('what the blocked account can no longer do (403), and what it still sees', () => {
  it('cannot follow the blocker (a message that does not say why); the blocker must unblock to follow', async () => {
    const [a, b] = [people(), people()];
    expect((await block(a, b.openid)).status).toBe(200);
    const refused = await follow(b, a.openid);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 'FORBIDDEN', error: 'You cannot follow this user' });
    expect(JSON.stringify(refused.body)).not.toMatch(/block/i);
    const own = await follow(a, b.openid);
    expect(own.status).toBe(403);
    expect(own.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining('unblock_user') });
    expect(await exists(followKeys.follows(b.openid, a.openid))).toBe(false);
    expect(await exists(followKeys.follows(a.openid, b.openid))).toBe(false);
    expect(await counts(a.openid)).toEqual({ follow_count: 0, follower_count: 0 });
    // The numbers the refused follows took were given back: the account items are as they were.
    for (const u of [a, b]) expect(await getHubItem(accountKeys.account(u.openid))).toMatchObject({ follow_seq: 0, follower_seq: 0, follow_count: 0, follower_count: 0 });
  });

  it("cannot comment on the blocker's videos (403, nothing stored); others' videos still take its comments", async () => {
    const [a, b, c] = [people(), people(), people()];
    const mine = await putTestVideo(a.openid);
    const theirs = await putTestVideo(c.openid);
    expect((await comment(b, mine.vid, 'before the block')).status).toBe(200);
    expect((await block(a, b.openid)).status).toBe(200);
    const refused = await comment(b, mine.vid, 'after the block');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 'FORBIDDEN', error: 'You cannot comment on this video' });
    expect((await comments(c, mine.vid)).data.total).toBe(1);
    expect((await comment(b, theirs.vid, 'elsewhere')).status).toBe(200);
    expect((await unblock(a, b.openid)).status).toBe(200);
    expect((await comment(b, mine.vid, 'after the block')).status).toBe(200);
  });

  it("sees the blocker's public content as before: nothing in its answers tells of the block", async () => {
    const [a, b] = [people(), people()];
    const video = await putTestVideo(a.openid);
    expect((await comment(a, video.vid, 'my own booth')).status).toBe(200);
    const seen = async () => ({
      profile: (await fav(b, 'like', a.openid)).body,
      comments: (await comments(b, video.vid)).body,
      followers: (await followers(b, a.openid)).body,
      following: (await following(b, a.openid)).body,
      own: (await fav(b, 'like')).body,
      blocked: (await blockedList(b)).body,
    });
    const before = await seen();
    expect((await block(a, b.openid)).status).toBe(200);
    const after = await seen();
    expect(after).toEqual(before);
    expect(JSON.stringify(Object.values(after))).not.toMatch(/block/i);
    // The blocker's videos still reach it in the feed.
    expect(await walkAll(b, { order: 'new' })).toContain(video.vid);
  });
});

describe("the blocker no longer sees the blocked account's content", () => {
  let alice: User;
  let control: User;
  beforeAll(async () => {
    [alice, control] = [people(), people()];
    expect((await block(alice, BLOCKED_AUTHOR)).status).toBe(200);
  });

  it.each([['new'], ['hot']])('order=%s: no video of it on any page, while every other video comes', async (order) => {
    const mine = await walkAll(alice, { order });
    const theirs = await walkAll(control, { order });
    expect(byBlocked(theirs).length).toBe(blockedVids.size);
    expect(byBlocked(mine)).toEqual([]);
    expect(new Set(mine)).toEqual(new Set(theirs.filter((vid) => !blockedVids.has(vid))));
  });

  it('search q: none of its videos match', async () => {
    const term = catalog.find((v) => v.vid === blockedVid)!.tags![0]!;
    const theirs = await walkAll(control, { q: term });
    expect(byBlocked(theirs).length).toBeGreaterThan(0);
    const mine = await walkAll(alice, { q: term });
    expect(byBlocked(mine)).toEqual([]);
    expect(mine.length).toBe(theirs.length - byBlocked(theirs).length);
  });

  it('rec: never one of its videos, call after call', async () => {
    const [me, them] = [people(), people()];
    expect((await block(me, BLOCKED_AUTHOR)).status).toBe(200);
    expect(byBlocked(await recServed(them)).length).toBeGreaterThan(0);
    expect(byBlocked(await recServed(me))).toEqual([]);
  });

  it('"more like this" of one of its videos: none of its others', async () => {
    const theirs = await feed(control, { vid: blockedVid, watch_count: 20 });
    expect(byBlocked(theirs.data.list.map((v) => v.vid)).length).toBeGreaterThan(0);
    const mine = await feed(alice, { vid: blockedVid, watch_count: 20 });
    expect(mine.status).toBe(200);
    expect(mine.data.list.length).toBeGreaterThan(0);
    expect(byBlocked(mine.data.list.map((v) => v.vid))).toEqual([]);
  });

  it('opened from a share of its video: the shared video does not lead (rec, new, more like this)', async () => {
    const sharer = people();
    const shared = await hub<{ shareid: string }>(api, 'sharetext', { ...as(sharer), vid: blockedVid, d: '', locale: 'en', country: '' });
    expect(shared.status).toBe(200);
    for (const extra of [{}, { order: 'new' }, { vid: otherVid }] as Record<string, string>[]) {
      const theirs = await feed(people(), { shareid: shared.data.shareid, ...extra });
      expect(theirs.data.list[0]!.vid).toBe(blockedVid);
      const mine = await feed(alice, { shareid: shared.data.shareid, cmd: 'refresh', ...extra });
      expect(mine.status).toBe(200);
      expect(mine.data.list.length).toBeGreaterThan(0);
      expect(byBlocked(mine.data.list.map((v) => v.vid))).toEqual([]);
    }
  });

  it('the block list costs no request of the feed: it comes with the first Query, within the 8-request budget', async () => {
    for (const extra of [{}, { order: 'new' }, { order: 'hot' }, { q: 'robot' }, { vid: otherVid }] as Record<string, string>[]) {
      const { result, requests } = await recordRequests(() => feed(alice, { watch_count: 20, ...extra }));
      expect(result.status).toBe(200);
      expect(requests.length).toBeLessThanOrEqual(MAX_REQUESTS);
      const listKey = JSON.stringify(blockKeys.blockList(alice.openid));
      expect(requests.filter((r) => JSON.stringify(r.input).includes(listKey))).toEqual([]);
      const first = requests.find((r) => r.command === 'QueryCommand' && (r.input.ExpressionAttributeValues as Record<string, unknown>)[':pk'] === accountKeys.account(alice.openid).pk)!;
      expect((first.input.ExpressionAttributeValues as Record<string, unknown>)[':from']).toBe(blockKeys.blockList(alice.openid).sk);
    }
  });

  it('get_fav: out of the like, history and comment lists, and of another user\'s like list', async () => {
    const [me, friend] = [people(), people()];
    for (const vid of [blockedVid, otherVid]) {
      expect((await hub(api, 'like', { ...as(me), vid })).status).toBe(200);
      expect((await hub(api, 'like', { ...as(friend), vid })).status).toBe(200);
      expect((await comment(me, vid, `about ${vid}`)).status).toBe(200);
    }
    expect((await feed(me, { view_list: `${blockedVid},${otherVid}`, watch_count: 1 })).status).toBe(200);
    const lists = async () => ({
      like: (await fav(me, 'like')).data.list.map((v) => v.vid),
      history: (await fav(me, 'history')).data.list.map((v) => v.vid),
      comment: (await fav(me, 'comment')).data.list.map((v) => v.vid),
      friend: (await fav(me, 'like', friend.openid)).data.list.map((v) => v.vid),
    });
    const before = await lists();
    for (const list of Object.values(before)) expect(list).toContain(blockedVid);
    expect((await block(me, BLOCKED_AUTHOR)).status).toBe(200);
    const after = await lists();
    for (const [name, list] of Object.entries(after)) expect(list, name).toEqual(before[name as keyof typeof before].filter((vid) => vid !== blockedVid));
    // With a keyword too.
    const title = catalog.find((v) => v.vid === blockedVid)!.title;
    const searched = await hub<{ list: VideoView[] }>(api, 'get_fav', { ...as(me), next_id: 0, fav_index: 0, watch_list: 'like', view: '', q: title });
    expect(searched.data.list.map((v) => v.vid)).not.toContain(blockedVid);
    // The friend's own lists are unchanged.
    expect((await fav(friend, 'like')).data.list.map((v) => v.vid)).toContain(blockedVid);
  });
});

describe("comment_get: the blocked account's comments vanish for the blocker", () => {
  it('leaves them out; total, has_more and the page numbering stay, comment_count is unchanged', async () => {
    const [a, b, c, d] = [people(), people(), people(), people()];
    const video = await putTestVideo(c.openid);
    // 2 comments of c, then 20 of b (newest): b's fill page 1 exactly.
    for (const text of ['c one', 'c two']) expect((await comment(c, video.vid, text)).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      if (i % 10 === 0) clock.advance(61_000);
      expect((await comment(b, video.vid, `b ${i}`)).status).toBe(200);
    }
    expect((await block(a, b.openid)).status).toBe(200);
    const page1 = await comments(a, video.vid, 1);
    expect(page1.data).toEqual({ list: [], page: 1, page_size: 20, total: 22, has_more: true });
    const page2 = await comments(a, video.vid, 2);
    expect(page2.data.list.map((x) => x.content)).toEqual(['c two', 'c one']);
    expect(page2.data).toMatchObject({ total: 22, has_more: false });
    // Others see every comment.
    expect((await comments(d, video.vid, 1)).data.list).toHaveLength(20);
    expect((await getHubItem<{ comment_count: number }>(videoKeys.video(video.vid)))!.comment_count).toBe(22);
    // Unblocked: back.
    expect((await unblock(a, b.openid)).status).toBe(200);
    expect((await comments(a, video.vid, 1)).data.list).toHaveLength(20);
  });
});

describe("get_follow / get_follower: the blocked account vanishes from others' lists the blocker reads", () => {
  it('is left out, total stays the list owner count', async () => {
    const [a, b, c, d] = [people(), people(), people(), people()];
    for (const u of [b, d]) expect((await follow(u, c.openid)).status).toBe(200);
    expect((await follow(c, b.openid)).status).toBe(200);
    expect((await block(a, b.openid)).status).toBe(200);
    expect((await followers(a, c.openid)).data).toMatchObject({ list: [expect.objectContaining({ openid: d.openid })], total: 2 });
    expect((await followers(a, c.openid)).data.list).toHaveLength(1);
    expect((await following(a, c.openid)).data).toMatchObject({ list: [], total: 1 });
    expect((await followers(d, c.openid)).data.list).toHaveLength(2);
  });
});

describe('account deletion and the data export', () => {
  it("exports the account's own blocks, not who blocked it", async () => {
    const [a, b, c] = [people(), people(), people()];
    expect((await block(a, b.openid)).status).toBe(200);
    expect((await block(a, c.openid)).status).toBe(200);
    expect((await block(c, a.openid)).status).toBe(200);
    const records = async (u: User) => {
      const all: { type: string; openid?: string; blocked_at?: string }[] = [];
      let cursor: string | null = '';
      for (let i = 0; cursor !== null && i < 30; i++) {
        const res: Awaited<ReturnType<typeof api.get<{ records: typeof all; next_cursor: string | null }>>> = await api.get(`/api/v1/me/data${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { token: u.token });
        expect(res.status).toBe(200);
        all.push(...res.data.records);
        cursor = res.data.next_cursor;
      }
      expect(cursor).toBeNull();
      return all.filter((r) => r.type === 'block');
    };
    const mine = await records(a);
    expect(mine.map((r) => r.openid).sort()).toEqual([b.openid, c.openid].sort());
    for (const r of mine) expect(r.blocked_at).toEqual(expect.any(String));
    expect(await records(b)).toEqual([]);
  });

  it("erases its own blocks (the list, the reverse and person items); its entries in the lists of those who blocked it stay, shown as deleted (the block follows the person)", async () => {
    const [x, y, z] = [people(), people(), people()];
    const personOfAccount = async (u: User) => personIdOf((await getHubItem<{ phone: string }>(accountKeys.account(u.openid)))!.phone);
    const [px, py] = [await personOfAccount(x), await personOfAccount(y)];
    expect((await block(x, y.openid)).status).toBe(200);
    expect((await block(z, x.openid)).status).toBe(200);
    clock.advance(1000);
    expect((await block(z, y.openid)).status).toBe(200);
    expect(await exists(blockKeys.personBlockedBy(py, x.openid))).toBe(true);
    expect((await hub(api, 'delete_account', { ...as(x), confirm: 'delete' })).status).toBe(200);
    await settleStreams();
    expect(await exists(blockKeys.blockList(x.openid))).toBe(false);
    expect(await exists(blockKeys.blockedBy(y.openid, x.openid))).toBe(false);
    expect(await exists(blockKeys.personBlockedBy(py, x.openid))).toBe(false);
    expect(await exists(blockKeys.blockedBy(x.openid, z.openid))).toBe(false);
    expect((await blockedList(z)).data.list.map((e) => [e.openid, e.nickname, e.state])).toEqual([
      [y.openid, y.nickname, 'active'],
      [x.openid, '', 'deleted'],
    ]);
    expect((await blockedList(z)).data.total).toBe(2);
    expect(await exists(blockKeys.blockedBy(y.openid, z.openid))).toBe(true);
    expect(await getHubItem(blockKeys.personBlockedBy(px, z.openid))).toMatchObject({ blocker: z.openid, blocked: x.openid });
  });
});
