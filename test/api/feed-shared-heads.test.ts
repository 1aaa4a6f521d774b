import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../lib/platform/clock.js';
import { demoVideos, seedDemoCatalog } from '../../local/demo-catalog.js';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { HEAD_TTL_MS, dropSharedHeads } from '../../lib/entities/catalog/shared-heads.js';
import { authorLatestItem, tagItem, videoItem, videoKeys, type VideoItem } from '../../lib/entities/catalog/video-items.js';
import { initialTrend } from '../../lib/entities/catalog/trend.js';
import { putVideo } from '../../lib/entities/catalog/videos.js';
import { MAX_REQUESTS } from '../../lib/features/recommend/feed-context.js';
import { recordRequests, type RecordedRequest } from '../support/db-requests.js';
import { getHubItem, hub, putTestAccounts, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';

/**
 * The per-container cache of the feed's shared heads (docs/feed.md, "The shared heads' cache"): the
 * tops of the newest, trending, tag and author lists are read at most once per HEAD_TTL_MS by this
 * process, and every guarantee of get_next_list holds on what they hold.
 */
interface Feed {
  list: VideoView[];
  fav_index: string;
}

const CATALOG_SIZE = 60;
const catalog = demoVideos(CATALOG_SIZE, 0);

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let users: TestAccount[];
let nextUser = 0;
const newUser = () => users[nextUser++]!;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  expect(await seedDemoCatalog(CATALOG_SIZE)).toBe(CATALOG_SIZE);
  users = await putTestAccounts(12);
});
afterAll(async () => {
  clock.reset();
  await stack?.stop();
});
// Each test starts with nothing kept (as a new container), the clock stopped (a call's own duration
// does not age what it kept) and moved on past what an earlier test kept.
beforeEach(() => {
  clock.set(clock.now() + HEAD_TTL_MS);
  dropSharedHeads();
});

const feed = (params: Record<string, string | number | undefined>, user?: TestAccount) =>
  hub<Feed>(api, 'get_next_list', { openid: user?.openid ?? 'anonymous-reader', ...(user ? { token: user.token } : {}), ...params });
const vids = (res: { data: Feed }) => res.data.list.map((v) => v.vid);

/** The Queries of a shared head: the tops of `VIDEOS#k` (gsi1), `TRENDING#k` and `TAG#x` (gsi3), `AUTHOR#` (gsi2). */
const headQueries = (requests: RecordedRequest[]) =>
  requests
    .filter((r) => r.command === 'QueryCommand' && typeof r.input.IndexName === 'string')
    .map((r) => String((r.input.ExpressionAttributeValues as Record<string, unknown>)[':p']))
    .filter((p) => /^(VIDEOS|TRENDING|TAG|AUTHOR)#/.test(p));

/**
 * A video published by another container (the publishing function deployed): the items putVideo
 * writes for the feed's lists, without this process learning of it.
 */
async function publishElsewhere(author: string, createdAt: string, tags: string[]): Promise<VideoItem> {
  const vid = `vx${Math.random().toString(36).slice(2, 10)}`;
  const video: VideoItem = {
    vid,
    title: `Elsewhere ${vid}`,
    description: 'published by another container',
    cover_url: `https://cdn.example.com/${vid}.jpg`,
    video_url: `https://cdn.example.com/${vid}.mp4`,
    duration_s: 30,
    tags,
    author_openid: author,
    created_at: createdAt,
    updated_at: createdAt,
    like_count: 0,
    comment_count: 0,
    share_count: 0,
    gsi3sk: initialTrend(Date.parse(createdAt)) * 1e6,
  };
  const latest = await getHubItem<{ videos?: { vid: string; tags: string[]; created_at: string }[]; version?: number }>(videoKeys.authorLatest(author));
  const puts = [videoItem(video), ...tags.map((t) => tagItem(video, t)), authorLatestItem(author, latest, [{ vid, tags, created_at: createdAt }])];
  await db.send(new BatchWriteCommand({ RequestItems: { [tableNames.hub]: puts.map((Item) => ({ PutRequest: { Item } })) } }));
  return video;
}

/** A video removed by the moderation function in another container: its video item and tag rankings deleted. */
async function removeElsewhere(vid: string, tags: string[]): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: [videoKeys.video(vid), ...tags.map((t) => videoKeys.videoTag(vid, t))].map((Key) => ({ Delete: { TableName: tableNames.hub, Key } })),
    }),
  );
}

