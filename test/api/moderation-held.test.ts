import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { clock } from '../../lib/platform/clock.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import { seedFilterTerms } from '../../lib/features/filter/terms.js';
import type { ActionResult } from '../../lib/features/moderation/actions.js';
import type { HeldEntry, QueueEntry } from '../../lib/features/moderation/queue.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, storedAuditEvents, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';

/**
 * Held content in the moderation queue and its actions (docs/moderation.md, "Moderation" and
 * "Filter"): held items and report cases in one list, oldest first across both, one cursor for both;
 * `approve` and `remove` on `target: {type: 'held', id: held_id}`.
 */
const api = useTestStack({ http: false });

let moderator: TestAccount;
let author: TestAccount;
let reader: TestAccount;
let reporter: TestAccount;
let vid: string;

type Queue = { items: QueueEntry[]; next_cursor: string | null };
const page = (query: string, who = moderator) => api.get<Queue>(`/api/v1/moderation/reports?${query}`, { token: who.token });
const act = (body: unknown, who = moderator) => api.post<ActionResult>('/api/v1/moderation/actions', { token: who.token, body });
const as = (u: TestAccount) => ({ openid: u.openid, token: u.token });
/** An entry's name in these tests: a case by its target, a held item by its held id. */
const nameOf = (e: QueueEntry) => (e.kind === 'held' ? `held:${e.held_id}` : `${e.target.type}:${e.target.id}`);
const whole = async () => (await page('limit=100')).data.items;
const heldFor = async (type: string, id: string) => (await whole()).find((e): e is HeldEntry => e.kind === 'held' && e.target.type === type && e.target.id === id);

beforeAll(async () => {
  [moderator] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
  [author, reader, reporter] = (await putTestAccounts(3)) as [TestAccount, TestAccount, TestAccount];
  vid = (await putTestVideo(reader.openid)).vid;
  // The list is stored before anything reads it: the first read caches it with the hold term.
  expect(await seedFilterTerms([{ term: 'spam', action: 'hold' }])).toBe(true);
});
afterEach(() => clock.reset());

