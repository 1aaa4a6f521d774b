import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { hub, putTestAccounts, type TestAccount, putTestVideo, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';

/**
 * `disliked` is the caller's own mark. The feed never shows a disliked video, so these are the
 * answers where one can appear: another user's like list (get_fav view=), the caller's history and
 * commented lists, and the answer of a re-publish.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
type User = TestAccount;
type Caller = Pick<User, "openid" | "token">;
let viewer: User;
let owner: User;
let author: User;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  [viewer, owner, author] = (await putTestAccounts(3)) as [User, User, User];
});
afterAll(async () => stack?.stop());

const as = (user: Caller) => ({ openid: user.openid, token: user.token });
const ok = async (res: Promise<{ status: number; body: unknown }>) => expect((await res).status).toBe(200);
const dislike = (user: Caller, vid: string) => ok(hub(api, 'dislike', { ...as(user), vid, action: 'dislike' }));
const like = (user: Caller, vid: string) => ok(hub(api, 'like', { ...as(user), vid }));
const fav = async (user: User, params: Record<string, string>) => {
  const res = await hub<{ list: VideoView[] }>(api, 'get_fav', { ...as(user), next_id: 0, fav_index: 0, watch_list: '', view: '', q: '', ...params });
  expect(res.status).toBe(200);
  return res.data.list;
};
/** vid -> the caller's marks, for the videos of a list. */
const marks = (list: VideoView[]) => Object.fromEntries(list.map((v) => [v.vid, { liked: v.liked, disliked: v.disliked }]));

describe('disliked: true wherever a video the caller disliked appears', () => {
  it("in another user's like list (get_fav view=), and false again once the caller likes it", async () => {
    const [disliked, other] = [await putTestVideo(author.openid), await putTestVideo(author.openid)];
    await like(owner, disliked.vid);
    await like(owner, other.vid);
    await dislike(viewer, disliked.vid);

    expect(marks(await fav(viewer, { view: owner.openid }))).toEqual({
      [disliked.vid]: { liked: false, disliked: true },
      [other.vid]: { liked: false, disliked: false },
    });
    // The owner's own view of the same list carries the owner's marks.
    expect(marks(await fav(owner, {}))).toEqual({
      [disliked.vid]: { liked: true, disliked: false },
      [other.vid]: { liked: true, disliked: false },
    });

    await like(viewer, disliked.vid); // a like clears the dislike
    expect(marks(await fav(viewer, { view: owner.openid }))[disliked.vid]).toEqual({ liked: true, disliked: false });
  });

  it('in the history of videos seen before the dislike', async () => {
    const [user] = (await putTestAccounts(1)) as [User];
    const [disliked, other] = [await putTestVideo(author.openid), await putTestVideo(author.openid)];
    await ok(hub(api, 'get_next_list', { ...as(user), d: 'marks', order: 'new', view_list: `${disliked.vid},${other.vid}` }));
    await dislike(user, disliked.vid);
    expect(marks(await fav(user, { watch_list: 'history' }))).toEqual({
      [disliked.vid]: { liked: false, disliked: true },
      [other.vid]: { liked: false, disliked: false },
    });
  });

  it('in the list of videos the caller commented on', async () => {
    const [user] = (await putTestAccounts(1)) as [User];
    const [disliked, other] = [await putTestVideo(author.openid), await putTestVideo(author.openid)];
    for (const video of [disliked, other]) await ok(hub(api, 'comment_set', { ...as(user), vid: video.vid, content: 'Worth a look?' }));
    await dislike(user, disliked.vid);
    expect(marks(await fav(user, { watch_list: 'comment' }))).toEqual({
      [disliked.vid]: { liked: false, disliked: true },
      [other.vid]: { liked: false, disliked: false },
    });
  });

  it('in the answer of a re-publish of a video its publisher disliked', async () => {
    const admin: SignedUp = await signUp(api, ADMIN_PHONE);
    const publish = (title: string) =>
      api.post<{ video: VideoView; created: boolean }>('/api/v1/videos', {
        token: admin.token,
        body: { title, external_id: 'marks-1', video_url: 'https://cdn.example.com/m.mp4', cover_url: 'https://cdn.example.com/m.jpg', duration_s: 12 },
      });
    const first = await publish('First cut');
    expect(first.status).toBe(201);
    expect(first.data.video).toMatchObject({ liked: false, disliked: false });
    await dislike(admin, first.data.video.vid);
    const again = await publish('Second cut');
    expect(again.status).toBe(201);
    expect(again.data).toMatchObject({ created: false, video: { vid: first.data.video.vid, title: 'Second cut', liked: false, disliked: true } });
  });
});
