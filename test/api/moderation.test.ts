import { beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { oldestOpenReportAge, type QueueEntry } from '../../lib/features/moderation/queue.js';
import type { ActionResult } from '../../lib/features/moderation/actions.js';
import type { ReportView } from '../../lib/features/report/reports.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { settleStreams, useTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';

/**
 * The moderation round trip (docs/moderation.md, "Moderation"): reports make a case in the queue,
 * oldest first; a decision (remove, dismiss, suspend) closes it in one transaction and every reporter
 * sees the outcome in my_reports; a repeat answers the same; only moderators and admins with a login
 * token may act.
 */
const api = useTestStack({ http: false });

let moderator: TestAccount;
let admin: TestAccount;
let author: TestAccount;
let reporters: TestAccount[];

type Queue = { items: QueueEntry[]; next_cursor: string | null };
const queue = async (who = moderator) => (await api.get<Queue>('/api/v1/moderation/reports?limit=100', { token: who.token })).data.items;
const act = (body: unknown, who = moderator) => api.post<ActionResult>('/api/v1/moderation/actions', { token: who.token, body });
const report = (who: TestAccount, target: string, id: string, reason = 'spam') => hub<{ report: ReportView }>(api, 'report', { openid: who.openid, token: who.token, target, id, reason });
const mine = async (who: TestAccount) => (await hub<{ list: ReportView[] }>(api, 'my_reports', { openid: who.openid, token: who.token })).data.list;
const postComment = async (vid: string, content: string) => (await hub<{ comment: CommentView }>(api, 'comment_set', { openid: author.openid, token: author.token, vid, content })).data.comment;

beforeAll(async () => {
  [moderator] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
  [admin] = (await putTestAccounts(1, ['admin'])) as [TestAccount];
  [author, ...reporters] = (await putTestAccounts(4)) as [TestAccount, ...TestAccount[]];
});

describe('the moderation round trip', () => {
  it('report -> queue (oldest first) -> remove a comment -> every reporter sees it actioned', async () => {
    const vid = (await putTestVideo(author.openid)).vid;
    const bad = await postComment(vid, 'buy cheap watches');
    await postComment(vid, 'a fine booth');
    const before = await oldestOpenReportAge();
    expect((await report(reporters[0]!, 'comment', bad.cid, 'spam')).status).toBe(200);
    clock.advance(1000);
    expect((await report(reporters[1]!, 'comment', bad.cid, 'abusive')).status).toBe(200);
    const entry = (await queue()).find((e) => e.target.id === bad.cid);
    expect(entry).toMatchObject({ target: { type: 'comment', id: bad.cid }, preview: 'buy cheap watches', author: { openid: author.openid, nickname: author.nickname }, vid, report_count: 2, reasons: { spam: 1, abusive: 1 } });
    // The metric: nothing was open before; now the first report's age.
    expect(before).toBe(0);
    clock.advance(3600_000);
    expect(await oldestOpenReportAge()).toBeGreaterThanOrEqual(3601);
    expect(await oldestOpenReportAge()).toBeLessThan(3700);

    const removed = await act({ target: { type: 'comment', id: bad.cid }, action: 'remove', note: 'advertising' });
    expect(removed.status).toBe(200);
    expect(removed.data).toMatchObject({ target: { type: 'comment', id: bad.cid }, action: 'remove', state: 'actioned', outcome: 'content_removed', reports: 2 });
    // The comment is a tombstone in place; the count stays.
    await settleStreams();
    const page = await hub<{ list: CommentView[]; total: number }>(api, 'comment_get', { openid: reporters[0]!.openid, token: reporters[0]!.token, vid, page: 1, d: '' });
    expect(page.data.total).toBe(2);
    expect(page.data.list.find((c) => c.cid === bad.cid)).toMatchObject({ content: '', openid: '', nickname: '' });
    // Out of the queue; both reporters see the outcome.
    expect((await queue()).find((e) => e.target.id === bad.cid)).toBeUndefined();
    for (const r of reporters.slice(0, 2)) {
      expect((await mine(r)).find((x) => x.target.id === bad.cid)).toMatchObject({ state: 'actioned', outcome: 'content_removed', decided_at: removed.data.decided_at });
    }
    // The author's trail records it, the moderator shown as an administrator.
    const trail = await api.get<{ items: { type: string; actor: string; details: Record<string, unknown> }[] }>('/api/v1/audit', { token: author.token });
    expect(trail.data.items.find((e) => e.type === 'comment.removed')).toMatchObject({ actor: 'administrator', details: { target_type: 'comment', target_id: bad.cid } });
    // A repeat answers the same and changes nothing.
    const again = await act({ target: { type: 'comment', id: bad.cid }, action: 'remove' });
    expect(again.body).toEqual(removed.body);
    const trailAgain = await api.get<{ items: { type: string }[] }>('/api/v1/audit', { token: author.token });
    expect(trailAgain.data.items.filter((e) => e.type === 'comment.removed')).toHaveLength(1);
    // Another action with nothing open: 404.
    expect((await act({ target: { type: 'comment', id: bad.cid }, action: 'dismiss' })).status).toBe(404);
  });

  it('remove a video: out of the catalog, the feed and shares; its reporters see it actioned', async () => {
    const video = await putTestVideo(author.openid, { title: 'Unique moderated walkthrough' });
    await report(reporters[0]!, 'video', video.vid, 'violent');
    const res = await act({ target: { type: 'video', id: video.vid }, action: 'remove' }, admin);
    expect(res.status).toBe(200);
    expect(await getHubItem(videoKeys.video(video.vid))).toBeUndefined();
    const feed = await hub<{ list: { vid: string }[] }>(api, 'get_next_list', { openid: reporters[1]!.openid, token: reporters[1]!.token, order: 'new', watch_count: 20, fav_index: '' });
    expect(feed.data.list.map((v) => v.vid)).not.toContain(video.vid);
    const share = await hub(api, 'sharetext', { openid: reporters[1]!.openid, token: reporters[1]!.token, vid: video.vid, d: '', locale: 'en', country: '' });
    expect(share.status).toBe(404);
    expect((await mine(reporters[0]!)).find((r) => r.target.id === video.vid)).toMatchObject({ state: 'actioned', outcome: 'content_removed' });
  });

  it('dismiss: the reports close as dismissed, the content stays; a new report opens a new case round', async () => {
    const vid = (await putTestVideo(author.openid)).vid;
    const fine = await postComment(vid, 'this is fine');
    await report(reporters[2]!, 'comment', fine.cid, 'other');
    // The queue is oldest open report first: a case reported two hours earlier comes before it.
    const older = await postComment(vid, 'reported earlier');
    clock.set(Date.now() - 7_200_000);
    await report(reporters[1]!, 'comment', older.cid);
    clock.reset();
    const open = (await queue()).map((e) => e.target.id);
    expect(open.indexOf(older.cid)).toBeGreaterThanOrEqual(0);
    expect(open.indexOf(older.cid)).toBeLessThan(open.indexOf(fine.cid));
    const res = await act({ target: { type: 'comment', id: fine.cid }, action: 'dismiss' });
    expect(res.data).toMatchObject({ state: 'dismissed', outcome: null, reports: 1 });
    expect((await mine(reporters[2]!)).find((r) => r.target.id === fine.cid)).toMatchObject({ state: 'dismissed', outcome: null });
    const page = await hub<{ list: CommentView[] }>(api, 'comment_get', { openid: author.openid, token: author.token, vid, page: 1, d: '' });
    expect(page.data.list.find((c) => c.cid === fine.cid)?.content).toBe('this is fine');
    // Reported again: a new open report, the dismissed one kept as it was.
    const again = await report(reporters[2]!, 'comment', fine.cid, 'spam');
    expect(again.data.report.state).toBe('open');
    const listed = (await mine(reporters[2]!)).filter((r) => r.target.id === fine.cid);
    expect(listed.map((r) => r.state).sort()).toEqual(['dismissed', 'open']);
    expect((await queue()).find((e) => e.target.id === fine.cid)).toMatchObject({ report_count: 1, reasons: { spam: 1 } });
  });

  it("suspend: the author's sessions are refused; the reporters see author_suspended", async () => {
    const [offender] = (await putTestAccounts(1)) as [TestAccount];
    await report(reporters[0]!, 'user', offender.openid, 'abusive');
    const res = await act({ target: { type: 'user', id: offender.openid }, action: 'suspend' });
    expect(res.data).toMatchObject({ state: 'actioned', outcome: 'author_suspended', reports: 1 });
    const refused = await hub(api, 'get_fav', { openid: offender.openid, token: offender.token, next_id: 0, fav_index: 0, watch_list: '', view: '', q: '', d: '' });
    expect(refused.status).toBe(401);
    expect((await mine(reporters[0]!)).find((r) => r.target.id === offender.openid)).toMatchObject({ state: 'actioned', outcome: 'author_suspended' });
    expect((await act({ target: { type: 'user', id: offender.openid }, action: 'suspend' })).body).toEqual(res.body);
  });

  it('a moderator cannot suspend another moderator or an administrator (403, nothing changes); an administrator can', async () => {
    const [peer] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
    await report(reporters[1]!, 'user', peer.openid, 'abusive');
    const refused = await act({ target: { type: 'user', id: peer.openid }, action: 'suspend' });
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await queue()).find((e) => e.target.id === peer.openid)).toMatchObject({ report_count: 1 });
    expect((await act({ target: { type: 'user', id: peer.openid }, action: 'suspend' }, admin)).status).toBe(200);
  });
});

