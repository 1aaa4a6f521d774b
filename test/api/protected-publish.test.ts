import { afterAll, beforeAll, describe, expect, it } from 'vitest';


import { getAccount } from '../../lib/entities/accounts/accounts.js';
import { hub, signUp, storedVideosOfAuthor, type SignedUp } from '../support/hub-fixtures.js';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { snapshotDiff, storeSnapshot } from '../support/fault-sweep.js';
import { apiClient, startTestStack } from '../support/stack.js';

type Video = VideoView;

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: SignedUp;
let editor: SignedUp;
let plain: SignedUp;

const createKey = async (owner: SignedUp, scopes: string[] = []) => {
  const res = await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: owner.token, body: { name: 'pipeline', scopes } });
  expect(res.status).toBe(201);
  return res.data;
};
const grant = async (who: SignedUp, roles: string[]) => {
  const res = await api.post(`/api/v1/admin/users/${who.openid}/roles`, { token: admin.token, body: { roles } });
  expect(res.status).toBe(200);
};
const publish = (token: string | undefined, body: unknown) => api.post<{ video: Video; created: boolean }>('/api/v1/videos', { token, body });

let seq = 0;
const videoBody = (extra: Record<string, unknown> = {}) => ({
  title: `Robot arm demo ${++seq}`,
  description: 'Six-axis arm at the Shanghai fair',
  video_url: `https://cdn.example.com/v/${seq}.mp4`,
  cover_url: `https://cdn.example.com/c/${seq}.jpg`,
  duration_s: 95,
  tags: ['robotics', '机器人'],
  ...extra,
});

/** The author's videos as stored (the author index, then the items), and their video_count. */
const storedVideosOf = storedVideosOfAuthor;
const videoCount = async (openid: string) => (await getAccount(openid, true))?.video_count ?? 0;

beforeAll(async () => {
  stack = await startTestStack({ http: false, env: { ENFORCE_KEY_SCOPES: 'false' } });
  api = apiClient(stack.url);
  admin = await signUp(api, ADMIN_PHONE);
  editor = await signUp(api);
  plain = await signUp(api);
});
afterAll(async () => stack?.stop());

describe('POST /api/v1/videos: who may publish (stored roles, read per request)', () => {
  it('refuses an account without a role, with a JWT or a key, and stores nothing', async () => {
    const { api_key } = await createKey(plain);
    for (const token of [plain.token, api_key]) {
      const res = await publish(token, videoBody());
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining('editor') });
    }
    expect(await storedVideosOf(plain.openid)).toEqual([]);
    expect(await videoCount(plain.openid)).toBe(0);
  });

  it("an editor's key publishes at once after the role is granted, even a key created before the grant", async () => {
    const { api_key } = await createKey(editor);
    expect((await publish(api_key, videoBody())).status).toBe(403);
    await grant(editor, ['editor']);
    const res = await publish(api_key, videoBody({ title: 'Granted just now' }));
    expect(res.status).toBe(201);
    expect(res.data.video.title).toBe('Granted just now');
    expect(res.data.video.author.openid).toBe(editor.openid);
    // The key still has no roles in its request context: the stored role is what counts.
    expect((await api.get('/api/v1/me', { token: api_key })).data).toMatchObject({ auth_type: 'api_key', roles: [] });
  });

  it("the editor's old login token (no role in its claims) publishes too", async () => {
    await grant(editor, ['editor']);
    expect((await publish(editor.token, videoBody())).status).toBe(201);
  });

  it("an admin's key publishes", async () => {
    const { api_key } = await createKey(admin);
    const res = await publish(api_key, videoBody());
    expect(res.status).toBe(201);
    expect(res.data.video.author.openid).toBe(admin.openid);
  });

  it('with the scope gate off, a key scoped only export:read still publishes', async () => {
    await grant(editor, ['editor']);
    const { api_key } = await createKey(editor, ['export:read']);
    expect((await publish(api_key, videoBody())).status).toBe(201);
  });

  it('a withdrawn role stops the next publish, for the key and the JWT alike', async () => {
    const author = await signUp(api);
    const { api_key } = await createKey(author);
    await grant(author, ['editor']);
    expect((await publish(api_key, videoBody())).status).toBe(201);
    await grant(author, []);
    expect((await publish(api_key, videoBody())).status).toBe(403);
    expect((await publish(author.token, videoBody())).status).toBe(403);
    expect(await videoCount(author.openid)).toBe(1);
  });

  it('refuses a missing credential and a revoked key with 401', async () => {
    await grant(editor, ['editor']);
    const { api_key, key } = await createKey(editor);
    expect((await publish(api_key, videoBody())).status).toBe(201);
    expect((await api.post(`/api/v1/api-keys/${key.id}/revoke`, { token: editor.token })).status).toBe(200);
    for (const token of [undefined, api_key]) {
      const res = await publish(token, videoBody());
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
  });
});

