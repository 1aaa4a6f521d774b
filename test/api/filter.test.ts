import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { FILTER_CACHE_MS, filterTermKeys } from '../../lib/features/filter/terms.js';
import { approveHeld, discardHeld, listHeld } from '../../lib/features/filter/held.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, storedAuditEvents, storedVideosOfAuthor, type TestAccount, type TestVideo } from '../support/hub-fixtures.js';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';
import { MINUTE_MS, pinInsideWindow, resumeClock } from '../support/clock-windows.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: TestAccount;
let editor: TestAccount;
let alice: TestAccount;
let bob: TestAccount;
let video: TestVideo;
let adminKey: string;
const moderator = () => ({ user_id: admin.openid, auth_type: 'jwt' });

interface TermList {
  version: number;
  terms: { term: string; action: 'reject' | 'hold' }[];
  updated_at: string | null;
  changed?: boolean;
}
interface Comment {
  cid: string;
  content: string;
  held?: true;
}
interface CommentPage {
  list: Comment[];
  total: number;
}

const terms = (token: string | undefined = admin.token) => api.get<TermList>('/api/v1/admin/filter-terms', { token });
const putTerms = (body: unknown, token: string | undefined = admin.token) => api.post<TermList>('/api/v1/admin/filter-terms', { token, body });
const deleteTerm = (term: string, token: string | undefined = admin.token) => api.delete<TermList>(`/api/v1/admin/filter-terms/${encodeURIComponent(term)}`, { token });
const as = (u: TestAccount) => ({ openid: u.openid, token: u.token });
const comment = (u: TestAccount, content: string, vid = video.vid) => hub<{ comment: Comment; comment_count: number; held?: true }>(api, 'comment_set', { ...as(u), vid, content });
const comments = (u: TestAccount, vid = video.vid) => hub<CommentPage>(api, 'comment_get', { ...as(u), vid, page: 1, d: '' });
const auditTypes = async (openid: string) => (await storedAuditEvents(openid)).map((e) => e.type);
/** The list applies in every function within FILTER_CACHE_MS: tests that change it move the clock past it. */
const afterCacheBound = () => clock.advance(FILTER_CACHE_MS);
const heldOf = async (author: string) => (await listHeld({ limit: 100 })).items.filter((h) => h.author === author);

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  const accounts = [...(await putTestAccounts(1, ['admin'])), ...(await putTestAccounts(1, ['editor'])), ...(await putTestAccounts(2))];
  [admin, editor, alice, bob] = [accounts[0]!, accounts[1]!, accounts[2]!, accounts[3]!];
  video = await putTestVideo(editor.openid, { title: 'Hall 3 tour' });
  const key = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: admin.token, body: { name: 'admin script' } });
  adminKey = key.data.api_key;
  const seeded = await putTerms({
    terms: [
      { term: 'shit', action: 'reject' },
      { term: '傻逼', action: 'reject' },
      { term: 'spam', action: 'hold' },
      { term: '加微信', action: 'hold' },
    ],
  });
  expect(seeded.status).toBe(200);
  afterCacheBound();
});
afterAll(async () => stack?.stop());

