import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { demoVideos, seedDemoCatalog } from '../../local/demo-catalog.js';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import { matchesTerm, normalizeSearchText } from '../../lib/entities/catalog/search-index.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { LIKED_RECENT_CAP, parseFeedState } from '../../lib/features/recommend/feed-state.js';
import { deviceFeedState } from '../../lib/features/recommend/sources.js';
import { MAX_REQUESTS } from '../../lib/features/recommend/feed-context.js';
import { recordRequests } from '../support/db-requests.js';
import { hub, putTestAccounts, putTestSeen } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { SHARE_LIFETIME_S } from '../../lib/features/share/shares.js';
import { feedKeys } from '../../lib/features/recommend/feed-state.js';

type User = { openid: string; token: string };
interface Feed {
  list: VideoView[];
  fav_index: string;
}

const CATALOG_SIZE = 120;
// The demo catalog is deterministic: its texts, tags and authors are known here without reading it.
const catalog = demoVideos(CATALOG_SIZE, 0);
const allVids = new Set(catalog.map((v) => v.vid));

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let users: User[];
let nextUser = 0;
const newUser = () => users[nextUser++]!;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  expect(await seedDemoCatalog(CATALOG_SIZE)).toBe(CATALOG_SIZE);
  users = await putTestAccounts(19);
});
afterAll(async () => stack?.stop());

const feed = (params: Record<string, string | number | undefined>, user?: User) =>
  hub<Feed>(api, 'get_next_list', { openid: user?.openid ?? 'anonymous-reader', ...(user ? { token: user.token } : {}), ...params });
const vids = (res: { data: Feed }) => res.data.list.map((v) => v.vid);
const expectNoDuplicates = (list: string[]) => expect(new Set(list).size).toBe(list.length);

/** Follows fav_index to the end; returns every page's vids. */
async function walkAll(params: Record<string, string | number | undefined>, user?: User, videos: VideoView[] = []): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor = '';
  for (let i = 0; i < 50; i++) {
    const res = await feed({ ...params, fav_index: cursor }, user);
    expect(res.status).toBe(200);
    pages.push(vids(res));
    videos.push(...res.data.list);
    cursor = res.data.fav_index;
    if (!cursor) return pages;
  }
  throw new Error('the cursor never ended');
}