describe("a reporter's data", () => {
  it('the data export lists the reports filed; the account\'s deletion erases them and the case counts follow', async () => {
    const [filer, other] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const video = await putTestVideo(author.openid);
    const filed = await report(filer, 'video', video.vid, 'privacy');
    await report(other, 'video', video.vid, 'spam');
    const records: { type: string }[] = [];
    for (let cursor: string | null = '', pages = 0; cursor !== null && pages < 50; pages++) {
      const page: { data: { records: { type: string }[]; next_cursor: string | null } } = await api.get('/api/v1/me/data' + (cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''), { token: filer.token });
      records.push(...page.data.records);
      cursor = page.data.next_cursor;
    }
    expect(records.filter((r) => r.type === 'report')).toEqual([
      expect.objectContaining({ type: 'report', id: filed.data.report.id, target_type: 'video', target_id: video.vid, reason: 'privacy' }),
    ]);
    expect((await queue()).find((e) => e.target.id === video.vid)).toMatchObject({ report_count: 2, reasons: { privacy: 1, spam: 1 } });
    expect((await hub(api, 'delete_account', { openid: filer.openid, token: filer.token, confirm: 'delete' })).status).toBe(200);
    await settleStreams();
    expect((await queue()).find((e) => e.target.id === video.vid)).toMatchObject({ report_count: 1, reasons: { spam: 1 } });
    // The last open report erased: the case leaves the queue.
    expect((await hub(api, 'delete_account', { openid: other.openid, token: other.token, confirm: 'delete' })).status).toBe(200);
    await settleStreams();
    expect((await queue()).find((e) => e.target.id === video.vid)).toBeUndefined();
  });
});

