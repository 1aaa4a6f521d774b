import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { tableNames } from '../../lib/platform/db/client.js';
import { hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { personIdOf } from '../../lib/entities/accounts/accounts.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';
import { allItems, changedItems, counterMismatches, storeSnapshot } from '../support/store-digest.js';
import { clearFaults, clearIndexLag, failWhere, lagIndex } from '../support/faults.js';
import { eraseSome, sweepErasures } from '../../lib/features/deletion/erasure.js';
import { getDeletion } from '../../lib/features/deletion/deletion.js';
import { NotFoundError } from '../../lib/platform/errors.js';
import { postComment } from '../../lib/entities/comments/post-comment.js';
import { dislikeVideo, likeVideo } from '../../lib/features/recommend/reactions.js';
import { fileReport, hasReports } from '../../lib/features/report/reports.js';
import { createShare } from '../../lib/features/share/create-share.js';
import { follow } from '../../lib/entities/social/follows.js';
import { block } from '../../lib/entities/social/blocks.js';
import { setProfileField } from '../../lib/entities/accounts/accounts.js';
import { signOut } from '../../lib/features/sign-in/sign-out.js';
import { holdComment, holdProfileField, holdVideo } from '../../lib/features/filter/held-items.js';
import { notBlockedByCheck } from '../../lib/entities/social/block-items.js';

/**
 * Delete my account (docs/accounts.md): the entry points, what takes effect at once, and the
 * erasure: after it, a scan of both tables finds nothing of the account but the documented retained
 * items, and every counter it moved equals a recount.
 */

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: SignedUp;

interface Deletion {
  id: string;
  state: 'erasing' | 'erased';
  requested_at: string;
  completed_at: string | null;
  status_url: string;
}
type Comment = { cid: string; openid: string; nickname: string; content: string };
type Video = { vid: string; author: { openid: string; nickname: string }; like_count: number; comment_count: number };

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  admin = await signUp(api, ADMIN_PHONE);
});
afterAll(async () => stack?.stop());
afterEach(() => clock.reset());

