import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { putVideo } from '../../lib/entities/catalog/videos.js';
import { getHubItem, hub, putTestAccounts, putTestLike, putTestSeen, putTestVideo, signUp, type SignedUp, type TestVideo } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let alice: SignedUp;
let bob: SignedUp;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  // Counters derived from the stream (like_count, comment_count, liked_count) are read after most calls.
  api = apiClient(stack.url, { settle: true });
  alice = await signUp(api);
  bob = await signUp(api);
});
afterAll(async () => stack?.stop());
afterEach(() => clock.reset());

interface Profile {
  openid: string;
  nickname: string;
  signature: string;
  city: string;
  phone?: string;
  follow_count: number;
  follower_count: number;
  like_count: number;
  liked_count: number;
  video_count: number;
  followed_by_me?: boolean;
  follows_me?: boolean;
}
interface Video {
  vid: string;
  title: string;
  author: { openid: string; nickname: string };
  liked?: boolean;
  disliked?: boolean;
  [k: string]: unknown;
}
interface Fav {
  profile: Profile;
  list: Video[];
  next_id: number;
}

const as = (user: { openid: string; token: string }) => ({ openid: user.openid, token: user.token });
const fav = (user: { openid: string; token: string }, params: Record<string, string | number> = {}) =>
  hub<Fav>(api, 'get_fav', { ...as(user), next_id: 0, fav_index: 0, watch_list: '', view: '', q: '', ...params });
const maskedPhone = (e164: string) => `+86 ${e164.slice(3, 6)}****${e164.slice(-4)}`;

/** Videos liked by `user` one second apart, oldest first. */
async function likedVideos(user: { openid: string }, titles: string[], author: string): Promise<TestVideo[]> {
  const videos: TestVideo[] = [];
  for (const [i, title] of titles.entries()) {
    const video = await putTestVideo(author, { title, tags: i % 2 ? ['汽车', 'auto'] : ['machinery'] });
    await putTestLike(user.openid, video, new Date(clock.now() + i * 1000).toISOString());
    videos.push(video);
  }
  return videos;
}