describe('held content in the moderation queue', () => {
  it('held items and report cases in one list, oldest first; small pages give every entry once, in the same order', async () => {
    const base = Date.now() - 5 * 3600_000;
    const at = (minutes: number) => clock.set(base + minutes * 60_000);
    const comment = async (content: string) => (await hub<{ comment: CommentView; held?: true }>(api, 'comment_set', { ...as(author), vid, content })).data;
    const [a, b, c] = [await comment('first fine comment'), await comment('second fine comment'), await comment('third fine comment')];
    at(0);
    await hub(api, 'report', { ...as(reporter), target: 'comment', id: a.comment.cid, reason: 'spam' });
    at(10);
    const heldComment = await comment('cheap spam here');
    expect(heldComment.held).toBe(true);
    at(20);
    await hub(api, 'report', { ...as(reporter), target: 'comment', id: b.comment.cid, reason: 'abusive' });
    at(30);
    expect((await hub(api, 'change_nickname', { ...as(author), nickname: 'spam king' })).data).toMatchObject({ held: true });
    at(40);
    await hub(api, 'report', { ...as(reporter), target: 'comment', id: c.comment.cid, reason: 'other' });
    // A second report of the first case later on: its place is still its oldest open report.
    at(50);
    await hub(api, 'report', { ...as(reader), target: 'comment', id: a.comment.cid, reason: 'spam' });
    clock.reset();

    const items = await whole();
    expect(items.map((e) => (e.kind === 'held' ? `held:${e.target.type}` : `${e.target.type}:${e.target.id}`))).toEqual([
      `comment:${a.comment.cid}`,
      'held:comment',
      `comment:${b.comment.cid}`,
      'held:user',
      `comment:${c.comment.cid}`,
    ]);
    expect(items[0]).toMatchObject({ kind: 'reports', report_count: 2, reasons: { spam: 2 }, preview: 'first fine comment' });
    expect(items[1]).toEqual({
      kind: 'held',
      held_id: expect.stringMatching(/^hd_/),
      target: { type: 'comment', id: heldComment.comment.cid },
      author: { openid: author.openid, nickname: author.nickname },
      vid,
      fields: ['content'],
      text: { content: 'cheap spam here' },
      held_at: new Date(base + 10 * 60_000).toISOString(),
    });
    expect(items[3]).toMatchObject({ kind: 'held', target: { type: 'user', id: author.openid }, fields: ['nickname'], text: { nickname: 'spam king' }, held_at: new Date(base + 30 * 60_000).toISOString() });

    const everything = items.map(nameOf);
    for (const limit of [1, 2, 3, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 20; pages++) {
        const res: Awaited<ReturnType<typeof page>> = await page(`limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.data.items.length).toBeLessThanOrEqual(limit);
        seen.push(...res.data.items.map(nameOf));
        cursor = res.data.next_cursor;
        if (cursor === null) break;
      }
      expect(cursor).toBeNull();
      expect(seen).toEqual(everything);
    }

    // A cursor the server did not issue, or one altered, is 400 naming it.
    const first = (await page('limit=2')).data.next_cursor!;
    for (const forged of ['abc', `${first.slice(0, -2)}${first.endsWith('AA') ? 'BB' : 'AA'}`]) {
      const res = await page(`limit=2&cursor=${encodeURIComponent(forged)}`);
      expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect((res.body as { error: string }).error).toContain('cursor');
    }
  });

  it('approve publishes a held comment (it takes a number, others see it); a repeat is 404', async () => {
    const [writer] = (await putTestAccounts(1)) as [TestAccount];
    const video = (await putTestVideo(reader.openid)).vid;
    await hub(api, 'comment_set', { ...as(writer), vid: video, content: 'spam but fine' });
    const entry = (await whole()).find((e): e is HeldEntry => e.kind === 'held' && e.author.openid === writer.openid)!;
    expect(entry).toMatchObject({ target: { type: 'comment' }, vid: video });
    const before = await hub<{ list: CommentView[]; total: number }>(api, 'comment_get', { ...as(reader), vid: video, page: 1, d: '' });
    expect(before.data.total).toBe(0);

    const approved = await act({ target: { type: 'held', id: entry.held_id }, action: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.data).toMatchObject({ target: { type: 'held', id: entry.held_id }, action: 'approve', state: 'actioned', outcome: 'content_approved', reports: 0, content: { type: 'comment' } });
    const after = await hub<{ list: CommentView[]; total: number }>(api, 'comment_get', { ...as(reader), vid: video, page: 1, d: '' });
    expect(after.data.total).toBe(1);
    expect(after.data.list).toEqual([expect.objectContaining({ cid: approved.data.content!.id, content: 'spam but fine', openid: writer.openid })]);
    expect(after.data.list[0]).not.toHaveProperty('held');
    expect((await whole()).find((e) => e.kind === 'held' && e.held_id === entry.held_id)).toBeUndefined();
    expect((await storedAuditEvents(writer.openid)).map((e) => e.type)).toEqual(['filter.held_approved']);

    const again = await act({ target: { type: 'held', id: entry.held_id }, action: 'approve' });
    expect([again.status, again.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await hub<{ total: number }>(api, 'comment_get', { ...as(reader), vid: video, page: 1, d: '' })).data.total).toBe(1);
  });

  it("remove discards a held nickname; the author's open reports stay as they were; a repeat is 404", async () => {
    const [named] = (await putTestAccounts(1)) as [TestAccount];
    await hub(api, 'report', { ...as(reporter), target: 'user', id: named.openid, reason: 'abusive' });
    await hub(api, 'change_nickname', { ...as(named), nickname: 'spam lord' });
    const entry = (await heldFor('user', named.openid))!;
    expect(entry).toMatchObject({ fields: ['nickname'], text: { nickname: 'spam lord' }, author: { nickname: named.nickname } });

    const removed = await act({ target: { type: 'held', id: entry.held_id }, action: 'remove', note: 'advertising' });
    expect(removed.data).toMatchObject({ target: { type: 'held', id: entry.held_id }, action: 'remove', state: 'actioned', outcome: 'content_removed', reports: 0, content: { type: 'user', id: named.openid } });
    expect((await getHubItem<{ nickname: string }>(accountKeys.account(named.openid)))?.nickname).toBe(named.nickname);
    expect(await heldFor('user', named.openid)).toBeUndefined();
    expect((await whole()).find((e) => e.kind === 'reports' && e.target.id === named.openid)).toMatchObject({ report_count: 1, reasons: { abusive: 1 } });
    expect((await storedAuditEvents(named.openid)).map((e) => e.type)).toEqual(['filter.held_discarded']);

    expect((await act({ target: { type: 'held', id: entry.held_id }, action: 'remove' })).status).toBe(404);
    expect((await act({ target: { type: 'held', id: entry.held_id }, action: 'approve' })).status).toBe(404);
  });

  it('names a bad body (400, nothing changes): dismiss or suspend on held content, a held id that is not one, approve on a reported target', async () => {
    const [named] = (await putTestAccounts(1)) as [TestAccount];
    await hub(api, 'change_city', { ...as(named), city: 'spam ville' });
    const entry = (await heldFor('user', named.openid))!;
    for (const action of ['dismiss', 'suspend']) {
      const res = await act({ target: { type: 'held', id: entry.held_id }, action });
      expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect((res.body as { error: string }).error).toContain('"action"');
    }
    const notAnId = await act({ target: { type: 'held', id: 'c_x' }, action: 'approve' });
    expect([notAnId.status, (notAnId.body as { error: string }).error]).toEqual([400, expect.stringContaining('"target.id"')]);
    const approveReported = await act({ target: { type: 'comment', id: 'c_x' }, action: 'approve' });
    expect([approveReported.status, (approveReported.body as { error: string }).error]).toEqual([400, expect.stringContaining('"action"')]);
    expect(await heldFor('user', named.openid)).toMatchObject({ held_id: entry.held_id });
  });

  it('refuses an account without the role and any access key (403), the held item kept', async () => {
    const [named] = (await putTestAccounts(1)) as [TestAccount];
    await hub(api, 'change_signature', { ...as(named), signature: 'spam signature' });
    const entry = (await heldFor('user', named.openid))!;
    const body = { target: { type: 'held', id: entry.held_id }, action: 'approve' };
    expect((await act(body, reader)).status).toBe(403);
    const [admin] = (await putTestAccounts(1, ['admin'])) as [TestAccount];
    const key = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: admin.token, body: { name: 'not for moderation', scopes: [] } });
    expect((await api.post('/api/v1/moderation/actions', { token: key.data.api_key, body })).status).toBe(403);
    expect((await page('limit=5', reader)).status).toBe(403);
    expect(await heldFor('user', named.openid)).toMatchObject({ held_id: entry.held_id });
  });
});