describe('the term list (admin routes)', () => {
  it('is stored normalised and sorted, with a version; a repeat changes nothing and stores no second event', async () => {
    const before = (await terms()).data;
    const events = (await auditTypes(admin.openid)).length;
    const added = await putTerms({ terms: [{ term: 'Ｃａｓｉｎｏ', action: 'hold' }] });
    expect(added.status).toBe(200);
    expect(added.data).toMatchObject({ version: before.version + 1, changed: true });
    expect(added.data.terms).toContainEqual({ term: 'casino', action: 'hold' });
    expect(added.data.terms.map((t) => t.term)).toEqual([...added.data.terms.map((t) => t.term)].sort());
    const again = await putTerms({ terms: [{ term: 'casino', action: 'hold' }] });
    expect(again.data).toMatchObject({ version: before.version + 1, changed: false });
    expect(await auditTypes(admin.openid)).toHaveLength(events + 1);
    expect((await auditTypes(admin.openid)).filter((t) => t === 'filter.terms_changed').length).toBeGreaterThan(0);

    // Replacing the action of a listed term, then removing it in another spelling.
    const replaced = await putTerms({ terms: [{ term: 'CASINO', action: 'reject' }] });
    expect(replaced.data.terms).toContainEqual({ term: 'casino', action: 'reject' });
    const removed = await deleteTerm('c.a.s.i.n.o');
    expect(removed.data).toMatchObject({ version: before.version + 3, changed: true });
    expect(removed.data.terms.map((t) => t.term)).not.toContain('casino');
    const gone = await deleteTerm('casino');
    expect(gone.data).toMatchObject({ version: before.version + 3, changed: false });
    expect((await terms()).data).toEqual({ ...before, version: before.version + 3, updated_at: removed.data.updated_at });
  });

  it.each([
    ['an empty term', { terms: [{ term: ' ', action: 'hold' }] }, 'terms'],
    ['separators only', { terms: [{ term: '-.-', action: 'hold' }] }, 'terms'],
    ['a term over 40 characters', { terms: [{ term: 'x'.repeat(41), action: 'hold' }] }, 'terms'],
    ['an unknown action', { terms: [{ term: 'x', action: 'ban' }] }, 'terms'],
    ['no terms', { terms: [] }, 'terms'],
    ['an unknown field', { terms: [{ term: 'x', action: 'hold' }], extra: 1 }, 'extra'],
  ])('refuses %s: 400 naming the parameter, nothing changed', async (_, body, name) => {
    const before = (await terms()).data;
    const res = await putTerms(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((res.body as { error: string }).error).toContain(name);
    expect((await terms()).data).toEqual(before);
  });

  it('is 403 for a login token without the admin role and for an admin access key, 401 without a credential', async () => {
    const item = await getHubItem(filterTermKeys.list());
    for (const call of [() => terms(alice.token), () => putTerms({ terms: [{ term: 'x', action: 'hold' }] }, alice.token), () => deleteTerm('spam', alice.token)]) {
      expect((await call()).status).toBe(403);
    }
    for (const call of [() => terms(adminKey), () => putTerms({ terms: [{ term: 'x', action: 'hold' }] }, adminKey), () => deleteTerm('spam', adminKey)]) {
      expect((await call()).status).toBe(403);
    }
    expect((await terms('')).status).toBe(401);
    expect(await getHubItem(filterTermKeys.list())).toEqual(item);
  });

  it('a change applies within the cache bound, not before: every function keeps the list it read for at most 60 s', async () => {
    expect((await comment(alice, 'zorblax is here')).status).toBe(200); // the list is read (and cached) now
    expect((await putTerms({ terms: [{ term: 'zorblax', action: 'reject' }] })).status).toBe(200);
    clock.advance(FILTER_CACHE_MS - 1_000);
    expect((await comment(alice, 'zorblax again')).status).toBe(200);
    clock.advance(1_000);
    const res = await comment(alice, 'z.o.r.b.l.a.x once more');
    expect(res.status).toBe(400);
    expect((await deleteTerm('zorblax')).status).toBe(200);
    afterCacheBound();
    expect((await comment(alice, 'zorblax at last')).status).toBe(200);
  });
});

describe('reject: 400 naming the field, nothing stored', () => {
  it('comment_set content', async () => {
    const vid = (await putTestVideo(editor.openid)).vid;
    for (const content of ['this is S.H.I.T', '你 傻\u200B逼']) {
      const res = await comment(alice, content, vid);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: 'Invalid parameter "content": contains a term that is not allowed' });
    }
    await settleStreams();
    expect((await comments(alice, vid)).data).toMatchObject({ list: [], total: 0 });
    expect(await heldOf(alice.openid)).toEqual([]);
  });

  it.each(['nickname', 'signature', 'city'] as const)('change_%s', async (field) => {
    const before = await getHubItem(accountKeys.account(bob.openid));
    const res = await hub(api, `change_${field}`, { ...as(bob), [field]: 'ｓｈｉｔ town' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: `Invalid parameter "${field}": contains a term that is not allowed` });
    expect(await getHubItem(accountKeys.account(bob.openid))).toEqual(before);
    expect(await heldOf(bob.openid)).toEqual([]);
  });

  it.each(['title', 'description'] as const)('POST /api/v1/videos %s', async (field) => {
    const body = { title: 'Clean title', description: 'Clean', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60, [field]: 'what a sh-it show' };
    const before = await storedVideosOfAuthor(editor.openid);
    const res = await api.post('/api/v1/videos', { token: editor.token, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: `Invalid parameter "${field}": contains a term that is not allowed` });
    expect(await storedVideosOfAuthor(editor.openid)).toEqual(before);
    expect(await heldOf(editor.openid)).toEqual([]);
  });
});