describe('change_nickname / change_signature / change_city', () => {
  it('sets each field and answers the own profile', async () => {
    const nick = await hub<{ profile: Profile }>(api, 'change_nickname', { ...as(alice), nickname: '  展会达人 ' });
    expect(nick.status).toBe(200);
    expect(nick.data).toEqual({
      profile: {
        openid: alice.openid,
        nickname: '展会达人',
        signature: '',
        city: '',
        phone: maskedPhone(alice.phone),
        follow_count: 0,
        follower_count: 0,
        like_count: 0,
        liked_count: 0,
        video_count: 0,
      },
    });
    const sig = await hub<{ profile: Profile }>(api, 'change_signature', { ...as(alice), signature: 'I visit trade fairs' });
    expect(sig.data.profile).toMatchObject({ nickname: '展会达人', signature: 'I visit trade fairs' });
    const city = await hub<{ profile: Profile }>(api, 'change_city', { ...as(alice), city: '深圳' });
    expect(city.data.profile).toMatchObject({ nickname: '展会达人', signature: 'I visit trade fairs', city: '深圳' });
    expect(await getHubItem(accountKeys.account(alice.openid))).toMatchObject({ nickname: '展会达人', signature: 'I visit trade fairs', city: '深圳' });

    // Signature and city may be cleared; the same change twice is the same answer.
    expect((await hub<{ profile: Profile }>(api, 'change_city', { ...as(alice), city: '' })).data.profile.city).toBe('');
    expect((await hub<{ profile: Profile }>(api, 'change_signature', { ...as(alice), signature: '' })).data.profile.signature).toBe('');
    expect((await hub<{ profile: Profile }>(api, 'change_signature', { ...as(alice), signature: '' })).status).toBe(200);
  });

  it('counts characters, not bytes: 30 Chinese characters are a valid nickname', async () => {
    expect((await hub(api, 'change_nickname', { ...as(bob), nickname: '展'.repeat(30) })).status).toBe(200);
    expect((await hub(api, 'change_signature', { ...as(bob), signature: '签'.repeat(200) })).status).toBe(200);
    expect((await hub(api, 'change_city', { ...as(bob), city: 'c'.repeat(50) })).status).toBe(200);
  });

  it.each([
    ['change_nickname', 'nickname', undefined],
    ['change_nickname', 'nickname', ''],
    ['change_nickname', 'nickname', '   '],
    ['change_nickname', 'nickname', 'n'.repeat(31)],
    ['change_nickname', 'nickname', 'tab\there'],
    ['change_nickname', 'nickname', 'two\nlines'],
    ['change_signature', 'signature', undefined],
    ['change_signature', 'signature', 's'.repeat(201)],
    ['change_signature', 'signature', 'bell\u0007'],
    ['change_city', 'city', undefined],
    ['change_city', 'city', 'c'.repeat(51)],
    ['change_city', 'city', 'nul\u0000'],
  ])('%s with %s = %j is 400 naming it and changes nothing', async (op, field, value) => {
    const before = await getHubItem(accountKeys.account(bob.openid));
    const res = await hub(api, op, { ...as(bob), ...(value === undefined ? {} : { [field]: value }) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${field}"`) });
    expect(await getHubItem(accountKeys.account(bob.openid))).toEqual(before);
  });
});

describe('get_fav', () => {
  it('answers the own profile with counters and the like list, newest like first, with liked marks', async () => {
    const [user] = await putTestAccounts(1);
    const videos = await likedVideos(user!, ['First fair', 'Second fair', 'Third fair'], bob.openid);
    const res = await fav(user!);
    expect(res.status).toBe(200);
    expect(Object.keys(res.data.profile).sort()).toEqual(['city', 'follow_count', 'follower_count', 'like_count', 'liked_count', 'nickname', 'openid', 'phone', 'signature', 'video_count']);
    expect(res.data.profile.phone).toMatch(/^\+86 138\*{4}\d{4}$/);
    expect(res.data.list.map((v) => v.vid)).toEqual(videos.map((v) => v.vid).reverse());
    expect(res.data.next_id).toBe(-1);
    expect(res.data.list[0]).toEqual({
      vid: videos[2]!.vid,
      title: 'Third fair',
      description: videos[2]!.description,
      cover_url: videos[2]!.cover_url,
      video_url: videos[2]!.video_url,
      duration_s: 60,
      tags: ['machinery'],
      author: { openid: bob.openid, nickname: expect.any(String) },
      created_at: videos[2]!.created_at,
      // The like item the fixture stored is counted by the stream processor, as any like.
      like_count: 1,
      comment_count: 0,
      share_count: 0,
      open_count: 0,
      liked: true,
      disliked: false,
    });
  });

  it('pages with fav_index and next_id', async () => {
    const [user] = await putTestAccounts(1);
    const videos = await likedVideos(user!, ['a', 'b', 'c', 'd', 'e'], bob.openid);
    const newestFirst = videos.map((v) => v.vid).reverse();
    const one = await fav(user!, { fav_index: 2 });
    expect(one.data.list.map((v) => v.vid)).toEqual(newestFirst.slice(0, 2));
    expect(one.data.next_id).toBe(2);
    const two = await fav(user!, { fav_index: 2, next_id: 2 });
    expect(two.data.list.map((v) => v.vid)).toEqual(newestFirst.slice(2, 4));
    const three = await fav(user!, { fav_index: 2, next_id: two.data.next_id });
    expect(three.data.list.map((v) => v.vid)).toEqual(newestFirst.slice(4));
    expect(three.data.next_id).toBe(-1);
    expect((await fav(user!, { next_id: 10 })).data).toMatchObject({ list: [], next_id: -1 });
  });

  it('filters the list by keyword (q), case-insensitively and in Chinese', async () => {
    const [user] = await putTestAccounts(1);
    const entries: [string, string[]][] = [
      ['Auto Show Shanghai', ['expo']],
      ['纺织 fair', ['textile']],
      ['Big parts', ['AUTOMOTIVE']],
      ['机床展', ['machine tools']],
      ['Spare wheels', ['expo']],
    ];
    for (const [i, [title, tags]] of entries.entries()) {
      const video = await putTestVideo(bob.openid, { title, tags, description: i === 4 ? 'for the auto trade' : '' });
      await putTestLike(user!.openid, video, new Date(clock.now() + i * 1000).toISOString());
    }
    const auto = await fav(user!, { q: 'auto' });
    expect(auto.data.list.map((v) => v.title)).toEqual(['Spare wheels', 'Big parts', 'Auto Show Shanghai']);
    expect(auto.data.next_id).toBe(-1);
    expect((await fav(user!, { q: '机床' })).data.list.map((v) => v.title)).toEqual(['机床展']);
    const paged = await fav(user!, { q: 'auto', fav_index: 1 });
    expect(paged.data.list.map((v) => v.title)).toEqual(['Spare wheels']);
    expect(paged.data.next_id).toBe(1);
    const rest = await fav(user!, { q: 'AUTO', fav_index: 5, next_id: paged.data.next_id });
    expect(rest.data.list.map((v) => v.title)).toEqual(['Big parts', 'Auto Show Shanghai']);
    expect((await fav(user!, { q: 'nothing like this' })).data).toMatchObject({ list: [], next_id: -1 });
  });

  it('lists history and commented videos (each video once, latest comment first)', async () => {
    const [user] = await putTestAccounts(1);
    const seen1 = await putTestVideo(bob.openid, { title: 'seen first' });
    const seen2 = await putTestVideo(bob.openid, { title: 'seen second' });
    await putTestSeen(user!.openid, seen1.vid, new Date(clock.now() - 5000).toISOString());
    await putTestSeen(user!.openid, seen2.vid);
    expect((await fav(user!, { watch_list: 'history' })).data.list.map((v) => v.vid)).toEqual([seen2.vid, seen1.vid]);

    const c1 = await putTestVideo(bob.openid);
    const c2 = await putTestVideo(bob.openid);
    for (const [vid, text] of [[c1.vid, 'one'], [c2.vid, 'two'], [c1.vid, 'three']] as const) {
      expect((await hub(api, 'comment_set', { ...as(user!), vid, content: text })).status).toBe(200);
      clock.advance(1000);
    }
    const commented = await fav(user!, { watch_list: 'comment' });
    expect(commented.data.list.map((v) => v.vid)).toEqual([c1.vid, c2.vid]);
    expect(commented.data.list[0]).toMatchObject({ comment_count: 2 });
  });

  it('shows another user\'s public profile (no phone) and like list; their history and comments are 403', async () => {
    const [viewer, owner] = await putTestAccounts(2);
    const videos = await likedVideos(owner!, ['public like'], bob.openid);
    await putTestLike(viewer!.openid, videos[0]!);
    expect((await hub(api, 'follow_user', { ...as(viewer!), follow_user: owner!.openid })).status).toBe(200);

    const res = await fav(viewer!, { view: owner!.openid });
    expect(res.status).toBe(200);
    expect(res.data.profile).toEqual({
      openid: owner!.openid,
      nickname: owner!.nickname,
      signature: '',
      city: '',
      follow_count: 0,
      follower_count: 1,
      like_count: 0,
      liked_count: 0,
      video_count: 0,
      followed_by_me: true,
      follows_me: false,
    });
    expect(JSON.stringify(res.body)).not.toContain('+86');
    expect(res.data.list.map((v) => v.vid)).toEqual([videos[0]!.vid]);
    // liked/disliked are the caller's own marks.
    expect(res.data.list[0]).toMatchObject({ liked: true, disliked: false });

    for (const watch_list of ['history', 'comment']) {
      const denied = await fav(viewer!, { view: owner!.openid, watch_list });
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ code: 'FORBIDDEN' });
    }
    // view = oneself is the own profile.
    expect((await fav(owner!, { view: owner!.openid, watch_list: 'history' })).data.profile).toHaveProperty('phone');
    const unknown = await fav(viewer!, { view: 'u_nobody' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists a like made through the like operation, with the counters it keeps', async () => {
    const [author, fan] = await putTestAccounts(2);
    const { video } = await putVideo({ author_openid: author!.openid, title: 'Hannover Messe', cover_url: 'https://cdn.example.com/h.jpg', video_url: 'https://cdn.example.com/h.mp4', duration_s: 30, tags: ['industry'] });
    expect((await hub(api, 'like', { ...as(fan!), vid: video.vid })).status).toBe(200);
    const mine = await fav(fan!);
    expect(mine.data.profile).toMatchObject({ like_count: 1 });
    expect(mine.data.list).toHaveLength(1);
    expect(mine.data.list[0]).toMatchObject({ vid: video.vid, title: 'Hannover Messe', like_count: 1, liked: true, author: { openid: author!.openid, nickname: author!.nickname } });
    expect((await fav(author!)).data.profile).toMatchObject({ liked_count: 1, video_count: 1 });
  });

  it('shows the counters kept by follows', async () => {
    const [a, b] = await putTestAccounts(2);
    await hub(api, 'follow_user', { ...as(a!), follow_user: b!.openid });
    await hub(api, 'follow_user', { ...as(b!), follow_user: a!.openid });
    expect((await fav(a!)).data.profile).toMatchObject({ follow_count: 1, follower_count: 1 });
  });

  it.each([
    ['a missing next_id', { next_id: undefined }, 'next_id'],
    ['a negative next_id', { next_id: '-1' }, 'next_id'],
    ['a missing fav_index', { fav_index: undefined }, 'fav_index'],
    ['fav_index 51', { fav_index: '51' }, 'fav_index'],
    ['an unknown watch_list', { watch_list: 'favourites' }, 'watch_list'],
    ['a missing watch_list', { watch_list: undefined }, 'watch_list'],
    ['a missing view', { view: undefined }, 'view'],
    ['a missing q', { q: undefined }, 'q'],
  ])('%s is 400 naming the parameter', async (_label, override, name) => {
    const params: Record<string, string | number | undefined> = { ...as(alice), next_id: 0, fav_index: 0, watch_list: '', view: '', q: '', ...override };
    const res = await hub(api, 'get_fav', params);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
  });

  it('fav_index 0 means 20 and 50 is the largest page', async () => {
    const [user] = await putTestAccounts(1);
    await likedVideos(user!, Array.from({ length: 22 }, (_, i) => `video ${i}`), bob.openid);
    const res = await fav(user!);
    expect(res.data.list).toHaveLength(20);
    expect(res.data.next_id).toBe(20);
    const big = await fav(user!, { fav_index: 50 });
    expect(big.data.list).toHaveLength(22);
    expect(big.data.next_id).toBe(-1);
  });
});
