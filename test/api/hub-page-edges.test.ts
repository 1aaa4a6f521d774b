import { beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { hub, putTestAccounts, type TestAccount, putTestLike, putTestVideo } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';

/**
 * The last page of every paged hub list when the list holds exactly a multiple of the page size:
 * it must say that nothing follows (has_more false, next_id -1, next_offset -1) rather than promise
 * a page that turns out empty.
 */
const api = useTestStack({ http: false });
let reader: TestAccount;

beforeAll(async () => {
  [reader] = (await putTestAccounts(1)) as [typeof reader];
});

const as = (user: { openid: string; token: string }) => ({ openid: user.openid, token: user.token });

interface CommentPage {
  list: { content: string }[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

describe('comment_get at exactly 20 and 40 comments', () => {
  const commentPage = (vid: string, page: number) => hub<CommentPage>(api, 'comment_get', { ...as(reader), vid, page, d: '' });

  it('the last full page has has_more false and the page after it is empty', async () => {
    const [author, ...writers] = await putTestAccounts(5);
    const video = await putTestVideo(author!.openid);
    // Four writers: 10 comments each stay within the per-minute limit.
    const post = async (from: number, to: number) => {
      for (let i = from; i <= to; i++) {
        const res = await hub(api, 'comment_set', { ...as(writers[i % 4]!), vid: video.vid, content: `comment ${i}` });
        expect(res.status).toBe(200);
      }
    };
    const newestFirst = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `comment ${to - i}`);

    await post(1, 20);
    const only = await commentPage(video.vid, 1);
    expect(only.status).toBe(200);
    expect(only.data).toMatchObject({ page: 1, page_size: 20, total: 20, has_more: false });
    expect(only.data.list.map((c) => c.content)).toEqual(newestFirst(1, 20));
    expect((await commentPage(video.vid, 2)).data).toEqual({ list: [], page: 2, page_size: 20, total: 20, has_more: false });

    await post(21, 40);
    const first = await commentPage(video.vid, 1);
    expect(first.data).toMatchObject({ page: 1, total: 40, has_more: true });
    expect(first.data.list.map((c) => c.content)).toEqual(newestFirst(21, 40));
    const last = await commentPage(video.vid, 2);
    expect(last.data).toMatchObject({ page: 2, total: 40, has_more: false });
    expect(last.data.list.map((c) => c.content)).toEqual(newestFirst(1, 20));
    expect((await commentPage(video.vid, 3)).data).toEqual({ list: [], page: 3, page_size: 20, total: 40, has_more: false });
  });
});

describe('get_fav at exactly a multiple of the page size', () => {
  interface Fav {
    list: { vid: string }[];
    next_id: number;
  }
  const fav = (user: { openid: string; token: string }, next_id: number, fav_index: number) =>
    hub<Fav>(api, 'get_fav', { ...as(user), next_id, fav_index, watch_list: '', view: '', q: '' });

  /** `count` likes of `user`, one second apart; newest first as the like list orders them. */
  async function likes(user: { openid: string }, count: number): Promise<string[]> {
    const vids: string[] = [];
    for (let i = 0; i < count; i++) {
      const video = await putTestVideo(user.openid, { title: `liked ${i}` });
      await putTestLike(user.openid, video, new Date(clock.now() + i * 1000).toISOString());
      vids.push(video.vid);
    }
    return vids.reverse();
  }

  it('two pages of fav_index 3 over 6 likes: next_id 3, then -1', async () => {
    const [user] = await putTestAccounts(1);
    const vids = await likes(user!, 6);
    const first = await fav(user!, 0, 3);
    expect(first.data.list.map((v) => v.vid)).toEqual(vids.slice(0, 3));
    expect(first.data.next_id).toBe(3);
    const last = await fav(user!, 3, 3);
    expect(last.data.list.map((v) => v.vid)).toEqual(vids.slice(3));
    expect(last.data.next_id).toBe(-1);
  });

  it('one page of the default 20 over exactly 20 likes, and 40 likes in two pages of 20', async () => {
    const [user] = await putTestAccounts(1);
    const vids = await likes(user!, 20);
    const only = await fav(user!, 0, 0);
    expect(only.data.list.map((v) => v.vid)).toEqual(vids);
    expect(only.data.next_id).toBe(-1);

    clock.advance(60_000);
    const newer = await likes(user!, 20);
    const first = await fav(user!, 0, 20);
    expect(first.data.list.map((v) => v.vid)).toEqual(newer);
    expect(first.data.next_id).toBe(20);
    const last = await fav(user!, 20, 20);
    expect(last.data.list.map((v) => v.vid)).toEqual(vids);
    expect(last.data.next_id).toBe(-1);
  });
});

describe('get_follower / get_follow at exactly 20 and 40 relations', () => {
  interface RelationPage {
    list: { openid: string }[];
    total: number;
    next_offset: number;
  }
  const page = (op: 'get_follower' | 'get_follow', user: { openid: string; token: string }, offset: number) =>
    hub<RelationPage>(api, op, { ...as(user), watch_list: '', offset });

  it('the last full page has next_offset -1', async () => {
    const [star, ...fans] = await putTestAccounts(41);
    const follow = async (from: number, to: number) => {
      for (const fan of fans.slice(from, to)) expect((await hub(api, 'follow_user', { ...as(fan), follow_user: star!.openid })).status).toBe(200);
    };
    const newestFirst = (from: number, to: number) => fans.slice(from, to).map((f) => f.openid).reverse();

    await follow(0, 20);
    const only = await page('get_follower', star!, 0);
    expect(only.data.list.map((u) => u.openid)).toEqual(newestFirst(0, 20));
    expect(only.data).toMatchObject({ total: 20, next_offset: -1 });

    await follow(20, 40);
    const first = await page('get_follower', star!, 0);
    expect(first.data.list.map((u) => u.openid)).toEqual(newestFirst(20, 40));
    expect(first.data).toMatchObject({ total: 40, next_offset: 20 });
    const last = await page('get_follower', star!, 20);
    expect(last.data.list.map((u) => u.openid)).toEqual(newestFirst(0, 20));
    expect(last.data).toMatchObject({ total: 40, next_offset: -1 });
  });

  it('the same for the users one follows', async () => {
    const [fan, ...stars] = await putTestAccounts(21);
    for (const star of stars) expect((await hub(api, 'follow_user', { ...as(fan!), follow_user: star.openid })).status).toBe(200);
    const only = await page('get_follow', fan!, 0);
    expect(only.data.list.map((u) => u.openid)).toEqual(stars.map((s) => s.openid).reverse());
    expect(only.data).toMatchObject({ total: 20, next_offset: -1 });
  });
});
