import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import { seedFilterTerms } from '../../lib/features/filter/terms.js';
import { hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';

/**
 * get_video (docs/hub-feed-api.md, "get_video"): one video by its vid, as the feed shows it (the
 * feed's item of the same video, reached through a share: get_next_list puts the shared video
 * first), the caller's marks when signed in, 404 for a video that is not live, and the feed's
 * blocked-author rule.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let viewer: TestAccount;
let author: TestAccount;
let fan: TestAccount;
let editor: TestAccount;
let moderator: TestAccount;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  [viewer, author, fan] = (await putTestAccounts(3)) as [TestAccount, TestAccount, TestAccount];
  [editor] = (await putTestAccounts(1, ['editor'])) as [TestAccount];
  [moderator] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
  // Stored before anything reads the list (the first read caches it).
  expect(await seedFilterTerms([{ term: 'spam', action: 'hold' }])).toBe(true);
});
afterAll(async () => stack?.stop());

const as = (u: TestAccount) => ({ openid: u.openid, token: u.token });
const getVideo = (params: Record<string, string>) => hub<{ video: VideoView }>(api, 'get_video', params);
const ok = async <T,>(res: Promise<{ status: number; body: unknown; data: T }>) => {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.data;
};
/** The feed's item of `vid`: opened from a share of it, get_next_list answers it first. */
async function feedItem(vid: string, caller?: TestAccount): Promise<VideoView> {
  const { shareid } = await ok(hub<{ shareid: string }>(api, 'sharetext', { openid: fan.openid, vid, d: '', locale: 'en', country: '' }));
  await settleStreams();
  const feed = await ok(hub<{ list: VideoView[] }>(api, 'get_next_list', { ...(caller ? as(caller) : { openid: 'anonymous-device' }), shareid, watch_count: '1' }));
  expect(feed.list[0]?.vid).toBe(vid);
  return feed.list[0]!;
}
const notFound = { code: 'NOT_FOUND', error: expect.stringContaining('does not exist') };

describe('get_video', () => {
  it('anonymous: the video with the fields and counts of its feed item, without marks', async () => {
    const video = await putTestVideo(author.openid, { title: 'Hall 5 walkthrough', tags: ['expo', 'hall-5'] });
    await ok(hub(api, 'like', { ...as(fan), vid: video.vid }));
    await ok(hub(api, 'comment_set', { ...as(fan), vid: video.vid, content: 'see you there' }));
    const item = await feedItem(video.vid);

    const { video: got } = await ok(getVideo({ openid: 'anonymous-device', vid: video.vid }));
    expect(got).toEqual(item);
    expect(got).toMatchObject({ vid: video.vid, title: 'Hall 5 walkthrough', tags: ['expo', 'hall-5'], author: { openid: author.openid }, like_count: 1, comment_count: 1, share_count: 1 });
    expect(got).not.toHaveProperty('liked');
    expect(got).not.toHaveProperty('disliked');
  });

  it("signed in: liked and disliked are the caller's, the counts as the caller sees them, as in the feed", async () => {
    const video = await putTestVideo(author.openid);
    const liked = await ok(hub<{ like_count: number }>(api, 'like', { ...as(viewer), vid: video.vid }));
    // Before the stream applied the like: the caller's own count holds it (docs/data-model.md, "Read your own writes").
    const { video: fresh } = await ok(getVideo({ ...as(viewer), vid: video.vid }));
    expect(fresh).toMatchObject({ liked: true, disliked: false, like_count: liked.like_count });

    const item = await feedItem(video.vid, viewer);
    const { video: got } = await ok(getVideo({ ...as(viewer), vid: video.vid }));
    expect(got).toEqual(item);
    // Another caller's marks are their own.
    expect((await ok(getVideo({ ...as(fan), vid: video.vid }))).video).toMatchObject({ liked: false, disliked: false, like_count: 1 });

    await ok(hub(api, 'dislike', { ...as(viewer), vid: video.vid, action: 'dislike' }));
    expect((await ok(getVideo({ ...as(viewer), vid: video.vid }))).video).toMatchObject({ liked: false, disliked: true, like_count: 0 });
  });

  it('404 for an unknown vid, signed in or not', async () => {
    for (const caller of [{ openid: 'anonymous-device' }, as(viewer)]) {
      const res = await getVideo({ ...caller, vid: 'v_no_such_video' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
    }
  });

  it('404 for a video a moderator removed, from the removal on', async () => {
    const video = await putTestVideo(author.openid);
    await ok(getVideo({ openid: 'anonymous-device', vid: video.vid }));
    await ok(hub(api, 'report', { ...as(fan), target: 'video', id: video.vid, reason: 'violent' }));
    expect((await api.post('/api/v1/moderation/actions', { token: moderator.token, body: { target: { type: 'video', id: video.vid }, action: 'remove' } })).status).toBe(200);
    for (const caller of [{ openid: 'anonymous-device' }, as(viewer), as(author)]) {
      const res = await getVideo({ ...caller, vid: video.vid });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
    }
  });

  it('404 for a publish the filter holds, its author included; 200 once a moderator approves it', async () => {
    const body = { title: 'Cheap spam booth', video_url: 'https://cdn.example.com/h.mp4', cover_url: 'https://cdn.example.com/h.jpg', duration_s: 90 };
    const held = await api.post<{ video: { vid: string }; held?: true }>('/api/v1/videos', { token: editor.token, body });
    expect(held.data).toMatchObject({ held: true });
    const vid = held.data.video.vid;
    for (const caller of [{ openid: 'anonymous-device' }, as(editor)]) {
      const res = await getVideo({ ...caller, vid });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(notFound);
    }
    const queue = await api.get<{ items: { kind: string; held_id?: string; target: { type: string; id: string } }[] }>('/api/v1/moderation/reports?limit=100', { token: moderator.token });
    const entry = queue.data.items.find((e) => e.kind === 'held' && e.target.type === 'video' && e.target.id === vid);
    expect((await api.post('/api/v1/moderation/actions', { token: moderator.token, body: { target: { type: 'held', id: entry!.held_id }, action: 'approve' } })).status).toBe(200);
    expect((await ok(getVideo({ openid: 'anonymous-device', vid }))).video).toMatchObject({ vid, title: 'Cheap spam booth' });
  });

  it("the feed's blocked-author rule: 404 for the blocker (as unknown), the blocked author still gets the blocker's videos; 200 again after unblocking", async () => {
    const [blocker, blocked] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const theirs = await putTestVideo(blocked.openid);
    const mine = await putTestVideo(blocker.openid);
    await ok(hub(api, 'block_user', { ...as(blocker), block_user: blocked.openid }));

    const refused = await getVideo({ ...as(blocker), vid: theirs.vid });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ code: 'NOT_FOUND', error: `Video "${theirs.vid}" does not exist` });
    // One-way: the blocked account and anyone else still get them.
    expect((await ok(getVideo({ ...as(blocked), vid: mine.vid }))).video.vid).toBe(mine.vid);
    expect((await ok(getVideo({ ...as(viewer), vid: theirs.vid }))).video.vid).toBe(theirs.vid);
    expect((await ok(getVideo({ openid: blocker.openid, vid: theirs.vid }))).video.vid).toBe(theirs.vid);

    await ok(hub(api, 'unblock_user', { ...as(blocker), block_user: blocked.openid }));
    expect((await ok(getVideo({ ...as(blocker), vid: theirs.vid }))).video).toMatchObject({ vid: theirs.vid, liked: false, disliked: false });
  });

  it('a token that is present must be valid and belong to openid (401); vid and openid are required (400 naming them)', async () => {
    const video = await putTestVideo(author.openid);
    for (const token of ['not-a-jwt', fan.token]) {
      const res = await getVideo({ openid: viewer.openid, token, vid: video.vid });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
    for (const [params, name] of [[{ openid: viewer.openid }, 'vid'], [{ openid: viewer.openid, vid: '  ' }, 'vid'], [{ vid: video.vid }, 'openid']] as const) {
      const res = await getVideo(params);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining(`"${name}"`) });
    }
  });
});