const as = (u: SignedUp) => ({ openid: u.openid, token: u.token });
const publish = async (editor: SignedUp, title: string) => {
  const res = await api.post<{ video: { vid: string } }>('/api/v1/videos', {
    token: editor.token,
    body: { title, video_url: 'https://cdn.example.com/a.mp4', cover_url: 'https://cdn.example.com/a.jpg', duration_s: 30, tags: ['expo', 'robots'] },
  });
  expect(res.status).toBe(201);
  return res.data.video.vid;
};
const makeEditor = async (u: SignedUp) => {
  expect((await api.post(`/api/v1/admin/users/${u.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } })).status).toBe(200);
};
const ok = async <T extends { status: number; body: unknown }>(res: Promise<T>): Promise<T> => {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r;
};
const comments = async (vid: string, viewer: SignedUp) => (await ok(hub<{ list: Comment[]; total: number }>(api, 'comment_get', { ...as(viewer), vid, page: 1, d: '' }))).data;


describe('delete my account', () => {
  it('refuses without confirm=delete, and with an access key (403 on the hub, 401 on REST), changing nothing', async () => {
    const user = await signUp(api);
    const key = (await api.post<{ api_key: string }>('/api/v1/api-keys', { token: user.token, body: { name: 'pipeline' } })).data.api_key;
    const other = await signUp(api);
    const before = await storeSnapshot();
    for (const confirm of [undefined, '', 'yes', 'DELETE', 'delete please']) {
      const res = await hub<unknown>(api, 'delete_account', { ...as(user), confirm });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"confirm"') });
      const rest = await api.delete(`/api/v1/me${confirm === undefined ? '' : `?confirm=${encodeURIComponent(confirm)}`}`, { token: user.token });
      expect(rest.status).toBe(400);
      expect(rest.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"confirm"') });
    }
    const byKey = await hub(api, 'delete_account', { openid: user.openid, confirm: 'delete' }, { authorization: `Bearer ${key}` });
    expect(byKey.status).toBe(403);
    expect((await api.delete('/api/v1/me?confirm=delete', { token: key })).status).toBe(401);
    expect((await api.delete('/api/v1/me?confirm=delete')).status).toBe(401);
    expect((await hub(api, 'delete_account', { openid: user.openid, token: other.token, confirm: 'delete' })).status).toBe(401);
    expect(changedItems(before, await storeSnapshot()).filter((id) => !/\|KEYUSE#/.test(id))).toEqual([]);
  });

  it('takes effect at once: sessions and keys refused, out of lists, comments shown as deleted, the phone free for a new empty account', async () => {
    const victim = await signUp(api);
    const friend = await signUp(api);
    const key = (await api.post<{ api_key: string }>('/api/v1/api-keys', { token: victim.token, body: { name: 'pipeline' } })).data.api_key;
    await makeEditor(friend);
    const vid = await publish(friend, 'Hall A');
    await ok(hub(api, 'follow_user', { ...as(friend), follow_user: victim.openid }));
    await ok(hub(api, 'follow_user', { ...as(victim), follow_user: friend.openid }));
    await ok(hub(api, 'comment_set', { ...as(victim), vid, content: 'my words' }));
    await ok(hub(api, 'comment_set', { ...as(friend), vid, content: 'reply' }));

    const res = await hub<{ deletion: Deletion }>(api, 'delete_account', { ...as(victim), confirm: ' delete ' });
    expect(res.status).toBe(200);
    const deletion = res.data.deletion;
    expect(deletion).toEqual({ id: expect.stringMatching(/^del_[A-Za-z0-9]{22}$/), state: 'erasing', requested_at: expect.any(String), completed_at: null, status_url: `/api/v1/deletions/${deletion.id}`, message: expect.stringContaining('Signing in again with the same phone number creates a new, empty account') });

    // Refused at once, every way in.
    for (const attempt of [
      hub(api, 'get_fav', { ...as(victim), watch_list: 'like', view: '', next_id: 0, fav_index: 0, q: '' }),
      api.get('/api/v1/me', { token: victim.token }),
      api.get('/api/v1/me', { token: key }),
      api.get('/api/v1/api-keys', { token: victim.token }),
      api.delete('/api/v1/me?confirm=delete', { token: victim.token }),
    ]) {
      const r = await attempt;
      expect(r.status).toBe(401);
    }
    expect((await api.get(`/api/v1/api-keys/verify?key=${encodeURIComponent(key)}`)).status).toBe(401);
    // Out of the friend's lists; its comment a tombstone, the numbering unchanged.
    const followers = await ok(hub<{ list: { openid: string }[] }>(api, 'get_follower', { ...as(friend), watch_list: friend.openid, offset: 0 }));
    expect(followers.data.list.map((u) => u.openid)).not.toContain(victim.openid);
    const page = await comments(vid, friend);
    expect(page.total).toBe(2);
    expect(page.list.filter((c) => c.content === 'reply').map((c) => c.openid)).toEqual([friend.openid]);
    expect(page.list.filter((c) => c.content !== 'reply').map((c) => [c.openid, c.nickname, c.content])).toEqual([['', '', '']]);
    expect((await hub(api, 'get_fav', { ...as(friend), watch_list: 'like', view: victim.openid, next_id: 0, fav_index: 0, q: '' })).status).toBe(404);
    expect((await hub(api, 'follow_user', { ...as(friend), follow_user: victim.openid })).status).toBe(404);
    // Administrators cannot bring it back.
    expect((await api.post(`/api/v1/admin/users/${victim.openid}/reinstate`, { token: admin.token })).status).toBe(404);
    expect((await api.post(`/api/v1/admin/users/${victim.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } })).status).toBe(404);

    // The same phone signs up to a new, empty account.
    clock.advance(61_000);
    const again = await signUp(api, victim.phone);
    expect(again.new_account).toBe(true);
    expect(again.openid).not.toBe(victim.openid);
    const profile = await hub<{ profile: { follow_count: number; follower_count: number; like_count: number } }>(api, 'get_fav', { ...as(again), watch_list: 'like', view: '', next_id: 0, fav_index: 0, q: '' });
    expect(profile.data.profile).toMatchObject({ follow_count: 0, follower_count: 0, like_count: 0 });

    // Progress, then erased.
    const status = await api.get<{ deletion: Deletion }>(`/api/v1/deletions/${deletion.id}`);
    expect(status.status).toBe(200);
    expect(status.data.deletion.state).toBe('erasing');
    await settleStreams();
    const done = await api.get<{ deletion: Deletion }>(deletion.status_url);
    expect(done.data.deletion).toMatchObject({ id: deletion.id, state: 'erased', completed_at: expect.any(String) });
    expect((await api.get('/api/v1/deletions/del_AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await api.get('/api/v1/deletions/nonsense')).status).toBe(404);
    // The old session stays refused after the erasure (the tombstone).
    expect((await api.get('/api/v1/me', { token: victim.token })).status).toBe(401);
  });

  it('an administrator deletes an account (audited, repeatable), REST deletes the own account with 202', async () => {
    const target = await signUp(api);
    const self = await signUp(api);
    expect((await api.delete(`/api/v1/admin/users/${target.openid}?confirm=delete`, { token: self.token })).status).toBe(403);
    const first = await api.delete<{ deletion: Deletion }>(`/api/v1/admin/users/${target.openid}?confirm=delete`, { token: admin.token });
    expect(first.status).toBe(202);
    const second = await api.delete<{ deletion: Deletion }>(`/api/v1/admin/users/${target.openid}?confirm=delete`, { token: admin.token });
    expect(second.status).toBe(202);
    expect(second.data.deletion.id).toBe(first.data.deletion.id);
    expect((await api.delete('/api/v1/admin/users/u_nobody?confirm=delete', { token: admin.token })).status).toBe(404);

    const own = await api.delete<{ deletion: Deletion }>('/api/v1/me?confirm=delete', { token: self.token });
    expect(own.status).toBe(202);
    expect(own.data.deletion.state).toBe('erasing');
    await settleStreams();
    const events = (await allItems()).map((i) => i.item).filter((i) => i.entity === 'audit_event' && (i.pk === `ACCOUNT#${target.openid}` || i.pk === `ACCOUNT#${self.openid}`));
    expect(events.map((e) => [e.pk, e.type, e.actor]).sort()).toEqual(
      [
        [`ACCOUNT#${self.openid}`, 'account.deleted', 'system'],
        [`ACCOUNT#${self.openid}`, 'account.deletion_requested', 'self'],
        [`ACCOUNT#${target.openid}`, 'account.deleted', 'system'],
        [`ACCOUNT#${target.openid}`, 'account.deletion_requested', admin.openid],
      ].sort(),
    );
  });
});