describe('invisible fillers fold like separators, in every field the filter checks', () => {
  const publishBody = (over: Record<string, unknown>) => ({ title: 'Clean title', description: 'Clean', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60, ...over });
  /** Each field the filter checks: how to write `text` into it, and the name its 400 gives. */
  const FIELDS: [string, (text: string) => Promise<{ status: number; body: unknown }>][] = [
    ['content', (text) => comment(alice, text)],
    ['nickname', (text) => hub(api, 'change_nickname', { ...as(bob), nickname: text })],
    ['signature', (text) => hub(api, 'change_signature', { ...as(bob), signature: text })],
    ['city', (text) => hub(api, 'change_city', { ...as(bob), city: text })],
    ['title', (text) => api.post('/api/v1/videos', { token: editor.token, body: publishBody({ title: text }) })],
    ['description', (text) => api.post('/api/v1/videos', { token: editor.token, body: publishBody({ description: text }) })],
    ['tags.1', (text) => api.post('/api/v1/videos', { token: editor.token, body: publishBody({ tags: ['expo', text] }) })],
  ];
  const TEXTS = [
    ['HANGUL FILLER U+3164', '傻\u3164逼'],
    ['HALFWIDTH HANGUL FILLER U+FFA0', '傻\uFFA0逼'],
    ['U+3164 between spaced letters', 's\u3164h\u3164i\u3164t you'],
    ['a variation selector and a tag character', 's\uFE0Fh\u{E0020}it'],
  ];
  it.each(FIELDS.flatMap(([field, write]) => TEXTS.map(([what, text]) => [field, what, text, write] as const)))('%s with %s: 400 naming it, nothing stored', async (field, _, text, write) => {
    const before = { account: await getHubItem(accountKeys.account(bob.openid)), videos: await storedVideosOfAuthor(editor.openid), comments: (await comments(alice)).data.total };
    const res = await write(text!);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: `Invalid parameter "${field}": contains a term that is not allowed` });
    await settleStreams();
    expect({ account: await getHubItem(accountKeys.account(bob.openid)), videos: await storedVideosOfAuthor(editor.openid), comments: (await comments(alice)).data.total }).toEqual(before);
    expect([...(await heldOf(alice.openid)), ...(await heldOf(bob.openid)), ...(await heldOf(editor.openid))]).toEqual([]);
  });
});

describe('a field that must not be empty must not be blank either (only invisible characters)', () => {
  const publishBody = (over: Record<string, unknown>) => ({ title: 'Clean title', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60, ...over });
  const FIELDS: [string, (text: string) => Promise<{ status: number; body: unknown }>][] = [
    ['content', (text) => comment(alice, text)],
    ['nickname', (text) => hub(api, 'change_nickname', { ...as(bob), nickname: text })],
    ['title', (text) => api.post('/api/v1/videos', { token: editor.token, body: publishBody({ title: text }) })],
    ['tags.1', (text) => api.post('/api/v1/videos', { token: editor.token, body: publishBody({ tags: ['expo', text] }) })],
  ];
  const BLANKS = [
    ['HANGUL FILLER U+3164', '\u3164'],
    ['HALFWIDTH HANGUL FILLERs and a zero-width space', '\uFFA0\u200B\uFFA0'],
    ['BRAILLE PATTERN BLANK and KHITAN SMALL SCRIPT FILLER', '\u2800\u{16FE4}'],
  ];
  it.each(FIELDS.flatMap(([field, write]) => BLANKS.map(([what, text]) => [field, what, text, write] as const)))('%s of %s: 400 naming it, nothing stored', async (field, _, text, write) => {
    const before = { account: await getHubItem(accountKeys.account(bob.openid)), videos: await storedVideosOfAuthor(editor.openid), comments: (await comments(alice)).data.total };
    const res = await write(text!);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: `Invalid parameter "${field}": must contain a visible character` });
    await settleStreams();
    expect({ account: await getHubItem(accountKeys.account(bob.openid)), videos: await storedVideosOfAuthor(editor.openid), comments: (await comments(alice)).data.total }).toEqual(before);
  });

  it('a visible character among them is enough (a Hangul syllable after a filler)', async () => {
    const res = await hub<{ profile: { nickname: string } }>(api, 'change_nickname', { ...as(bob), nickname: '\u3164한' });
    expect(res.status).toBe(200);
    expect(res.data.profile.nickname).toBe('\u3164한');
  });
});