describe('answer shape and parameters', () => {
  it('gives an anonymous caller 10 videos in the contract shape, without liked/disliked', async () => {
    const res = await feed({});
    expect(res.status).toBe(200);
    expect(res.data.list).toHaveLength(10);
    expectNoDuplicates(vids(res));
    expect(res.data.fav_index).not.toBe('');
    for (const v of res.data.list) {
      expect(Object.keys(v).sort()).toEqual(['author', 'comment_count', 'cover_url', 'created_at', 'description', 'duration_s', 'like_count', 'open_count', 'share_count', 'tags', 'title', 'vid', 'video_url'].sort());
      expect(allVids.has(v.vid)).toBe(true);
      expect(v.author.nickname).not.toBe('');
    }
  });

  it('adds liked and disliked for a signed-in caller, and marks a liked video', async () => {
    const user = newUser();
    const target = catalog[0]!.vid;
    expect((await hub(api, 'like', { openid: user.openid, token: user.token, vid: target })).status).toBe(200);
    const res = await feed({ order: 'new', watch_count: 20 }, user);
    expect(res.status).toBe(200);
    for (const v of res.data.list) expect(typeof v.liked === 'boolean' && v.disliked === false).toBe(true);
    const shared = await hub<{ shareid: string }>(api, 'sharetext', { d: 'dev', openid: user.openid, vid: target, locale: 'en', country: '' });
    const opened = await feed({ shareid: shared.data.shareid }, user);
    expect(opened.data.list[0]).toMatchObject({ vid: target, liked: true, disliked: false });
  });

  it.each([1, 7, 20])('returns watch_count=%i videos', async (count) => {
    const res = await feed({ watch_count: count });
    expect(res.status).toBe(200);
    expect(res.data.list).toHaveLength(count);
    expectNoDuplicates(vids(res));
  });

  it.each([
    ['watch_count', { watch_count: 0 }],
    ['watch_count', { watch_count: 21 }],
    ['watch_count', { watch_count: 'ten' }],
    ['watch_count', { watch_count: -1 }],
    ['order', { order: 'random' }],
    ['cmd', { cmd: 'reload' }],
    ['fav_index', { order: 'new', fav_index: 'not-a-cursor' }],
    ['view_list', { view_list: Array.from({ length: 41 }, (_, i) => `v${i}`).join(',') }],
    ['view_list', { view_list: 'ok,bad vid' }],
    ['view', { view: 'a/b' }],
    ['openid', { openid: '' }],
    ['q', { q: 'robot\u0000arm' }],
    ['d', { d: 'phone\u0007' }],
    ['shareid', { shareid: 'abc\u0085' }],
  ])('refuses a bad %s with 400 naming it', async (param, params) => {
    const res = await feed(params);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((res.body as { error: string }).error).toContain(`"${param}"`);
  });

  it.each([
    // Found by the property tests (test/e2e/properties.test.ts): {"o":"hot","w":"abc","ph":1,"p":"x","t":1e+308}, unsigned.
    ['an extreme number, unsigned', 'eyJvIjoiaG90IiwidyI6ImFiYyIsInBoIjoxLCJwIjoieCIsInQiOjFlKzMwOH0'],
    ['the smallest double, unsigned', Buffer.from(JSON.stringify({ o: 'hot', w: 'abc', ph: 1, p: 'x', t: 5e-324 })).toString('base64url')],
  ])('refuses a forged cursor (%s) with 400 in every order, signed in or not', async (_label, forged) => {
    const user = newUser();
    for (const order of ['rec', 'hot', 'new']) {
      for (const who of [undefined, user]) {
        const res = await feed({ order, fav_index: forged }, who);
        expect(res.status, order).toBe(400);
        expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"fav_index"') });
      }
    }
  });

  it('refuses a real cursor with one character changed', async () => {
    const first = await feed({ order: 'hot', watch_count: 3 });
    const cursor = first.data.fav_index;
    for (const i of [0, Math.floor(cursor.length / 2), cursor.length - 1]) {
      const altered = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      const res = await feed({ order: 'hot', fav_index: altered });
      expect(res.status).toBe(400);
    }
    expect((await feed({ order: 'hot', fav_index: cursor })).status).toBe(200);
  });

  it('refuses a cursor of another list', async () => {
    const first = await feed({ order: 'new', watch_count: 5 });
    const res = await feed({ order: 'hot', fav_index: first.data.fav_index });
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toContain('fav_index');
  });

  it('answers 401 for an invalid token or the token of another openid, 404 for an unknown vid', async () => {
    const [a, b] = [newUser(), newUser()];
    expect((await feed({ token: 'garbage' }, { openid: a.openid, token: 'garbage' })).status).toBe(401);
    expect((await feed({}, { openid: a.openid, token: b.token })).status).toBe(401);
    expect((await feed({}, { openid: a.openid, token: await tokenFor(b.openid) })).status).toBe(401);
    const unknown = await feed({ vid: 'noSuchVideo' }, a);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('rec: never disliked, seen only when nothing unseen is left', () => {
  it('never returns a disliked video, in any order', async () => {
    const user = newUser();
    const disliked = catalog.slice(0, 12).map((v) => v.vid);
    for (const vid of disliked) expect((await hub(api, 'dislike', { openid: user.openid, token: user.token, vid, action: 'dislike' })).status).toBe(200);
    const served: string[] = [];
    for (let i = 0; i < 6; i++) served.push(...vids(await feed({ watch_count: 20 }, user)));
    for (const order of ['new', 'hot']) served.push(...(await walkAll({ order, watch_count: 20 }, user)).flat());
    served.push(...(await walkAll({ q: '机器人', watch_count: 20 }, user)).flat());
    served.push(...vids(await feed({ vid: catalog[20]!.vid, watch_count: 20 }, user)));
    expect(served.length).toBeGreaterThan(CATALOG_SIZE * 2);
    expect(served.filter((vid) => disliked.includes(vid))).toEqual([]);
  });

  it('serves unseen videos while any are left, then the seen ones', async () => {
    const user = newUser();
    const unseen = catalog.slice(-8).map((v) => v.vid);
    const seen = catalog.slice(0, -8).map((v) => v.vid);
    // Report everything else as viewed, 40 per call (the most one call takes); those answers are not viewed.
    for (let i = 0; i < seen.length; i += 40) {
      const res = await feed({ view_list: seen.slice(i, i + 40).join(','), watch_count: 1 }, user);
      expect(res.status).toBe(200);
    }
    const first = await feed({ watch_count: 8, cmd: 'refresh' }, user);
    expect(new Set(vids(first))).toEqual(new Set(unseen));
    // Handed out but not viewed yet: still unseen, so they come again before any seen video.
    const second = await feed({ watch_count: 8 }, user);
    expect(new Set(vids(second))).toEqual(new Set(unseen));
    // Now viewed too: nothing unseen is left, so seen videos come (and the list does not run dry).
    const third = await feed({ watch_count: 10, view_list: unseen.join(',') }, user);
    expect(third.data.list).toHaveLength(10);
    expectNoDuplicates(vids(third));
    expect(vids(third).every((vid) => allVids.has(vid))).toBe(true);
    // The history list holds every reported video once, the latest call's first.
    const history = await hub<{ list: VideoView[]; next_id: number }>(api, 'get_fav', { openid: user.openid, token: user.token, watch_list: 'history', fav_index: 50, next_id: 0, view: '', q: '', d: 'dev' });
    expect(history.status).toBe(200);
    expect(new Set(history.data.list.slice(0, unseen.length).map((v) => v.vid))).toEqual(new Set(unseen));
    expectNoDuplicates(history.data.list.map((v) => v.vid));
  });

  it('de-duplicates the anonymous feed per device d across calls, and cmd=refresh starts over', async () => {
    const d = `device-${Date.now()}`;
    const got: string[] = [];
    for (let i = 0; i < 5; i++) got.push(...vids(await feed({ d, watch_count: 20 })));
    expect(got).toHaveLength(100);
    expectNoDuplicates(got);
    const refreshed = await feed({ d, cmd: 'refresh', watch_count: 10 });
    expect(refreshed.data.list).toHaveLength(10);
    const stored = await deviceFeedState(d);
    expect(parseFeedState(stored.state, clock.now(), stored.chunks).served).toEqual(new Set(vids(refreshed)));
    // One call record per call, nothing else: the device's state item is never written by the feed.
    expect(stored.state).toBeUndefined();
    expect(stored.chunks).toHaveLength(6);
    // Another device is not affected by this one's history.
    const other = await feed({ d: `${d}-other`, watch_count: 20 });
    expect(other.data.list).toHaveLength(20);
  });

  it('liking videos of one topic shifts the feed toward it', async () => {
    const user = newUser();
    const counts = new Map<string, number>();
    for (const v of catalog) if (v.tags?.[0]) counts.set(v.tags[0], (counts.get(v.tags[0]) ?? 0) + 1);
    const topic = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const share = (list: VideoView[]) => list.filter((v) => v.tags.includes(topic)).length / list.length;

    const before = share((await feed({ watch_count: 10 }, user)).data.list);
    for (const v of catalog.filter((c) => c.tags?.[0] === topic).slice(0, 5)) {
      expect((await hub(api, 'like', { openid: user.openid, token: user.token, vid: v.vid })).status).toBe(200);
    }
    const after = (await feed({ watch_count: 10, cmd: 'refresh' }, user)).data.list;
    expect(share(after)).toBeGreaterThanOrEqual(0.6);
    expect(share(after)).toBeGreaterThanOrEqual(before + 0.3);
    // At most two per author when other candidates exist.
    const perAuthor = new Map<string, number>();
    for (const v of after) perAuthor.set(v.author.openid, (perAuthor.get(v.author.openid) ?? 0) + 1);
    expect(Math.max(...perAuthor.values())).toBeLessThanOrEqual(2);
  });
});

describe('more like this, shares', () => {
  it('never returns the video itself and ranks videos sharing its tags first', async () => {
    const target = catalog[5]!;
    const res = await feed({ vid: target.vid, watch_count: 20 });
    expect(res.status).toBe(200);
    expect(vids(res)).not.toContain(target.vid);
    expectNoDuplicates(vids(res));
    const related = res.data.list.map((v) => v.tags.some((t) => target.tags!.includes(t)));
    expect(related[0]).toBe(true);
    // Once an unrelated video appears, no related one follows it.
    const firstUnrelated = related.indexOf(false);
    if (firstUnrelated >= 0) expect(related.slice(firstUnrelated).every((r) => !r)).toBe(true);
    expect(related.filter(Boolean).length).toBeGreaterThanOrEqual(10);
  });

  it('puts the shared video first, in rec and in new; ignores an unknown share', async () => {
    const target = catalog[77]!.vid;
    const shared = await hub<{ shareid: string }>(api, 'sharetext', { d: 'x', openid: 'someone', vid: target, locale: 'zh-CN', country: 'CN' });
    expect(shared.status).toBe(200);
    for (const order of ['rec', 'new']) {
      const res = await feed({ shareid: shared.data.shareid, order, watch_count: 5 });
      expect(res.status).toBe(200);
      expect(vids(res)[0]).toBe(target);
      expect(vids(res)).toHaveLength(5);
      expectNoDuplicates(vids(res));
    }
    const unknown = await feed({ shareid: 'no-such-share', watch_count: 5 });
    expect(unknown.status).toBe(200);
    expect(unknown.data.list).toHaveLength(5);
    // Past its expiry (30 days after it was made, never opened) the share is gone, before DynamoDB's TTL removes it.
    clock.advance(SHARE_LIFETIME_S * 1000 + 1000);
    try {
      const expired = await feed({ shareid: shared.data.shareid, order: 'new', watch_count: 5 });
      expect(expired.status).toBe(200);
      expect(vids(expired)).not.toContain(target);
    } finally {
      clock.reset();
    }
  });
});

describe('cursor orders: new, hot, q', () => {
  it('new: pages cover the whole catalog newest first, without gaps or repeats, and end with an empty fav_index', async () => {
    const videos: VideoView[] = [];
    const pages = await walkAll({ order: 'new', watch_count: 20 }, undefined, videos);
    const all = pages.flat();
    expect(all).toHaveLength(CATALOG_SIZE);
    const times = videos.map((v) => v.created_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set(all)).toEqual(allVids);
    expect(pages.slice(0, -1).every((p) => p.length === 20)).toBe(true);
  });

  it('new: a reader who has seen some videos gets the unseen ones first, then the seen ones, still each once', async () => {
    const user = newUser();
    const seen = catalog.slice(10, 40).map((v) => v.vid);
    await feed({ view_list: seen.join(','), watch_count: 1, order: 'hot' }, user);
    const all = (await walkAll({ order: 'new', watch_count: 20 }, user)).flat();
    expect(all).toHaveLength(CATALOG_SIZE);
    expect(new Set(all)).toEqual(allVids);
    const firstSeen = all.findIndex((vid) => seen.includes(vid));
    expect(firstSeen).toBe(CATALOG_SIZE - seen.length);
  });

  it('hot: pages cover the catalog by decreasing trend without repeats', async () => {
    const pages = await walkAll({ order: 'hot', watch_count: 20 });
    const all = pages.flat();
    expect(all).toHaveLength(CATALOG_SIZE);
    expect(new Set(all)).toEqual(allVids);
  });

  it.each([
    ['a Chinese term', '机器人'],
    ['an English word, any case', 'Robots'],
    ['a Chinese single character', '车'],
    ['a two-letter term (no index gram)', 'ai'],
    ['a mixed phrase', 'Case study'],
  ])('q with %s returns exactly the matching videos', async (_label, term) => {
    const expected = new Set(catalog.filter((v) => matchesTerm(v, normalizeSearchText(term))).map((v) => v.vid));
    expect(expected.size).toBeGreaterThan(0);
    const all = (await walkAll({ q: term, watch_count: 20 })).flat();
    expectNoDuplicates(all);
    expect(new Set(all)).toEqual(expected);
  });

  it('q without any match answers an empty list and an empty fav_index', async () => {
    const res = await feed({ q: 'zzqxj' });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ list: [], fav_index: '' });
  });
});

describe('time', () => {
  it('forgets seen videos after 7 days', async () => {
    const user = newUser();
    const seen = catalog.slice(0, 40).map((v) => v.vid);
    await feed({ view_list: seen.join(','), watch_count: 1 }, user);
    const now = (await feed({ order: 'new', watch_count: 20 }, user)).data.list.map((v) => v.vid);
    expect(now.some((vid) => seen.includes(vid))).toBe(false);
    const plain = vids(await feed({ order: 'new', watch_count: 20 }));
    expect(plain.some((vid) => seen.includes(vid))).toBe(true);
    clock.advance(9 * 86_400_000);
    try {
      // Nothing is deferred any more: the plain newest-first order.
      expect(vids(await feed({ order: 'new', watch_count: 20 }, user))).toEqual(plain);
    } finally {
      clock.reset();
    }
  });
});

describe('feed state: call records, the history list', () => {
  const fav = async (user: User, next_id: number, size: number) => {
    const res = await hub<{ list: VideoView[]; next_id: number }>(api, 'get_fav', { openid: user.openid, token: user.token, watch_list: 'history', fav_index: size, next_id, view: '', q: '', d: 'dev' });
    expect(res.status).toBe(200);
    return res.data;
  };

  it('lists each viewed video once in get_fav history, at its latest view, with exact paging, views of earlier calls included', async () => {
    const user = newUser();
    const [a, b, c, d, e] = catalog.slice(100, 105).map((v) => v.vid) as [string, string, string, string, string];
    await putTestSeen(user.openid, a, new Date(clock.now() - 3_600_000).toISOString());
    await putTestSeen(user.openid, b, new Date(clock.now() - 3_500_000).toISOString());
    clock.advance(1000);
    try {
      expect((await feed({ view_list: `${c},${a}`, watch_count: 1 }, user)).status).toBe(200);
      clock.advance(1000);
      // The same call again (a client's retry after a lost answer), then more views.
      expect((await feed({ view_list: `${c},${a}`, watch_count: 1 }, user)).status).toBe(200);
      clock.advance(1000);
      expect((await feed({ view_list: `${d},${e}`, view: c, watch_count: 1 }, user)).status).toBe(200);
    } finally {
      clock.reset();
    }
    const all = await fav(user, 0, 50);
    expect(all.list.map((v) => v.vid)).toEqual([c, e, d, a, b]);
    expect(all.next_id).toBe(-1);
    const pages = [await fav(user, 0, 2), await fav(user, 2, 2), await fav(user, 4, 2)];
    expect(pages.map((p) => p.list.map((v) => v.vid))).toEqual([[c, e], [d, a], [b]]);
    expect(pages.map((p) => p.next_id)).toEqual([2, 4, -1]);
  });

  it('reads a long latest-likes list of an older store (entries, not vids) and never rewrites the state item', async () => {
    const user = newUser();
    const lr = catalog.slice(0, 2 * LIKED_RECENT_CAP + 5).map((v) => ({ vid: v.vid, author_openid: v.author_openid, tags: v.tags ?? [], created_at: v.created_at }));
    await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...feedKeys.feedState(user.openid), entity: 'feed_state', lr } }));
    const { result, requests } = await recordRequests(() => feed({ watch_count: 5 }, user));
    expect(result.status).toBe(200);
    expect(requests.length).toBeLessThanOrEqual(MAX_REQUESTS);
    expect(requests.filter((r) => r.command === 'UpdateItemCommand')).toHaveLength(0);
    // The latest likes count as liked: none of them on the page while others are left.
    expect(result.data.list.map((v) => v.vid).filter((vid) => lr.slice(-LIKED_RECENT_CAP).some((e) => e.vid === vid))).toEqual([]);
  });
});
