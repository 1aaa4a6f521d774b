import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../lib/platform/errors.js';
import { seedDemoCatalog } from '../../local/demo-catalog.js';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import type { VideoInput, VideoItem } from '../../lib/entities/catalog/video-items.js';
import { putVideo } from '../../lib/entities/catalog/videos.js';
import { getHubItem, hub, putTestAccounts } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

/** The video store feeds every list at once: what putVideo writes is in new, hot, q and the rankings. */
type User = { openid: string; token: string };
interface Feed {
  list: VideoView[];
  fav_index: string;
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let author: User;
let fan: User;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  expect(await seedDemoCatalog(30)).toBe(30);
  const accounts = await putTestAccounts(2);
  [author, fan] = [accounts[0]!, accounts[1]!];
});
afterAll(async () => stack?.stop());

const feed = (params: Record<string, string | number>) => hub<Feed>(api, 'get_next_list', { openid: 'reader', ...params });
const searchAll = async (q: string) => {
  const found: string[] = [];
  let cursor = '';
  do {
    const res = await feed({ q, watch_count: 20, fav_index: cursor });
    expect(res.status).toBe(200);
    found.push(...res.data.list.map((v) => v.vid));
    cursor = res.data.fav_index;
  } while (cursor);
  return found;
};
const input = (fields: Partial<VideoInput> = {}): VideoInput => ({
  author_openid: author.openid,
  title: '鲲鹏展翅 Zephyrine turbines',
  description: 'A wind tunnel visit',
  cover_url: 'https://cdn.example.com/z.jpg',
  video_url: 'https://cdn.example.com/z.mp4',
  duration_s: 120,
  tags: ['航空航天', 'wind'],
  ...fields,
});

