import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { importVideos } from '../../lib/entities/catalog/import.js';
import { videoKeys, type ImportedVideo } from '../../lib/entities/catalog/video-items.js';
import { feedKeys, LIKED_RECENT_CAP, likedHash, parseFeedState } from '../../lib/features/recommend/feed-state.js';
import { refreshRecommendationModel } from '../../lib/features/recommend/model-refresh.js';
import { neighbourCandidates } from '../../lib/features/recommend/neighbour-items.js';
import { getHubItem, hub, putTestAccounts, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { recordRequests } from '../support/db-requests.js';
import { MAX_REQUESTS } from '../../lib/features/recommend/feed-context.js';

/**
 * The feed's learned model (docs/feed.md, "The learned model") through the real
 * operations on DynamoDB Local: the refresh builds neighbour lists from the likers' index, rec ranks
 * by them where tags and popularity say nothing, and every like (not only the latest 20) keeps a
 * video off the caller's pages while anything else is left.
 */
interface Feed {
  list: { vid: string }[];
  fav_index: string;
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let authors: TestAccount[];

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url, { settle: true });
  authors = await putTestAccounts(20);
});
afterAll(async () => stack?.stop());

/** The fan's likes: more than the latest-likes list holds. */
const LIKED = LIKED_RECENT_CAP + 10;

const feed = (user: TestAccount, params: Record<string, string | number>) => hub<Feed>(api, 'get_next_list', { openid: user.openid, token: user.token, ...params });
const like = async (user: TestAccount, vid: string) => expect((await hub(api, 'like', { openid: user.openid, token: user.token, vid })).status).toBe(200);

/** `count` videos tagged only "expo" (tags say nothing), two per author, `likes` each (their popularity). */
async function catalog(prefix: string, count: number, likes: (i: number) => number): Promise<string[]> {
  const now = clock.now();
  const inputs: ImportedVideo[] = Array.from({ length: count }, (_, i) => ({
    vid: `${prefix}${String(i).padStart(3, '0')}`,
    author_openid: authors[i % authors.length]!.openid,
    title: `Hall ${prefix} ${i}`,
    description: 'A booth tour',
    cover_url: 'https://cdn.example.com/c.jpg',
    video_url: 'https://cdn.example.com/v.mp4',
    duration_s: 60,
    tags: ['expo'],
    created_at: new Date(now - (i + 1) * 3_600_000).toISOString(),
    like_count: likes(i),
  }));
  await importVideos(inputs);
  return inputs.map((v) => v.vid);
}

describe('every like keeps its video off the caller\'s pages', () => {
  let vids: string[];
  let fan: TestAccount;

  beforeAll(async () => {
    // First in the file: the catalog is these videos alone. The liked ones are the most popular:
    // without the liked set, the 10 liked before the latest ones would lead every page.
    vids = await catalog('k', 2 * LIKED, (i) => (i < LIKED ? 100 : 0));
    fan = (await putTestAccounts(1))[0]!;
    for (const vid of vids.slice(0, LIKED)) await like(fan, vid);
  });

  it('rec: none of the likes (more than the latest-likes list holds) while unliked videos are left', async () => {
    const res = await feed(fan, { cmd: 'refresh', watch_count: 10 });
    expect(res.status).toBe(200);
    const page = res.data.list.map((v) => v.vid);
    expect(page).toHaveLength(10);
    expect(page.filter((vid) => vids.slice(0, LIKED).includes(vid))).toEqual([]);
  });

  it.each(['hot', 'new'])('%s: a whole walk serves every unliked video before any liked one', async (order) => {
    const served: string[] = [];
    let cursor = '';
    do {
      const res = await feed(fan, { order, watch_count: 20, fav_index: cursor });
      expect(res.status).toBe(200);
      served.push(...res.data.list.map((v) => v.vid));
      cursor = res.data.fav_index;
    } while (cursor);
    expect(served.slice(0, LIKED).sort()).toEqual(vids.slice(LIKED).sort());
    expect(served.slice(LIKED).sort()).toEqual(vids.slice(0, LIKED).sort());
  });
});