describe('the shared heads are read once per container and kept at most HEAD_TTL_MS', () => {
  it('a second caller within the bound reads no head; after it the heads are read again', async () => {
    const first = await recordRequests(() => feed({ order: 'new', watch_count: 20 }));
    expect(first.result.status).toBe(200);
    expect(headQueries(first.requests).sort()).toEqual(['VIDEOS#0', 'VIDEOS#1']);

    clock.advance(HEAD_TTL_MS - 1);
    const second = await recordRequests(() => feed({ order: 'new', watch_count: 20 }, newUser()));
    expect(second.result.status).toBe(200);
    expect(headQueries(second.requests)).toEqual([]);
    expect(vids(second.result)).toEqual(vids(first.result));

    clock.advance(1);
    const third = await recordRequests(() => feed({ order: 'new', watch_count: 20 }, newUser()));
    expect(headQueries(third.requests).sort()).toEqual(['VIDEOS#0', 'VIDEOS#1']);
  });

  it('order=hot, rec and "more like this" take their trending, newest, tag and author heads from what another caller read', async () => {
    const taster = newUser();
    // A taste: likes of three videos of one topic (rec then reads that topic's tag ranking).
    for (const v of catalog.slice(0, 3)) expect((await hub(api, 'like', { openid: taster.openid, token: taster.token, vid: v.vid })).status).toBe(200);
    const warm = await recordRequests(async () => {
      await feed({ order: 'hot', watch_count: 20 });
      await feed({ order: 'new', watch_count: 20 });
      // Two rec calls: trending and exploration take the shards in turn.
      await feed({}, taster);
      await feed({}, taster);
      await feed({ vid: catalog[5]!.vid });
    });
    const read = headQueries(warm.requests);
    expect(read).toEqual(expect.arrayContaining(['TRENDING#0', 'TRENDING#1', 'VIDEOS#0', 'VIDEOS#1', `AUTHOR#${catalog[5]!.author_openid}`]));
    expect(read.some((p) => p.startsWith('TAG#'))).toBe(true);

    const again = await recordRequests(async () => {
      await feed({ order: 'hot', watch_count: 20 }, newUser());
      await feed({ order: 'new', watch_count: 20 }, newUser());
      await feed({}, taster);
      await feed({}, taster);
      await feed({ vid: catalog[5]!.vid }, newUser());
    });
    expect(headQueries(again.requests)).toEqual([]);
  });

  it('keeps within the 8-request budget on a miss and on a hit, for a caller with likes, follows and views', async () => {
    const heavy = newUser();
    for (const v of catalog.slice(10, 16)) expect((await hub(api, 'like', { openid: heavy.openid, token: heavy.token, vid: v.vid })).status).toBe(200);
    for (const a of ['u_demoAuthor01', 'u_demoAuthor02']) expect((await hub(api, 'follow_user', { openid: heavy.openid, token: heavy.token, follow_user: a })).status).toBe(200);
    const views = catalog.slice(20, 30).map((v) => v.vid).join(',');
    for (const params of [{ view_list: views }, {}, { order: 'new' }, { order: 'hot' }, { vid: catalog[12]!.vid }]) {
      dropSharedHeads();
      const miss = await recordRequests(() => feed({ watch_count: 20, ...params }, heavy));
      expect(miss.result.status).toBe(200);
      expect(headQueries(miss.requests).length).toBeGreaterThan(0);
      expect(miss.requests.length).toBeLessThanOrEqual(MAX_REQUESTS);
      const hit = await recordRequests(() => feed({ watch_count: 20, ...params }, heavy));
      expect(hit.requests.length).toBeLessThanOrEqual(MAX_REQUESTS);
    }
  });
});