describe('POST /api/v1/videos: what is published', () => {
  let author: SignedUp;
  let key: string;
  beforeAll(async () => {
    author = await signUp(api);
    await grant(author, ['editor']);
    key = (await createKey(author)).api_key;
  });

  it("answers 201 with the contract's video shape and counts it on the author", async () => {
    const before = await videoCount(author.openid);
    const body = videoBody({ title: '  Smart factory tour  ', tags: ['智能制造', 'factory', 'factory'] });
    const res = await publish(key, body);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const { video } = res.data;
    expect(video).toEqual({
      vid: expect.any(String),
      title: 'Smart factory tour',
      description: body.description,
      cover_url: body.cover_url,
      video_url: body.video_url,
      duration_s: 95,
      tags: ['智能制造', 'factory'],
      author: { openid: author.openid, nickname: expect.any(String) },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      like_count: 0,
      comment_count: 0,
      share_count: 0,
      open_count: 0,
      liked: false,
      disliked: false,
    });
    expect(res.data.created).toBe(true);
    expect(await videoCount(author.openid)).toBe(before + 1);
    expect((await storedVideosOf(author.openid)).map((v) => v.vid)).toContain(video.vid);
  });

  it('enters the feed at once: first in order=new and found by q search (Chinese and English)', async () => {
    const res = await publish(key, videoBody({ title: '氢能源重卡 hydrogen truck debut', tags: ['新能源'] }));
    expect(res.status).toBe(201);
    const vid = res.data.video.vid;

    const newest = await hub<{ list: Video[] }>(api, 'get_next_list', { openid: 'anonymous-viewer', order: 'new', watch_count: 5, d: 'publish-test' });
    expect(newest.status).toBe(200);
    expect(newest.data.list[0]?.vid).toBe(vid);

    for (const q of ['氢能源', 'HYDROGEN']) {
      const found = await hub<{ list: Video[] }>(api, 'get_next_list', { openid: 'anonymous-viewer', q, watch_count: 20, d: `q-${q}` });
      expect(found.status).toBe(200);
      expect(found.data.list.map((v) => v.vid)).toContain(vid);
    }
  });

  it('the same external_id from the same account updates that video instead of adding one', async () => {
    const first = await publish(key, videoBody({ external_id: 'cms-42', title: 'First cut' }));
    expect(first.status).toBe(201);
    const count = await videoCount(author.openid);
    const again = await publish(key, videoBody({ external_id: 'cms-42', title: 'Final cut', tags: ['展会'] }));
    expect(again.status).toBe(201);
    expect(again.data.created).toBe(false);
    expect(again.data.video.vid).toBe(first.data.video.vid);
    expect(again.data.video).toMatchObject({ title: 'Final cut', tags: ['展会'], created_at: first.data.video.created_at });
    expect(await videoCount(author.openid)).toBe(count);
    const stored = (await storedVideosOf(author.openid)).filter((v) => v.external_id === 'cms-42');
    expect(stored).toHaveLength(1);
    expect(stored[0]!.title).toBe('Final cut');

    // Another account's external ids are its own.
    const other = await publish(editor.token, videoBody({ external_id: 'cms-42' }));
    expect(other.status).toBe(201);
    expect(other.data.video.vid).not.toBe(first.data.video.vid);
  });

  it('concurrent publishes of one external_id create one video', async () => {
    const count = await videoCount(author.openid);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => publish(key, videoBody({ external_id: 'race-1', title: `Take ${i}` }))));
    // Updates of one video are serialized; a request that keeps losing that race is told to retry
    // (503 + Retry-After, nothing written) rather than waiting without bound.
    const published = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status !== 201);
    for (const res of busy) {
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'UNAVAILABLE' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(published.length).toBeGreaterThan(0);
    expect(published.filter((r) => r.data.created)).toHaveLength(1);
    const vid = published[0]!.data.video.vid;
    expect(published.every((r) => r.data.video.vid === vid)).toBe(true);
    for (const _ of busy) {
      const retried = await publish(key, videoBody({ external_id: 'race-1', title: 'Retried take' }));
      expect(retried.status).toBe(201);
      expect(retried.data).toMatchObject({ created: false, video: { vid } });
    }
    expect((await storedVideosOf(author.openid)).filter((v) => v.external_id === 'race-1')).toHaveLength(1);
    expect(await videoCount(author.openid)).toBe(count + 1);
  });

  const long = (n: number) => 'x'.repeat(n);
  it.each([
    ['a missing title', { title: undefined }, 'title'],
    ['an empty title', { title: '   ' }, 'title'],
    ['a 121-character title', { title: long(121) }, 'title'],
    ['a title with a control character', { title: 'a\u0007b' }, 'title'],
    ['a title with a lone surrogate', { title: 'Booth \ud800 tour' }, 'title'],
    ['a description with a NUL', { description: 'first line\nsecond\u0000' }, 'description'],
    ['a video_url with a NUL', { video_url: 'https://cdn.example.com/a\u0000.mp4' }, 'video_url'],
    ['a cover_url with a lone surrogate', { cover_url: 'https://cdn.example.com/\udc00.jpg' }, 'cover_url'],
    ['a tag with a lone surrogate', { tags: ['ok', '\ud83d'] }, 'tags'],
    ['an external_id with a control character', { external_id: 'run\u001b42' }, 'external_id'],
    ['a 2001-character description', { description: long(2001) }, 'description'],
    ['an http video_url', { video_url: 'http://cdn.example.com/v.mp4' }, 'video_url'],
    ['a video_url that is no URL', { video_url: 'cdn.example.com/v.mp4' }, 'video_url'],
    ['a missing cover_url', { cover_url: undefined }, 'cover_url'],
    ['a javascript: cover_url', { cover_url: 'javascript:alert(1)' }, 'cover_url'],
    ['duration_s 0', { duration_s: 0 }, 'duration_s'],
    ['duration_s 36001', { duration_s: 36001 }, 'duration_s'],
    ['a fractional duration_s', { duration_s: 1.5 }, 'duration_s'],
    ['a string duration_s', { duration_s: '60' }, 'duration_s'],
    ['11 tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags'],
    ['a 31-character tag', { tags: [long(31)] }, 'tags'],
    ['an empty tag', { tags: ['ok', ' '] }, 'tags'],
    ['tags that are not an array', { tags: 'a,b' }, 'tags'],
    ['an empty external_id', { external_id: '' }, 'external_id'],
    ['a 129-character external_id', { external_id: long(129) }, 'external_id'],
  ])('answers 400 naming the field for %s and stores nothing', async (_label, change, field) => {
    const before = await storedVideosOf(author.openid);
    const res = await publish(key, { ...videoBody(), ...change });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((res.body as { error: string }).error).toContain(`"${field}`);
    expect(await storedVideosOf(author.openid)).toHaveLength(before.length);
  });

  it.each([
    ['a JSON array', '[]'],
    ['malformed JSON', '{"title": '],
    ['an empty body', ''],
  ])('answers 400 for a body that is %s', async (_label, rawBody) => {
    const res = await api.post('/api/v1/videos', { token: key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('POST /api/v1/videos?dry_run=true: checked as a publish, nothing written', () => {
  let author: SignedUp;
  beforeAll(async () => {
    author = await signUp(api);
    await grant(author, ['editor']);
  });
  const dryRun = (token: string | undefined, body: unknown, flag = 'true') =>
    api.post<{ dry_run: boolean; action: string; vid: string | null }>(`/api/v1/videos?dry_run=${flag}`, { token, body });

  it('answers create for a new external_id or none, update with the vid for a published one, and writes nothing', async () => {
    const published = await publish(author.token, videoBody({ external_id: 'dry-1', title: 'Stored title' }));
    expect(published.status).toBe(201);
    const before = await storeSnapshot();
    const count = await videoCount(author.openid);

    const update = await dryRun(author.token, videoBody({ external_id: 'dry-1', title: 'A new title' }));
    expect(update.status).toBe(200);
    expect(update.body).toEqual({ code: 0, data: { dry_run: true, action: 'update', vid: published.data.video.vid } });
    expect((await dryRun(author.token, videoBody({ external_id: 'dry-2' }))).data).toEqual({ dry_run: true, action: 'create', vid: null });
    expect((await dryRun(author.token, videoBody())).data).toEqual({ dry_run: true, action: 'create', vid: null });
    // Another account's external_id of the same name is not this account's video.
    expect((await dryRun(editor.token, videoBody({ external_id: 'dry-1' }))).data).toEqual({ dry_run: true, action: 'create', vid: null });

    expect(snapshotDiff(before, await storeSnapshot())).toEqual([]);
    expect(await videoCount(author.openid)).toBe(count);
    expect((await storedVideosOf(author.openid)).find((v) => v.external_id === 'dry-1')?.title).toBe('Stored title');
  });

  it('refuses what a publish refuses, with the same answers: a bad field, no role, no credential', async () => {
    const before = await storeSnapshot();
    const bad = await dryRun(author.token, videoBody({ duration_s: 0 }));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"duration_s"') });
    expect((await publish(author.token, videoBody({ duration_s: 0 }))).body).toEqual(bad.body);
    expect((await dryRun(plain.token, videoBody())).status).toBe(403);
    expect((await dryRun(undefined, videoBody())).status).toBe(401);
    expect(snapshotDiff(before, await storeSnapshot())).toEqual([]);
  });

  it.each(['yes', 'TRUE ', '2'])('dry_run=%s is 400 naming dry_run, and nothing is published', async (flag) => {
    const count = await videoCount(author.openid);
    const res = await dryRun(author.token, videoBody(), encodeURIComponent(flag));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"dry_run"') });
    expect(await videoCount(author.openid)).toBe(count);
  });

  it('dry_run=false (or empty) publishes as without it', async () => {
    for (const flag of ['false', '']) {
      const res = await api.post<{ video: Video; created: boolean }>(`/api/v1/videos?dry_run=${flag}`, { token: author.token, body: videoBody() });
      expect(res.status).toBe(201);
      expect(res.data.created).toBe(true);
    }
  });
});