describe('the erasure', () => {
  it('leaves nothing of the account but the retained items, and every counter equal to a recount, while others act on the same videos and accounts', async () => {
    const editor = await signUp(api);
    const [a, b, c] = [await signUp(api), await signUp(api), await signUp(api)];
    await makeEditor(editor);
    const vids = [await publish(editor, 'Robots'), await publish(editor, 'Drones'), await publish(editor, 'Cars')];
    const victim = await signUp(api, undefined, { invite_uid: a.openid });
    await makeEditor(victim);
    const own = await publish(victim, 'My booth');
    // Everything a person leaves behind.
    for (const vid of vids.slice(0, 2)) await ok(hub(api, 'like', { ...as(victim), vid }));
    await ok(hub(api, 'dislike', { ...as(victim), vid: vids[2], action: 'dislike' }));
    for (const [vid, content] of [
      [vids[0], 'great robots'],
      [vids[0], 'and more robots'],
      [vids[1], 'drones!'],
      [own, 'welcome'],
    ] as const) {
      await ok(hub(api, 'comment_set', { ...as(victim), vid, content }));
      clock.advance(7_000); // under the per-minute comment limit
    }
    for (const other of [a, b]) await ok(hub(api, 'follow_user', { ...as(victim), follow_user: other.openid }));
    for (const other of [b, c]) await ok(hub(api, 'follow_user', { ...as(other), follow_user: victim.openid }));
    for (const other of [a, b, c]) await ok(hub(api, 'like', { ...as(other), vid: own }));
    // c blocks the victim (ending c's follow of it): the block outlives the account, against the person.
    await ok(hub(api, 'block_user', { ...as(c), block_user: victim.openid }));
    await ok(hub(api, 'comment_set', { ...as(a), vid: vids[0], content: 'after the victim' }));
    await ok(hub(api, 'get_next_list', { ...as(victim), order: 'new', watch_count: 5, view_list: vids.join(','), fav_index: '' }));
    await ok(hub(api, 'sharetext', { ...as(victim), vid: vids[0], d: 'phone-1', locale: 'en', country: 'CN' }));
    await ok(hub(api, 'change_nickname', { ...as(victim), nickname: 'Victim Name' }));
    for (const name of ['one', 'two']) expect((await api.post('/api/v1/api-keys', { token: victim.token, body: { name } })).status).toBe(201);
    await settleStreams();
    const before = await comments(vids[0]!, a);

    const deleted = await api.delete<{ deletion: Deletion }>('/api/v1/me?confirm=delete', { token: victim.token });
    expect(deleted.status).toBe(202);
    // Others act on the same videos and accounts while the erasure runs.
    await Promise.all([
      settleStreams(),
      (async () => {
        for (const vid of vids) await ok(hub(api, 'like', { ...as(c), vid }));
        await ok(hub(api, 'comment_set', { ...as(b), vid: vids[0], content: 'during the erasure' }));
        await ok(hub(api, 'follow_user', { ...as(b), follow_user: a.openid }));
        await ok(hub(api, 'follow_user', { ...as(a), follow_user: c.openid }));
        await ok(hub(api, 'dislike', { ...as(a), vid: own, action: 'dislike' }));
      })(),
    ]);
    await settleStreams();
    expect((await api.get<{ deletion: Deletion }>(deleted.data.deletion.status_url)).data.deletion.state).toBe('erased');

    // Comment pages keep their numbering: the victim's comments are tombstones in place.
    const after = await comments(vids[0]!, a);
    expect(after.total).toBe(before.total + 1);
    const victimCids = before.list.filter((x) => x.openid === victim.openid).map((x) => x.cid);
    expect(victimCids).toHaveLength(2);
    for (const cid of victimCids) expect(after.list.find((x) => x.cid === cid)).toMatchObject({ openid: '', nickname: '', content: '' });

    // The published video stays, without its author's name.
    const feed = await hub<{ list: Video[] }>(api, 'get_next_list', { ...as(b), order: 'new', watch_count: 20, fav_index: '' });
    expect(feed.data.list.find((v) => v.vid === own)?.author).toEqual({ openid: victim.openid, nickname: '' });

    // Nothing of the account is left but what docs/accounts.md lists as kept (its person id included):
    // c's block of it holds against the person (docs/moderation.md, "Blocking").
    await expectOnlyRetained(victim, deleted.data.deletion.id, ['Victim Name', 'great robots', 'and more robots', 'drones!', 'welcome'], own, [c.openid]);
    expect(await counterMismatches()).toEqual([]);
  });

  it('refuses every write of the deleted account between the erasure steps, and erases what it wrote just before that the lagging indexes do not show', async () => {
    const editor = await signUp(api);
    await makeEditor(editor);
    const vids = [await publish(editor, 'Race one'), await publish(editor, 'Race two'), await publish(editor, 'Race three')] as const;
    const other = await signUp(api);
    const victim = await signUp(api);
    clock.advance(61_000); // past the phone's resend wait
    const secondSession = await signUp(api, victim.phone);
    expect(secondSession.openid).toBe(victim.openid);
    // Written a moment before the deletion: the comments-by-author, reporter and sharer indexes have
    // not caught up with any of it (as an index in AWS may lag; DynamoDB Local's never do).
    const lag = lagIndex((input) => JSON.stringify(input.ExpressionAttributeValues ?? {}).includes(victim.openid));
    await ok(hub(api, 'comment_set', { ...as(victim), vid: vids[0], content: 'racing words' }));
    await ok(hub(api, 'report', { ...as(victim), target: 'user', id: other.openid, reason: 'spam', text: 'racing report' }));
    await ok(hub(api, 'sharetext', { ...as(victim), vid: vids[0], d: 'phone-9', locale: 'en', country: 'CN' }));
    await ok(hub(api, 'like', { ...as(victim), vid: vids[0] }));
    // The lag holds: the reporter index shows nothing of the report yet.
    expect(await hasReports(victim.openid)).toBe(false);
    expect(lag.hidden).toBe(1);
    const deleted = await api.delete<{ deletion: Deletion }>('/api/v1/me?confirm=delete', { token: victim.token });
    expect(deleted.status).toBe(202);
    const id = deleted.data.deletion.id;

    // Requests authenticated just before the deletion, landing between the erasure's steps and after
    // its end: each is refused by its own transaction's check of the account.
    const late = (n: number): (() => Promise<unknown>)[] => [
      () => postComment({ openid: victim.openid, vid: vids[1], content: `late words ${n}` }),
      () => likeVideo(victim.openid, vids[1]),
      () => dislikeVideo(victim.openid, vids[2]),
      () => fileReport({ reporter: victim.openid, target: { type: 'video', id: vids[1] }, reason: 'spam', text: `late report ${n}` }),
      () => createShare({ vid: vids[1], d: 'phone-9', locale: 'en', country: 'CN', account: victim.openid, sourceIp: '203.0.113.9' }),
      () => follow(victim.openid, other.openid),
      () => block(victim.openid, other.openid),
      () => setProfileField(victim.openid, 'nickname', `Late name ${n}`),
      // What the filter holds is written in the author's partition too (docs/moderation.md, "Held content").
      () => holdProfileField(victim.openid, 'nickname', `Late held name ${n}`),
      () => holdComment({ openid: victim.openid, vid: vids[1], content: `late held words ${n}` }, notBlockedByCheck(editor.openid, victim.openid)),
      () => holdVideo({ vid: `lateheld${n}`.slice(0, 10), author_openid: victim.openid, title: `Late held video ${n}`, description: '', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60, tags: [] }, { title: `Late held video ${n}` }),
    ];
    // A sign-out of the deleted account's token answers done (every token of it is refused) and writes nothing.
    const signOutLate = async (token: string) => expect(await signOut({ user_id: victim.openid, auth_type: 'jwt', scopes: [], roles: [] }, { authorization: `Bearer ${token}` })).toEqual({ ended: true });
    const stepsSeen = new Set<string>();
    let state = 'erasing';
    for (let run = 0; state === 'erasing' && run < 40; run++) {
      for (const write of late(run)) await expect(write()).rejects.toBeInstanceOf(NotFoundError);
      await signOutLate(victim.token);
      stepsSeen.add((await getDeletion(id))!.step);
      state = await eraseSome(id, 1);
    }
    expect(state).toBe('erased');
    expect([...stepsSeen]).toEqual(['partition', 'comments', 'reports', 'videos', 'shares', 'keys', 'finish']);
    for (const write of late(99)) await expect(write()).rejects.toBeInstanceOf(NotFoundError);
    // A session first ended after the end: nothing of it lands in the erased partition.
    await signOutLate(secondSession.token);
    clearIndexLag();

    await expectOnlyRetained(victim, id, ['racing words', 'racing report', 'late words', 'late report', 'Late name', 'Late held', 'late held']);
    await settleStreams();
    expect(await counterMismatches()).toEqual([]);
  });
});