describe('video tags (POST /api/v1/videos)', () => {
  const body = (tags: string[], over: Record<string, unknown> = {}) => ({ title: 'Hall 5 walk', video_url: 'https://cdn.example.com/t.mp4', cover_url: 'https://cdn.example.com/t.jpg', duration_s: 45, tags, ...over });

  it.each([
    ['a reject term', ['傻逼', 'fuck'], 'tags.0'],
    ['a spelled-out term after clean tags', ['expo', 'hall-5', 'S.H.I.T'], 'tags.2'],
    ['a term after a duplicate (named as sent)', ['expo', 'expo', ' ｓｈｉｔ '], 'tags.2'],
  ])('%s: 400 naming the tag, nothing stored; the dry run says the same', async (_, tags, name) => {
    const before = await storedVideosOfAuthor(editor.openid);
    for (const path of ['/api/v1/videos', '/api/v1/videos?dry_run=true']) {
      const res = await api.post(path, { token: editor.token, body: body(tags) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: `Invalid parameter "${name}": contains a term that is not allowed` });
    }
    expect(await storedVideosOfAuthor(editor.openid)).toEqual(before);
    expect(await heldOf(editor.openid)).toEqual([]);
  });

  it('title and description are named before the tags', async () => {
    const res = await api.post('/api/v1/videos', { token: editor.token, body: body(['shit'], { description: '傻逼' }) });
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: 'Invalid parameter "description": contains a term that is not allowed' });
  });

  it('a hold term in a tag holds the publish as in a title: in no list until approved, the moderator sees the tag', async () => {
    const before = await storedVideosOfAuthor(editor.openid);
    const res = await api.post<{ video: { vid: string; tags: string[] }; created: boolean; held?: true }>('/api/v1/videos', { token: editor.token, body: body(['expo', 'cheap spam'], { external_id: 'held-tag-1' }) });
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({ held: true, created: true, video: { tags: ['expo', 'cheap spam'] } });
    expect(await storedVideosOfAuthor(editor.openid)).toEqual(before);
    const [item] = await heldOf(editor.openid);
    expect(item).toMatchObject({ target_type: 'video', target_id: res.data.video.vid, fields: ['tags.1'], text: { title: 'Hall 5 walk', 'tags.1': 'cheap spam' } });
    await approveHeld(item!.held_id, moderator());
    const published = (await storedVideosOfAuthor(editor.openid)).find((v) => v.vid === res.data.video.vid);
    expect(published).toMatchObject({ tags: ['expo', 'cheap spam'] });
  });
});