describe('who may moderate', () => {
  it('refuses a login token without the role (403) and any access key (403), even an admin\'s', async () => {
    const plain = reporters[0]!;
    expect((await api.get('/api/v1/moderation/reports', { token: plain.token })).status).toBe(403);
    expect((await act({ target: { type: 'user', id: author.openid }, action: 'dismiss' }, plain)).status).toBe(403);
    const key = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: admin.token, body: { name: 'not for moderation', scopes: [] } });
    expect((await api.get('/api/v1/moderation/reports', { token: key.data.api_key })).status).toBe(403);
    expect((await api.post('/api/v1/moderation/actions', { token: key.data.api_key, body: { target: { type: 'user', id: author.openid }, action: 'dismiss' } })).status).toBe(403);
    // A moderator whose token predates the role's removal loses it at once (request-time roles).
    const [former] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
    const token = await tokenFor(former.openid, ['moderator']);
    expect((await api.get('/api/v1/moderation/reports', { token })).status).toBe(200);
    expect((await api.post(`/api/v1/admin/users/${former.openid}/roles`, { token: admin.token, body: { roles: [] } })).status).toBe(200);
    expect((await api.get('/api/v1/moderation/reports', { token })).status).toBe(403);
  });

  it('names a bad body (400): unknown action, remove on a user, approve on a reported target (approve is for held content)', async () => {
    const bad = await act({ target: { type: 'user', id: author.openid }, action: 'ban' });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((bad.body as { error: string }).error).toContain('action');
    const removeUser = await act({ target: { type: 'user', id: author.openid }, action: 'remove' });
    expect(removeUser.status).toBe(400);
    expect((await act({ target: { type: 'comment', id: 'c_x' }, action: 'approve' })).status).toBe(400);
  });
});