/**
 * A scan of both tables for the account's openid, phone and `texts` finds only what docs/accounts.md
 * lists as kept (`own`: a video it published), its account item a bare tombstone, no key.
 */
async function expectOnlyRetained(victim: SignedUp, deletionId: string, texts: string[], own?: string, blockers: string[] = []): Promise<void> {
  const person = personIdOf(victim.phone);
  const leftovers = (await allItems()).filter(({ item }) => {
    const text = JSON.stringify(item);
    return [victim.openid, victim.phone, person, ...texts].some((s) => text.includes(s));
  });
  const retained = (item: Record<string, unknown>) =>
    (item.pk === `DELETION#${deletionId}`) ||
    (item.pk === `ACCOUNT#${victim.openid}` && item.sk === 'PROFILE' && item.entity === 'deleted_account') ||
    (item.pk === `ACCOUNT#${victim.openid}` && item.entity === 'audit_event' && ['account.deletion_requested', 'account.deleted'].includes(String(item.type))) ||
    // Kept by design: the video it published (and what others did on it: their likes name its author), shares, SMS windows of the phone.
    (own !== undefined && item.pk === `VIDEO#${own}`) ||
    // Others' records of that video name its author: their likes, their feed state, the model's neighbour lists.
    (item.entity === 'like' && item.author_openid === victim.openid && item.openid !== victim.openid) ||
    (item.entity === 'feed_state' && item.pk !== `ACCOUNT#${victim.openid}`) ||
    item.entity === 'neighbours' ||
    // Others' blocks of it hold against the person (docs/moderation.md, "Blocking"): each blocker's
    // list keeps the entry, and the block's person item is kept as long as the block.
    (item.entity === 'blocks' && blockers.some((b) => item.pk === `ACCOUNT#${b}`)) ||
    (item.entity === 'person_block' && item.pk === `PERSON#${person}` && blockers.includes(String(item.blocker))) ||
    // The person's windows expire within minutes (the comment limit) or a day (reports, SMS).
    String(item.pk).startsWith(`RATE#comments-minute#${person}`) ||
    /^RATE#reports-(hour|day)#/.test(String(item.pk)) ||
    String(item.pk).startsWith(`PHONE#${victim.phone}`) ||
    String(item.pk).startsWith(`RATE#sms-`);
  const unexpected = leftovers.filter(({ item }) => !retained(item)).map(({ table, item }) => `${table} ${String(item.pk)} ${String(item.sk)} ${String(item.entity)}`);
  expect(unexpected).toEqual([]);
  const tombstone = leftovers.find(({ item }) => item.entity === 'deleted_account')!.item;
  expect(Object.keys(tombstone).sort()).toEqual(['deleted_at', 'deletion_id', 'entity', 'openid', 'pk', 'sk', 'ttl']);
  expect((await allItems()).filter(({ table, item }) => table === tableNames.apiKeys && item.user_id === victim.openid)).toEqual([]);
}