describe('hold: visible to its author only until approved', () => {
  it('a held comment takes no number; its author sees it on page 1; approval posts it, discard removes it', async () => {
    const vid = (await putTestVideo(editor.openid)).vid;
    const held = await comment(alice, 'cheap SPAM here', vid);
    expect(held.status).toBe(200);
    expect(held.data).toMatchObject({ held: true, comment_count: 0, comment: { content: 'cheap SPAM here', held: true } });
    // A retry holds it once.
    expect((await comment(alice, 'cheap SPAM here', vid)).data.comment.cid).toBe(held.data.comment.cid);
    expect((await comment(bob, 'a clean one', vid)).status).toBe(200);
    await settleStreams();
    expect((await comments(alice, vid)).data).toMatchObject({ total: 1, list: [{ content: 'cheap SPAM here', held: true }, { content: 'a clean one' }] });
    expect((await comments(bob, vid)).data).toMatchObject({ total: 1, list: [{ content: 'a clean one' }] });
    expect((await comments(bob, vid)).data.list).toHaveLength(1);
    expect((await hub(api, 'comment_get', { ...as(alice), vid, page: 2, d: '' })).data).toMatchObject({ list: [] });

    const [item] = await heldOf(alice.openid);
    expect(item).toMatchObject({ target_type: 'comment', target_id: held.data.comment.cid, author: alice.openid, fields: ['content'], text: { content: 'cheap SPAM here' }, vid });
    const approved = await approveHeld(item!.held_id, moderator());
    expect(approved).toMatchObject({ target_type: 'comment' });
    await settleStreams();
    const seen = (await comments(bob, vid)).data;
    expect(seen).toMatchObject({ total: 2, list: [{ content: 'cheap SPAM here', cid: approved.target_id }, { content: 'a clean one' }] });
    expect(seen.list[0]!.held).toBeUndefined();
    expect((await comments(alice, vid)).data.list).toHaveLength(2);
    expect(await heldOf(alice.openid)).toEqual([]);
    expect(await auditTypes(alice.openid)).toContain('filter.held_approved');
    await expect(approveHeld(item!.held_id, moderator())).rejects.toMatchObject({ status: 404 });

    // Discarded: gone for its author too, and no comment.
    await comment(alice, '加 微 信 now', vid);
    const [second] = await heldOf(alice.openid);
    await discardHeld(second!.held_id, moderator());
    await settleStreams();
    expect((await comments(alice, vid)).data).toMatchObject({ total: 2 });
    expect((await comments(alice, vid)).data.list.map((c) => c.content)).not.toContain('加 微 信 now');
    expect(await heldOf(alice.openid)).toEqual([]);
    expect(await auditTypes(alice.openid)).toContain('filter.held_discarded');
    await expect(approveHeld(second!.held_id, moderator())).rejects.toMatchObject({ status: 404 });
  });

  it('held comments count against the comment rate limit; a retry of a held one is still answered', async () => {
    const [gus] = await putTestAccounts(1);
    const vid = (await putTestVideo(editor.openid)).vid;
    // The 11 comments in one minute window, however slowly they run (the file's clock runs on afterwards).
    pinInsideWindow(MINUTE_MS, 5_000);
    onTestFinished(resumeClock);
    for (let n = 1; n <= 10; n++) expect((await comment(gus!, `spam ${n}`, vid)).status).toBe(200);
    const over = await comment(gus!, 'spam 11', vid);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await comment(gus!, 'spam 3', vid)).data).toMatchObject({ held: true, comment: { content: 'spam 3' } });
    expect(await heldOf(gus!.openid)).toHaveLength(10);
  });

  it("a deleted account's held item is not approved", async () => {
    const [hal] = await putTestAccounts(1);
    const vid = (await putTestVideo(editor.openid)).vid;
    await comment(hal!, 'spam from hal', vid);
    const [item] = await heldOf(hal!.openid);
    expect((await hub(api, 'delete_account', { ...as(hal!), confirm: 'delete' })).status).toBe(200);
    await expect(approveHeld(item!.held_id, moderator())).rejects.toMatchObject({ status: 404 });
    await settleStreams();
    expect((await comments(bob, vid)).data).toMatchObject({ total: 0, list: [] });
  });

  it.each(['nickname', 'signature', 'city'] as const)('a held %s: others keep the previous value, the author sees it pending, approval applies it', async (field) => {
    const [carol] = await putTestAccounts(1);
    const before = (await getHubItem<Record<string, string>>(accountKeys.account(carol!.openid)))![field];
    const res = await hub<{ profile: Record<string, string>; held?: true; pending?: Record<string, string> }>(api, `change_${field}`, { ...as(carol!), [field]: 'spam king' });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ held: true, pending: { [field]: 'spam king' } });
    expect(res.data.profile[field]).toBe(before);
    const public_ = await hub<{ profile: Record<string, string> }>(api, 'get_fav', { ...as(bob), next_id: 0, fav_index: 0, watch_list: '', view: carol!.openid, q: '' });
    expect(public_.data.profile[field]).toBe(before);
    const me = await api.get<{ pending_profile?: Record<string, string> }>('/api/v1/me', { token: carol!.token });
    expect(me.data.pending_profile).toEqual({ [field]: 'spam king' });
    expect((await api.get<{ pending_profile?: unknown }>('/api/v1/me', { token: bob.token })).data.pending_profile).toBeUndefined();

    const [item] = await heldOf(carol!.openid);
    expect(item).toMatchObject({ target_type: 'user', target_id: carol!.openid, fields: [field], text: { [field]: 'spam king' } });
    await approveHeld(item!.held_id, moderator());
    expect((await getHubItem<Record<string, string>>(accountKeys.account(carol!.openid)))![field]).toBe('spam king');
    expect((await api.get<{ pending_profile?: unknown }>('/api/v1/me', { token: carol!.token })).data.pending_profile).toBeUndefined();
  });

  it('a value the filter lets through drops an earlier held value of the field', async () => {
    const [dave] = await putTestAccounts(1);
    expect((await hub(api, 'change_city', { ...as(dave!), city: 'spam ville' })).data).toMatchObject({ held: true });
    expect((await hub(api, 'change_city', { ...as(dave!), city: 'Shanghai' })).data).not.toHaveProperty('held');
    expect(await heldOf(dave!.openid)).toEqual([]);
    expect((await api.get<{ pending_profile?: unknown }>('/api/v1/me', { token: dave!.token })).data.pending_profile).toBeUndefined();
  });

  it('a held video is in no list until approved; the publisher is told `held: true`', async () => {
    const body = { title: 'Best spam booth', video_url: 'https://cdn.example.com/h.mp4', cover_url: 'https://cdn.example.com/h.jpg', duration_s: 90, external_id: 'held-1' };
    const before = await storedVideosOfAuthor(editor.openid);
    const res = await api.post<{ video: { vid: string; title: string }; created: boolean; held?: true }>('/api/v1/videos', { token: editor.token, body });
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({ held: true, created: true, video: { title: 'Best spam booth' } });
    // A retry holds the same video again.
    expect((await api.post<{ video: { vid: string } }>('/api/v1/videos', { token: editor.token, body })).data.video.vid).toBe(res.data.video.vid);
    expect(await heldOf(editor.openid)).toHaveLength(1);
    expect(await storedVideosOfAuthor(editor.openid)).toEqual(before);
    const newest = await hub<{ list: { vid: string }[] }>(api, 'get_next_list', { openid: 'reader', order: 'new', watch_count: 20 });
    expect(newest.data.list.map((v) => v.vid)).not.toContain(res.data.video.vid);

    const [item] = await heldOf(editor.openid);
    expect(item).toMatchObject({ target_type: 'video', target_id: res.data.video.vid, fields: ['title'], text: { title: 'Best spam booth' } });
    await approveHeld(item!.held_id, moderator());
    expect((await storedVideosOfAuthor(editor.openid)).map((v) => v.vid)).toContain(res.data.video.vid);
    const after = await hub<{ list: { vid: string }[] }>(api, 'get_next_list', { openid: 'reader', order: 'new', watch_count: 20 });
    expect(after.data.list.map((v) => v.vid)).toContain(res.data.video.vid);
    expect(await heldOf(editor.openid)).toEqual([]);
  });

  it('the queue lists held items oldest first, paged by cursor', async () => {
    const [erin] = await putTestAccounts(1);
    const vid = (await putTestVideo(editor.openid)).vid;
    for (const n of [1, 2, 3]) {
      await comment(erin!, `spam number ${n}`, vid);
      clock.advance(1_000);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listHeld({ limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.filter((h) => h.author === erin!.openid).map((h) => h.text.content!));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['spam number 1', 'spam number 2', 'spam number 3']);
    await expect(listHeld({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ status: 400 });
  });
});