describe('putVideo', () => {
  let video: VideoItem;

  it('puts a new video into new, search, the rankings and the author\'s lists at once', async () => {
    const accountBefore = await getHubItem<{ video_count?: number }>(accountKeys.account(author.openid));
    const put = await putVideo(input());
    expect(put.created).toBe(true);
    video = put.video;
    expect(video).toMatchObject({ author_openid: author.openid, like_count: 0, comment_count: 0, share_count: 0, tags: ['航空航天', 'wind'] });

    const newest = await feed({ order: 'new', watch_count: 1 });
    expect(newest.data.list[0]).toMatchObject({ vid: video.vid, title: '鲲鹏展翅 Zephyrine turbines', author: { openid: author.openid } });
    expect(await searchAll('zephyrine')).toEqual([video.vid]);
    expect(await searchAll('鲲鹏')).toEqual([video.vid]);
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ ...videoKeys.trendingIndex(video.vid, expect.any(Number) as unknown as number), gsi1pk: videoKeys.videosIndex('', video.vid).gsi1pk });
    expect(await getHubItem(videoKeys.videoTag(video.vid, 'wind'))).toMatchObject({ gsi3pk: 'TAG#wind', vid: video.vid });
    expect(await getHubItem(videoKeys.authorLatest(author.openid))).toMatchObject({ videos: [expect.objectContaining({ vid: video.vid })] });
    expect((await getHubItem<{ video_count?: number }>(accountKeys.account(author.openid)))?.video_count).toBe((accountBefore?.video_count ?? 0) + 1);
    const hot = (await feed({ order: 'hot', watch_count: 20 })).data.list.map((v) => v.vid);
    expect(hot.length).toBe(20);
    const similar = (await feed({ vid: video.vid, watch_count: 20 })).data.list;
    expect(similar.map((v) => v.vid)).not.toContain(video.vid);
  });

  it('updates content and tags in place, keeping counters, trend and creation time', async () => {
    expect((await hub(api, 'like', { openid: fan.openid, token: fan.token, vid: video.vid })).data).toMatchObject({ like_count: 1 });
    const liked = (await getHubItem<VideoItem>(videoKeys.video(video.vid)))!;
    const updated = await putVideo(input({ vid: video.vid, title: 'Kestrelwing drones', tags: ['无人机', 'wind'] }));
    expect(updated.created).toBe(false);
    expect(updated.video).toMatchObject({ vid: video.vid, title: 'Kestrelwing drones', like_count: 1, created_at: video.created_at, gsi3sk: liked.gsi3sk, tags: ['无人机', 'wind'] });
    expect(await searchAll('zephyrine')).toEqual([]);
    expect(await searchAll('kestrelwing')).toEqual([video.vid]);
    expect(await getHubItem(videoKeys.videoTag(video.vid, '航空航天'))).toBeUndefined();
    expect(await getHubItem(videoKeys.videoTag(video.vid, '无人机'))).toMatchObject({ gsi3sk: liked.gsi3sk });
  });

  it('treats the same (author, external_id) as one video, also under parallel retries', async () => {
    const before = (await getHubItem<{ video_count?: number }>(accountKeys.account(author.openid)))?.video_count ?? 0;
    const results = await Promise.all(Array.from({ length: 5 }, () => putVideo(input({ external_id: 'pipeline-42', title: 'Pipeline run' }))));
    expect(new Set(results.map((r) => r.video.vid)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect((await getHubItem<{ video_count?: number }>(accountKeys.account(author.openid)))?.video_count).toBe(before + 1);
    const again = await putVideo(input({ external_id: 'pipeline-42', title: 'Pipeline run 2' }));
    expect(again).toMatchObject({ created: false, video: { vid: results[0]!.video.vid, title: 'Pipeline run 2' } });
  });

  it('counts the videos of each tag and of the catalog: +1 on publish, moved by a tag change, kept by a re-publish', async () => {
    const count = async (key: { pk: string; sk: string }, attribute: 'n' | 'videos') => ((await getHubItem<Record<string, number>>(key)) ?? {})[attribute] ?? 0;
    const catalogBefore = await count(videoKeys.catalogStats(), 'videos');
    const put = await putVideo(input({ title: 'Counting tags', tags: ['tally-a', 'tally-b'], external_id: 'tally' }));
    expect(await count(videoKeys.tagStats('tally-a'), 'n')).toBe(1);
    expect(await count(videoKeys.tagStats('tally-b'), 'n')).toBe(1);
    expect(await count(videoKeys.catalogStats(), 'videos')).toBe(catalogBefore + 1);
    await putVideo(input({ title: 'Counting tags again', tags: ['tally-b', 'tally-c'], external_id: 'tally' }));
    expect(await count(videoKeys.tagStats('tally-a'), 'n')).toBe(0);
    expect(await count(videoKeys.tagStats('tally-b'), 'n')).toBe(1);
    expect(await count(videoKeys.tagStats('tally-c'), 'n')).toBe(1);
    expect(await count(videoKeys.catalogStats(), 'videos')).toBe(catalogBefore + 1);
    expect((await putVideo(input({ title: 'Counting tags again', tags: ['tally-b', 'tally-c'], external_id: 'tally' }))).video.vid).toBe(put.video.vid);
    expect(await count(videoKeys.tagStats('tally-c'), 'n')).toBe(1);
  });

  it("puts a followed author's new video in the follower's next page, in one of the author's two places before an older one", async () => {
    const [channel, follower] = await putTestAccounts(2);
    // The follower likes the channel's older videos: they rank high on taste and follows.
    const older = [];
    for (let i = 0; i < 4; i++) older.push((await putVideo(input({ author_openid: channel!.openid, title: `Glassblowing ${i}`, tags: ['glassblowing'] }))).video);
    const as = { openid: follower!.openid, token: follower!.token };
    for (const v of older.slice(0, 2)) expect((await hub(api, 'like', { ...as, vid: v.vid })).status).toBe(200);
    expect((await hub(api, 'follow_user', { ...as, follow_user: channel!.openid })).status).toBe(200);
    expect((await feed({ ...as, watch_count: 10 })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    // The new video is off the follower's taste: only its reserved place puts it before the older ones.
    const fresh = (await putVideo(input({ author_openid: channel!.openid, title: 'Lampwork, the new one', tags: ['lampwork'] }))).video;
    const page = (await feed({ ...as, watch_count: 10, cmd: 'refresh' })).data.list;
    // A reserved place (docs/feed.md, "rec"): on the page, one of the author's two, ordered by score
    // with the rest (an older video of the same relevance may stand before it).
    const channelVideos = page.filter((v) => v.author.openid === channel!.openid).map((v) => v.vid);
    expect(channelVideos).toHaveLength(2);
    expect(channelVideos).toContain(fresh.vid);
  });

  it('refuses an author without an account and writes nothing', async () => {
    await expect(putVideo(input({ author_openid: 'u_nobody', title: 'Orphanvideo' }))).rejects.toBeInstanceOf(NotFoundError);
    expect(await searchAll('orphanvideo')).toEqual([]);
  });
});