describe('the learned model', () => {
  let vids: string[];
  let caller: TestAccount;

  beforeAll(async () => {
    // m000..m004 go together (three people like them all); m005..m039 are popular.
    vids = await catalog('m', 40, (i) => (i < 5 ? 0 : 40));
    const [p1, p2, p3, c] = await putTestAccounts(4);
    caller = c!;
    for (const p of [p1!, p2!, p3!]) for (const vid of vids.slice(0, 5)) await like(p, vid);
    // Crowds on the popular ones, each person on a few: co-likes spread thin.
    const crowd = await putTestAccounts(10);
    for (const [i, p] of crowd.entries()) for (const vid of vids.slice(5 + i * 3, 8 + i * 3)) await like(p, vid);
    await like(caller, vids[0]!);
    await like(caller, vids[1]!);
  });

  it('builds every liked video\'s neighbours from the likers\' index, and a refresh of unchanged likes writes nothing', async () => {
    const first = await refreshRecommendationModel();
    // With the videos and the likes of the fan above.
    expect(first).toMatchObject({ built: true, videos: 40 + 2 * LIKED, people: 15, written: first.lists, deleted: 0 });
    expect(first.likes).toBe(15 + 30 + 2 + LIKED);
    const near = neighbourCandidates(await getHubItem(videoKeys.neighbours(vids[0]!))).map((n) => n.vid);
    expect(near.slice(0, 4).sort()).toEqual(vids.slice(1, 5).sort());
    expect(await refreshRecommendationModel()).toMatchObject({ written: 0, deleted: 0, lists: first.lists });
  });

  it('ranks what was liked together with the caller\'s likes first, above popularity, within the 8 requests', async () => {
    await refreshRecommendationModel();
    const { result: res, requests } = await recordRequests(() => feed(caller, { cmd: 'refresh', watch_count: 10 }));
    expect(res.status).toBe(200);
    // The lists ride in one BatchGet with the followed accounts' latest videos: the budget holds.
    expect(requests.length).toBeLessThanOrEqual(MAX_REQUESTS);
    const batchKeys = requests.filter((r) => r.command === 'BatchGetItemCommand').flatMap((r) => Object.values(r.input.RequestItems as Record<string, { Keys: { sk: string }[] }>).flatMap((t) => t.Keys));
    expect(batchKeys.filter((k) => k.sk === 'NEIGHBOURS')).toHaveLength(2);
    const page = res.data.list.map((v) => v.vid);
    // m002..m004: liked with m000 and m001 by the same three people; never liked by the caller.
    expect(page.slice(0, 3).sort()).toEqual(vids.slice(2, 5).sort());
    expect(page).not.toContain(vids[0]);
    expect(page).not.toContain(vids[1]);
  });

  it('counts what a person did a minute ago: a view made after the refresh changes the next page, a dislike takes its video off it', async () => {
    await refreshRecommendationModel();
    const [viewer] = await putTestAccounts(1);
    const ask = (params: Record<string, string | number> = {}) => feed(viewer!, { cmd: 'refresh', watch_count: 10, ...params });
    // Nothing done yet: popularity leads (m005..m039 carry 40 likes each, m001..m004 none).
    expect((await ask()).data.list.slice(0, 4).map((v) => v.vid).filter((vid) => vids.slice(1, 5).includes(vid))).toEqual([]);
    // One view of m000 (reported with this call), no like, no refresh since: its list leads the next page.
    expect((await ask({ view_list: vids[0]! })).status).toBe(200);
    const page = (await ask()).data.list.map((v) => v.vid);
    expect(page.slice(0, 4).sort()).toEqual(vids.slice(1, 5).sort());
    // A dislike a moment later: that video is gone from the next page, the others stay.
    expect((await hub(api, 'dislike', { openid: viewer!.openid, token: viewer!.token, vid: vids[1]!, action: 'dislike' })).status).toBe(200);
    const after = (await ask()).data.list.map((v) => v.vid);
    expect(after).not.toContain(vids[1]);
    expect(after.slice(0, 3).sort()).toEqual(vids.slice(2, 5).sort());
  });

  it('trains on views too: a liker\'s view history enters the model at a view\'s weight', async () => {
    const [p] = await putTestAccounts(1);
    await like(p!, vids[30]!);
    expect((await feed(p!, { watch_count: 1, view_list: `${vids[31]},${vids[32]}` })).status).toBe(200);
    const refresh = await refreshRecommendationModel();
    expect(refresh.views).toBeGreaterThanOrEqual(2);
    // Only this person put m030 and m031 together (a like and a view): m031 is in m030's list.
    const near = neighbourCandidates(await getHubItem(videoKeys.neighbours(vids[30]!)));
    expect(near.map((n) => n.vid)).toContain(vids[31]);
  });

  it('drops a list once nobody\'s likes pair its video with anything', async () => {
    const [p] = await putTestAccounts(1);
    const vid = (await catalog('solo', 2, () => 0))[0]!;
    await like(p!, vid);
    await like(p!, vids[20]!);
    expect((await refreshRecommendationModel()).written).toBeGreaterThan(0);
    expect(await getHubItem(videoKeys.neighbours(vid))).toBeDefined();
    expect((await hub(api, 'dislike', { openid: p!.openid, token: p!.token, vid, action: 'dislike' })).status).toBe(200);
    expect((await refreshRecommendationModel()).deleted).toBe(1);
    expect(await getHubItem(videoKeys.neighbours(vid))).toBeUndefined();
  });
});

describe('a person with many likes', () => {
  it('likes land in chunks of the liked set, read back whole', async () => {
    const vids = await catalog('h', 10, () => 0);
    const [p] = await putTestAccounts(1);
    for (const vid of vids) await like(p!, vid);
    const state = parseFeedState(await getHubItem(feedKeys.feedState(p!.openid)), clock.now(), [], [(await getHubItem(feedKeys.likedChunk(p!.openid, 0)))!]);
    expect(state.likes).toBe(10);
    expect(state.liked.size).toBe(10);
    // The chunk alone (no latest-likes list) holds every like's hash.
    const chunkOnly = parseFeedState(undefined, clock.now(), [], [(await getHubItem(feedKeys.likedChunk(p!.openid, 0)))!]);
    expect([...chunkOnly.liked].sort()).toEqual(vids.map(likedHash).sort());
    // A like's retry adds nothing: the like is already there.
    await like(p!, vids[0]!);
    expect(parseFeedState(await getHubItem(feedKeys.feedState(p!.openid)), clock.now()).likes).toBe(10);
  });
});
