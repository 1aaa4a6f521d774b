import { beforeAll, describe, expect, it } from 'vitest';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { clock } from '../../lib/platform/clock.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import { seedFilterTerms } from '../../lib/features/filter/terms.js';
import type { ActionResult } from '../../lib/features/moderation/actions.js';
import type { HeldEntry, QueueEntry } from '../../lib/features/moderation/queue.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, storedAuditEvents, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { MINUTE_MS, pinInsideWindow } from '../support/clock-windows.js';

/**
 * What a decision on held content checks (docs/moderation.md, "Held content" and "Moderation"): the
 * hold path refuses what the plain path refuses; an approval that cannot complete leaves the item
 * decidable; a removed video is never re-created; nobody decides their own case; the author
 * withdraws a held comment; approval re-checks the author's standing and role.
 */
const api = useTestStack({ http: false });

let moderator: TestAccount;
let admin: TestAccount;

type Queue = { items: QueueEntry[]; next_cursor: string | null };
type Video = { vid: string; title: string };
const act = (body: unknown, who = moderator) => api.post<ActionResult>('/api/v1/moderation/actions', { token: who.token, body });
const held = (id: string, action: string, who = moderator) => act({ target: { type: 'held', id }, action }, who);
const as = (u: TestAccount) => ({ openid: u.openid, token: u.token });
const whole = async (who = moderator) => (await api.get<Queue>('/api/v1/moderation/reports?limit=100', { token: who.token })).data.items;
const heldOf = async (author: string, who = moderator) => (await whole(who)).filter((e): e is HeldEntry => e.kind === 'held' && e.author.openid === author);
const comment = (u: TestAccount, vid: string, content: string) => hub<{ comment: CommentView & { held?: true }; held?: true }>(api, 'comment_set', { ...as(u), vid, content });
const comments = (u: TestAccount, vid: string) => hub<{ list: (CommentView & { held?: true })[]; total: number }>(api, 'comment_get', { ...as(u), vid, page: 1, d: '' });
const publish = (u: TestAccount, body: Record<string, unknown>) => api.post<{ video: Video; created: boolean; held?: true }>('/api/v1/videos', { token: u.token, body });
const videoBody = (title: string, extra: Record<string, unknown> = {}) => ({ title, video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/v.jpg', duration_s: 30, ...extra });
/** A moderator's removal of a video, through a report of it. */
async function removeVideo(vid: string, note = 'not for this hub') {
  const [reporter] = (await putTestAccounts(1)) as [TestAccount];
  expect((await hub(api, 'report', { ...as(reporter), target: 'video', id: vid, reason: 'spam' })).status).toBe(200);
  expect((await act({ target: { type: 'video', id: vid }, action: 'remove', note })).status).toBe(200);
}
const errorOf = (res: { body: unknown }) => (res.body as { error: string }).error;

beforeAll(async () => {
  [moderator] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
  [admin] = (await putTestAccounts(1, ['admin'])) as [TestAccount];
  expect(await seedFilterTerms([{ term: 'spam', action: 'hold' }])).toBe(true);
});

describe('the hold path checks what the plain path checks', () => {
  it("a blocked person's held comment on the blocker's video is 403 like a plain one, nothing held", async () => {
    const [owner, blocked] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const vid = (await putTestVideo(owner.openid)).vid;
    expect((await hub(api, 'block_user', { ...as(owner), block_user: blocked.openid })).status).toBe(200);
    const plain = await comment(blocked, vid, 'a plain one');
    expect([plain.status, plain.body]).toEqual([403, { code: 'FORBIDDEN', error: 'You cannot comment on this video' }]);
    const heldOne = await comment(blocked, vid, 'one with spam');
    expect([heldOne.status, heldOne.body]).toEqual([403, { code: 'FORBIDDEN', error: 'You cannot comment on this video' }]);
    expect(await heldOf(blocked.openid)).toEqual([]);
    expect((await comments(blocked, vid)).data.list).toEqual([]);
    // Another author's video still takes the held comment.
    const elsewhere = (await putTestVideo(moderator.openid)).vid;
    expect((await comment(blocked, elsewhere, 'one with spam')).data).toMatchObject({ held: true });
  });
});

describe('an approval that cannot complete leaves the item decidable', () => {
  it('a held comment on a video removed meanwhile: approve is 404 and the item is pending again; remove discards it', async () => {
    const [owner, writer] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const vid = (await putTestVideo(owner.openid)).vid;
    expect((await comment(writer, vid, 'spam on a doomed video')).data).toMatchObject({ held: true });
    const [entry] = await heldOf(writer.openid);
    await removeVideo(vid);
    const approve = await held(entry!.held_id, 'approve');
    expect([approve.status, approve.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(errorOf(approve)).toContain('pending');
    // Every later approval answers the same, and the item stays listed, decidable.
    expect((await held(entry!.held_id, 'approve')).status).toBe(404);
    expect(await heldOf(writer.openid)).toEqual([expect.objectContaining({ held_id: entry!.held_id })]);
    const removed = await held(entry!.held_id, 'remove');
    expect(removed.status).toBe(200);
    expect(removed.data).toMatchObject({ outcome: 'content_removed' });
    expect(await heldOf(writer.openid)).toEqual([]);
    expect((await storedAuditEvents(writer.openid)).map((e) => e.type)).toEqual(['filter.held_discarded']);
  });

  it("a held comment whose video's author blocked its author since: approve is 403 naming the block, the item pending", async () => {
    const [owner, writer] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const vid = (await putTestVideo(owner.openid)).vid;
    await comment(writer, vid, 'spam before the block');
    const [entry] = await heldOf(writer.openid);
    expect((await hub(api, 'block_user', { ...as(owner), block_user: writer.openid })).status).toBe(200);
    const refused = await held(entry!.held_id, 'approve');
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorOf(refused)).toContain('blocked');
    expect((await comments(owner, vid)).data.total).toBe(0);
    expect((await held(entry!.held_id, 'remove')).status).toBe(200);
  });

  it("an approval refused for the author's full comment window (429) is approved once the window has passed", async () => {
    const [owner, writer] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const vid = (await putTestVideo(owner.openid)).vid;
    // The 10 comments and the refused approval in one minute window, however slowly they run.
    pinInsideWindow(MINUTE_MS, 5_000);
    await comment(writer, vid, 'spam, later approved');
    const [entry] = await heldOf(writer.openid);
    for (let n = 1; n <= 9; n++) expect((await comment(writer, vid, `plain ${n}`)).status).toBe(200);
    const limited = await held(entry!.held_id, 'approve');
    expect(limited.status).toBe(429);
    // The approval is under way (it may yet publish the comment): remove asks for it to be repeated.
    const remove = await held(entry!.held_id, 'remove');
    expect([remove.status, remove.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorOf(remove)).toContain('approve it again');
    clock.advance(61_000);
    const approved = await held(entry!.held_id, 'approve');
    expect(approved.status).toBe(200);
    expect((await comments(owner, vid)).data.list.map((c) => c.content)).toContain('spam, later approved');
    expect((await storedAuditEvents(writer.openid)).map((e) => e.type)).toEqual(['filter.held_approved']);
  });
});

describe('a video a moderator removed is never re-created', () => {
  it('the same held body again gets a new vid, its queue entry shows the earlier removal, and its approval creates that new video', async () => {
    const [editor] = (await putTestAccounts(1, ['editor'])) as [TestAccount];
    const body = videoBody('spam booth tour');
    const first = await publish(editor, body);
    expect(first.data).toMatchObject({ held: true });
    const v = first.data.video.vid;
    const [entry] = await heldOf(editor.openid);
    expect((await held(entry!.held_id, 'approve')).status).toBe(200);
    expect(await getHubItem(videoKeys.video(v))).toBeDefined();
    expect((await comment(moderator, v, 'a comment before the removal')).status).toBe(200);
    await removeVideo(v, 'a scam');

    const again = await publish(editor, body);
    expect(again.status).toBe(201);
    expect(again.data).toMatchObject({ held: true, created: true });
    expect(again.data.video.vid).not.toBe(v);
    // A retry holds the same new vid (the hold replaced: one held item).
    expect((await publish(editor, body)).data.video.vid).toBe(again.data.video.vid);
    const [second, ...none] = await heldOf(editor.openid);
    expect(none).toEqual([]);
    expect(second).toMatchObject({ target: { type: 'video', id: again.data.video.vid }, removed: { vid: v, removed_by: moderator.openid, removed_at: expect.any(String), note: 'a scam' } });
    expect((await held(second!.held_id, 'approve')).status).toBe(200);
    expect(await getHubItem(videoKeys.video(v))).toBeUndefined();
    expect(await getHubItem(videoKeys.video(again.data.video.vid))).toMatchObject({ title: 'spam booth tour', comment_count: 0 });
  });

  it.each([
    ['by the external_id of the removed video', videoBody('A clean walkthrough', { external_id: 'pipeline-7' })],
    // Within the publish retry window (10 minutes), which answers a live video's retry with that video.
    ['of the same body (no external_id) right after the removal', videoBody('Another clean walkthrough')],
  ])('a plain re-publish %s creates a new video, which its repeats then name', async (_, body) => {
    const [editor] = (await putTestAccounts(1, ['editor'])) as [TestAccount];
    const first = await publish(editor, body);
    expect(first.status).toBe(201);
    await removeVideo(first.data.video.vid);
    const again = await publish(editor, body);
    expect([again.status, again.data.created]).toEqual([201, true]);
    expect(again.data.video.vid).not.toBe(first.data.video.vid);
    expect(await getHubItem(videoKeys.video(first.data.video.vid))).toBeUndefined();
    expect((await publish(editor, body)).data.video.vid).toBe(again.data.video.vid);
  });

  it('a held update of a video removed meanwhile: approve is refused (403), the item is pending with the removal shown; remove discards it', async () => {
    const [editor] = (await putTestAccounts(1, ['editor'])) as [TestAccount];
    const first = await publish(editor, videoBody('A clean title', { external_id: 'pipeline-8' }));
    const v = first.data.video.vid;
    expect((await publish(editor, videoBody('Now with spam', { external_id: 'pipeline-8' }))).data).toMatchObject({ held: true, video: { vid: v } });
    const [entry] = await heldOf(editor.openid);
    await removeVideo(v, 'misleading');
    const approve = await held(entry!.held_id, 'approve');
    expect([approve.status, approve.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorOf(approve)).toContain('removed');
    expect(await getHubItem(videoKeys.video(v))).toBeUndefined();
    const [pending] = await heldOf(editor.openid);
    expect(pending).toMatchObject({ held_id: entry!.held_id, removed: { vid: v, removed_by: moderator.openid, note: 'misleading' } });
    expect((await held(entry!.held_id, 'remove')).status).toBe(200);
    expect(await getHubItem(videoKeys.video(v))).toBeUndefined();
  });
});

describe('nobody decides a case about their own account or content', () => {
  it("a moderator's own held nickname: listed and marked own, 403 to them; another moderator or an admin decides it", async () => {
    const [peer] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
    expect((await hub(api, 'change_nickname', { ...as(peer), nickname: 'spam master' })).data).toMatchObject({ held: true });
    const [entry] = await heldOf(peer.openid, peer);
    expect(entry).toMatchObject({ own: true });
    for (const action of ['approve', 'remove']) {
      const own = await held(entry!.held_id, action, peer);
      expect([own.status, own.body.code]).toEqual([403, 'FORBIDDEN']);
      expect(errorOf(own)).toContain('another moderator');
    }
    const [seen] = await heldOf(peer.openid, moderator);
    expect(seen).not.toHaveProperty('own');
    expect((await held(entry!.held_id, 'approve', moderator)).status).toBe(200);
  });

  it("reports about a moderator's profile or content: 403 to them for every action; an admin decides them", async () => {
    const [peer, reporter, owner] = (await putTestAccounts(3)) as [TestAccount, TestAccount, TestAccount];
    const [mod] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
    const vid = (await putTestVideo(owner.openid)).vid;
    const cid = (await comment(mod, vid, 'a moderator speaks')).data.comment.cid;
    await hub(api, 'report', { ...as(reporter), target: 'user', id: mod.openid, reason: 'abusive' });
    await hub(api, 'report', { ...as(peer), target: 'comment', id: cid, reason: 'spam' });
    for (const target of [{ type: 'user', id: mod.openid }, { type: 'comment', id: cid }]) {
      for (const action of ['dismiss', 'remove', 'suspend']) {
        if (target.type === 'user' && action === 'remove') continue;
        const own = await act({ target, action }, mod);
        expect([own.status, own.body.code]).toEqual([403, 'FORBIDDEN']);
      }
    }
    const listed = (await whole(mod)).filter((e) => e.kind === 'reports' && (e.target.id === mod.openid || e.target.id === cid));
    expect(listed).toEqual([expect.objectContaining({ own: true, report_count: 1 }), expect.objectContaining({ own: true, report_count: 1 })]);
    expect((await act({ target: { type: 'user', id: mod.openid }, action: 'dismiss' }, admin)).status).toBe(200);
    expect((await act({ target: { type: 'comment', id: cid }, action: 'dismiss' }, moderator)).status).toBe(200);
  });
});

describe('the author withdraws a held comment', () => {
  it('comment_delete with the held cid: out of the queue and of their page; a repeat answers the same; others get 404', async () => {
    const [owner, writer, other] = (await putTestAccounts(3)) as [TestAccount, TestAccount, TestAccount];
    const vid = (await putTestVideo(owner.openid)).vid;
    const heldOne = (await comment(writer, vid, 'spam I regret')).data.comment;
    const [entry] = await heldOf(writer.openid);
    const del = (u: TestAccount) => hub<{ comment: CommentView; deleted: true }>(api, 'comment_delete', { ...as(u), vid, cid: heldOne.cid });
    expect((await del(other)).status).toBe(404);
    const first = await del(writer);
    expect(first.status).toBe(200);
    expect(first.data).toEqual({ comment: { cid: heldOne.cid, vid, openid: '', nickname: '', content: '', created_at: heldOne.created_at }, deleted: true });
    expect(await heldOf(writer.openid)).toEqual([]);
    expect((await comments(writer, vid)).data.list).toEqual([]);
    expect((await del(writer)).body).toEqual(first.body);
    expect((await del(other)).status).toBe(404);
    expect((await held(entry!.held_id, 'approve')).status).toBe(404);
    expect((await comment(owner, vid, 'still fine')).status).toBe(200);
    // The same text again is held anew.
    expect((await comment(writer, vid, 'spam I regret')).data).toMatchObject({ held: true });
    expect(await heldOf(writer.openid)).toHaveLength(1);
  });
});

describe("approval re-checks the author's standing and role", () => {
  it("a suspended author's held comment is refused (403) and stays pending; approved once reinstated", async () => {
    const [owner, writer] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const vid = (await putTestVideo(owner.openid)).vid;
    await comment(writer, vid, 'spam from a future suspect');
    const [entry] = await heldOf(writer.openid);
    expect((await api.post(`/api/v1/admin/users/${writer.openid}/suspend`, { token: admin.token })).status).toBe(200);
    const refused = await held(entry!.held_id, 'approve');
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorOf(refused)).toContain('suspended');
    expect((await comments(owner, vid)).data.total).toBe(0);
    expect(await heldOf(writer.openid)).toEqual([expect.objectContaining({ held_id: entry!.held_id })]);
    expect((await api.post(`/api/v1/admin/users/${writer.openid}/reinstate`, { token: admin.token })).status).toBe(200);
    expect((await held(entry!.held_id, 'approve')).status).toBe(200);
  });

  it('a held video of an editor who lost the role is refused (403) and stays pending; remove discards it', async () => {
    const [editor] = (await putTestAccounts(1, ['editor'])) as [TestAccount];
    const res = await publish(editor, videoBody('spam expo'));
    const [entry] = await heldOf(editor.openid);
    expect((await api.post(`/api/v1/admin/users/${editor.openid}/roles`, { token: admin.token, body: { roles: [] } })).status).toBe(200);
    const refused = await held(entry!.held_id, 'approve');
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorOf(refused)).toContain('role');
    expect(await getHubItem(videoKeys.video(res.data.video.vid))).toBeUndefined();
    expect((await held(entry!.held_id, 'remove')).status).toBe(200);
  });
});