describe('held items and the account', () => {
  it("the account's data export holds its own held items; the erasure of a deleted account removes them from the queue", async () => {
    const [fay] = await putTestAccounts(1);
    const vid = (await putTestVideo(editor.openid)).vid;
    await comment(fay!, 'spam from fay', vid);
    await hub(api, 'change_signature', { ...as(fay!), signature: 'spam is life' });
    await comment(bob, 'spam from bob', vid);

    const records: { type: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.get<{ records: { type: string }[]; next_cursor: string | null }>(`/api/v1/me/data${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { token: fay!.token });
      expect(page.status).toBe(200);
      records.push(...page.data.records);
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
    const held = records.filter((r) => r.type === 'held');
    expect(held).toEqual(
      expect.arrayContaining([
        { type: 'held', target_type: 'comment', target_id: expect.any(String), fields: ['content'], text: { content: 'spam from fay' }, held_at: expect.any(String) },
        { type: 'held', target_type: 'user', target_id: fay!.openid, fields: ['signature'], text: { signature: 'spam is life' }, held_at: expect.any(String) },
      ]),
    );
    expect(held).toHaveLength(2);

    expect((await hub(api, 'delete_account', { ...as(fay!), confirm: 'delete' })).status).toBe(200);
    await settleStreams();
    expect(await heldOf(fay!.openid)).toEqual([]);
    expect(await heldOf(bob.openid)).toHaveLength(1);
  });
});