describe('what a kept head changes: which requests, never what the caller is guaranteed', () => {
  it('a video published by another container appears within the bound; one published in this container at once', async () => {
    const reader = newUser();
    await feed({ order: 'new', watch_count: 5 });
    const elsewhere = await publishElsewhere('u_demoAuthor03', clock.nowIso(), ['expo']);
    // Kept: the head still lacks it (it was read before the publish).
    expect(vids(await feed({ order: 'new', watch_count: 5, cmd: 'refresh' }, reader))).not.toContain(elsewhere.vid);
    clock.advance(HEAD_TTL_MS);
    expect(vids(await feed({ order: 'new', watch_count: 5, cmd: 'refresh' }, reader))[0]).toBe(elsewhere.vid);

    // A publish in this process drops what it keeps: the author's video is first in new at once.
    clock.advance(1);
    const here = await putVideo({ author_openid: 'u_demoAuthor03', title: 'Published here', description: '', cover_url: 'https://cdn.example.com/h.jpg', video_url: 'https://cdn.example.com/h.mp4', duration_s: 20, tags: ['expo'] });
    expect(vids(await feed({ order: 'new', watch_count: 5, cmd: 'refresh' }, reader))[0]).toBe(here.video.vid);
  });

  it('never serves a disliked video, a video of a blocked author or a removed video from a kept head, and seen ones only after the unseen', async () => {
    const caller = newUser();
    // The heads are read (and kept) before the caller's dislike, view, block and the removal.
    const before = vids(await feed({ order: 'new', watch_count: 20 }));
    await feed({ order: 'hot', watch_count: 20 });
    await feed({ watch_count: 20 }, caller);
    await feed({ watch_count: 20 }, caller);
    const [disliked, seen, removed] = [before[0]!, before[1]!, before[2]!];
    const blockedAuthor = catalog.find((v) => v.vid === before[3])!.author_openid;
    expect((await hub(api, 'dislike', { openid: caller.openid, token: caller.token, vid: disliked, action: 'dislike' })).status).toBe(200);
    expect((await hub(api, 'block_user', { openid: caller.openid, token: caller.token, block_user: blockedAuthor })).status).toBe(200);
    expect((await feed({ order: 'new', watch_count: 1, view_list: seen }, caller)).status).toBe(200);
    await removeElsewhere(removed, catalog.find((v) => v.vid === removed)!.tags ?? []);
    expect(await getHubItem(videoKeys.video(removed))).toBeUndefined();

    const authorOf = new Map(catalog.map((v) => [v.vid, v.author_openid]));
    const check = (list: string[]) => {
      expect(list).not.toContain(disliked);
      expect(list).not.toContain(removed);
      expect(list.filter((vid) => authorOf.get(vid) === blockedAuthor)).toEqual([]);
    };
    for (const params of [{ order: 'new' }, { order: 'hot' }, {}, { cmd: 'refresh' }]) {
      const { result, requests } = await recordRequests(() => feed({ watch_count: 20, ...params, ...(params.order ? { cmd: 'refresh' } : {}) }, caller));
      expect(result.status).toBe(200);
      // Served from what was kept before the removal: no head read.
      expect(headQueries(requests).filter((p) => !p.startsWith('TAG#'))).toEqual([]);
      check(vids(result));
      // Unseen first: the seen video comes only on a page that has nothing unseen left.
      expect(vids(result)).not.toContain(seen);
    }
    // The whole new walk from the kept head: each video once, the seen one last, none of the others.
    const walked: string[] = [];
    let cursor = '';
    do {
      const res = await feed({ order: 'new', watch_count: 20, fav_index: cursor }, caller);
      walked.push(...vids(res));
      cursor = res.data.fav_index;
    } while (cursor);
    check(walked);
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked[walked.length - 1]).toBe(seen);
  });

  it('a followed author\'s new video is reserved in the same call as without the cache: it comes from the author\'s list, not a head', async () => {
    const follower = newUser();
    expect((await hub(api, 'follow_user', { openid: follower.openid, token: follower.token, follow_user: 'u_demoAuthor05' })).status).toBe(200);
    await feed({}, follower);
    await feed({}, follower);
    clock.advance(1000);
    const fresh = await publishElsewhere('u_demoAuthor05', clock.nowIso(), ['expo']);
    clock.advance(1000);
    // Within the bound: every head is kept from before the publish, and the video is on the next page.
    const { result, requests } = await recordRequests(() => feed({}, follower));
    expect(headQueries(requests)).toEqual([]);
    expect(vids(result)).toContain(fresh.vid);
  });
});