describe('the sweeper', () => {
  it('resumes an erasure the stream gave up on, and counts those overdue', async () => {
    const victim = await signUp(api);
    await ok(hub(api, 'change_city', { ...as(victim), city: 'Ningbo' }));
    const deleted = await api.delete<{ deletion: Deletion }>('/api/v1/me?confirm=delete', { token: victim.token });
    // Every read of the account's partition fails while the stream delivers the record: the local
    // poller, as Lambda, retries it 10 times and then gives it up (deployed: the on-failure queue).
    const down = failWhere('throughput', (command, input) => command === 'QueryCommand' && JSON.stringify(input).includes(`ACCOUNT#${victim.openid}`));
    await settleStreams();
    clearFaults();
    expect(down.failures).toBeGreaterThanOrEqual(10);
    await settleStreams();
    expect((await api.get<{ deletion: Deletion }>(deleted.data.deletion.status_url)).data.deletion.state).toBe('erasing');

    // Not stalled yet (moved less than 10 minutes ago): left alone.
    expect(await sweepErasures()).toEqual({ kicked: 0, overdue: 0 });
    clock.advance(61 * 60_000);
    expect(await sweepErasures()).toEqual({ kicked: 1, overdue: 1 });
    await settleStreams();
    expect((await api.get<{ deletion: Deletion }>(deleted.data.deletion.status_url)).data.deletion.state).toBe('erased');
    expect(await sweepErasures()).toEqual({ kicked: 0, overdue: 0 });
  });
});
