import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { accountKeys, personIdOf, signInByPhone } from '../../lib/entities/accounts/accounts.js';
import { blockKeys } from '../../lib/entities/social/block-items.js';
import { rateWindowKeys } from '../../lib/platform/limits/rate-windows.js';
import { seedFilterTerms } from '../../lib/features/filter/terms.js';
import { getHubItem, hub, newPhone, putTestVideo, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { settleStreams, useTestStack } from '../support/stack.js';

/**
 * A person across the re-creation of its account (docs/accounts.md, "The person id"): deleting the
 * account and signing in again with the same phone escapes neither the limits that protect others
 * (reports, comments) nor the blocks others made; an invitation never names a deleted account.
 */
const REPORTS_PER_HOUR = 20;
const COMMENTS_PER_MINUTE = 10;
// A resend wait of 1 s: the same phone signs in again within the windows under test.
const api = useTestStack({ http: false, env: { RATE_SMS_PHONE_INTERVAL_S: '1', RATE_REPORTS_PER_HOUR: String(REPORTS_PER_HOUR), RATE_COMMENTS_PER_MINUTE: String(COMMENTS_PER_MINUTE) } });

const HOLD_TERM = 'heldword';
// Stored before any comment reads the term list (its first read caches it).
beforeAll(async () => expect(await seedFilterTerms([{ term: HOLD_TERM, action: 'hold' }])).toBe(true));

const as = (u: SignedUp) => ({ openid: u.openid, token: u.token });
const HOUR = 3_600_000;
/** The clock at the start of the next whole hour plus `ms`: the windows under test do not roll over. */
const atHourStart = (ms = 0) => clock.set(Math.ceil(Date.now() / HOUR) * HOUR + HOUR + ms);

async function deleteAndErase(u: SignedUp, erase = true): Promise<void> {
  const deleted = await hub(api, 'delete_account', { ...as(u), confirm: 'delete' });
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  if (erase) await settleStreams();
}

/** The same phone signed in again (after the 1 s resend wait): a new, empty account. */
async function again(u: SignedUp): Promise<SignedUp> {
  clock.advance(1_100);
  const next = await signUp(api, u.phone);
  expect(next).toMatchObject({ new_account: true });
  expect(next.openid).not.toBe(u.openid);
  return next;
}

describe('limits that protect others follow the person (finding 1)', () => {
  it('a new account of the same phone inherits the open report window (429 at once)', async () => {
    atHourStart(60_000);
    const author = await signUp(api);
    const { vid } = await putTestVideo(author.openid);
    const reporter = await signUp(api);
    const report = (u: SignedUp) => hub(api, 'report', { ...as(u), target: 'video', id: vid, reason: 'spam' });
    for (let i = 0; i < REPORTS_PER_HOUR; i++) expect((await report(reporter)).status).toBe(200);
    const refused = await report(reporter);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();

    await deleteAndErase(reporter);
    const recreated = await again(reporter);
    const after = await report(recreated);
    expect(after.status, JSON.stringify(after.body)).toBe(429);
    expect(after.body).toMatchObject({ code: 'RATE_LIMITED' });
    // The window is the person's: keyed by the person id, not by either openid.
    const person = personIdOf(reporter.phone);
    const windows = [reporter.openid, recreated.openid, person].map((s) => rateWindowKeys.rateWindow('reports-hour', s, `3600s#${Math.floor(clock.now() / HOUR)}`));
    expect(await Promise.all(windows.map(async (k) => (await getHubItem<{ n: number }>(k))?.n))).toEqual([undefined, undefined, REPORTS_PER_HOUR]);
    // The next hour opens a new window for the person.
    clock.advance(HOUR);
    expect((await report(recreated)).status).toBe(200);
  });

  it('a new account of the same phone inherits the open comment window, whether it signs with a login token or an access key', async () => {
    atHourStart(1_000);
    const author = await signUp(api);
    const { vid } = await putTestVideo(author.openid);
    const commenter = await signUp(api);
    const comment = (u: SignedUp, content: string, headers?: Record<string, string>) =>
      hub(api, 'comment_set', headers ? { openid: u.openid, vid, content } : { ...as(u), vid, content }, headers);
    for (let i = 0; i < COMMENTS_PER_MINUTE; i++) expect((await comment(commenter, `comment ${i}`)).status).toBe(200);
    expect((await comment(commenter, 'one too many')).status).toBe(429);

    await deleteAndErase(commenter);
    const recreated = await again(commenter);
    const refused = await comment(recreated, 'from the new account');
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    // An access key's caller (no person id from a token check): the same window, read after the account.
    const key = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: recreated.token, body: { name: 'script' } });
    expect(key.status).toBe(201);
    expect((await comment(recreated, 'from a script', { authorization: `Bearer ${key.data.api_key}` })).status).toBe(429);
    // A comment the filter holds counts in the same window (docs/hub-api.md, "comment_set").
    expect((await comment(recreated, `a ${HOLD_TERM} comment`)).status).toBe(429);
    // The next minute: both ways work again, counted in the one window of the person.
    clock.advance(60_000);
    expect((await comment(recreated, 'a minute later')).status).toBe(200);
    expect((await comment(recreated, 'a minute later, by script', { authorization: `Bearer ${key.data.api_key}` })).status).toBe(200);
    const window = rateWindowKeys.rateWindow('comments-minute', personIdOf(commenter.phone), `60s#${Math.floor(clock.now() / 60_000)}`);
    expect((await getHubItem<{ n: number }>(window))?.n).toBe(2);
  });
});

interface BlockedEntry {
  openid: string;
  nickname: string;
  blocked_at: string;
  state: string;
}
const blockedList = async (u: SignedUp) => {
  const res = await hub<{ list: BlockedEntry[]; total: number }>(api, 'get_blocked', { ...as(u), offset: 0 });
  expect(res.status).toBe(200);
  return res.data;
};
const exists = async (key: { pk: string; sk: string }) => (await getHubItem(key)) !== undefined;

describe('blocks follow the person (finding 2)', () => {
  it('holds against the account created again with the phone: follow and comment refused from its first request, the blocker sees it throughout', async () => {
    const [a, b] = [await signUp(api), await signUp(api)];
    const { vid } = await putTestVideo(a.openid);
    expect((await hub(api, 'block_user', { ...as(a), block_user: b.openid })).status).toBe(200);
    const at = (await blockedList(a)).list[0]!.blocked_at;

    await deleteAndErase(b);
    // Deleted, not yet re-created: still listed, without a name, as deleted.
    expect(await blockedList(a)).toEqual({ list: [{ openid: b.openid, nickname: '', blocked_at: at, state: 'deleted' }], total: 1, next_offset: -1 });

    const b2 = await again(b);
    const follow = await hub(api, 'follow_user', { ...as(b2), follow_user: a.openid });
    expect(follow.status, JSON.stringify(follow.body)).toBe(403);
    const comment = await hub(api, 'comment_set', { ...as(b2), vid, content: 'hello again' });
    expect(comment.status, JSON.stringify(comment.body)).toBe(403);
    const nickname = (await hub<{ profile: { nickname: string } }>(api, 'get_fav', { ...as(b2), next_id: 0, fav_index: 0, watch_list: 'like', view: '', q: '' })).data.profile.nickname;
    // The entry now names the new account (the same block, the same time: the list did not grow).
    expect(await blockedList(a)).toEqual({ list: [{ openid: b2.openid, nickname, blocked_at: at, state: 'active' }], total: 1, next_offset: -1 });
    expect(await exists(blockKeys.blockedBy(b2.openid, a.openid))).toBe(true);
    expect(await getHubItem(blockKeys.personBlockedBy(personIdOf(b.phone), a.openid))).toMatchObject({ blocker: a.openid, blocked: b2.openid });

    // Unblocked: everything of the block goes, and the new account may follow.
    expect((await hub(api, 'unblock_user', { ...as(a), block_user: b2.openid })).status).toBe(200);
    expect(await exists(blockKeys.personBlockedBy(personIdOf(b.phone), a.openid))).toBe(false);
    expect(await exists(blockKeys.blockedBy(b2.openid, a.openid))).toBe(false);
    expect((await hub(api, 'follow_user', { ...as(b2), follow_user: a.openid })).status).toBe(200);
  });

  it('holds when the account is created again before its erasure ran, and the erasure afterwards leaves the block on the new account', async () => {
    const [a, b] = [await signUp(api), await signUp(api)];
    expect((await hub(api, 'block_user', { ...as(a), block_user: b.openid })).status).toBe(200);
    await deleteAndErase(b, false);
    const b2 = await again(b);
    await settleStreams();
    expect((await blockedList(a)).list.map((e) => [e.openid, e.state])).toEqual([[b2.openid, 'active']]);
    expect((await hub(api, 'follow_user', { ...as(b2), follow_user: a.openid })).status).toBe(403);
    expect(await exists(blockKeys.blockedBy(b.openid, a.openid))).toBe(false);
  });

  it('unblocks a deleted account in the list; a deleted account not in it stays 404', async () => {
    const [a, b, c] = [await signUp(api), await signUp(api), await signUp(api)];
    expect((await hub(api, 'block_user', { ...as(a), block_user: b.openid })).status).toBe(200);
    await deleteAndErase(b);
    await deleteAndErase(c);
    expect((await hub(api, 'unblock_user', { ...as(a), block_user: c.openid })).status).toBe(404);
    expect((await hub(api, 'unblock_user', { ...as(a), block_user: b.openid })).body).toEqual({ code: 0, data: { block_user: b.openid, blocked: false } });
    expect(await blockedList(a)).toEqual({ list: [], total: 0, next_offset: -1 });
    expect(await exists(blockKeys.personBlockedBy(personIdOf(b.phone), a.openid))).toBe(false);
    // Nothing follows the person any more.
    const b2 = await again(b);
    expect((await hub(api, 'follow_user', { ...as(b2), follow_user: a.openid })).status).toBe(200);
  });

  it("tells the blocker when a block cannot follow the person (made before person ids): 'lapsed'", async () => {
    const [a, b] = [await signUp(api), await signUp(api)];
    expect((await hub(api, 'block_user', { ...as(a), block_user: b.openid })).status).toBe(200);
    // As a block stored before person ids: no person id in the list, no person item.
    await db.send(new UpdateCommand({ TableName: tableNames.hub, Key: blockKeys.blockList(a.openid), UpdateExpression: 'REMOVE persons' }));
    await db.send(new DeleteCommand({ TableName: tableNames.hub, Key: blockKeys.personBlockedBy(personIdOf(b.phone), a.openid) }));
    await deleteAndErase(b);
    expect((await blockedList(a)).list.map((e) => [e.openid, e.state])).toEqual([[b.openid, 'lapsed']]);
  });

  it('a stale person item (its blocker no longer holds the entry) never fails a sign-in: it is removed', async () => {
    const [a, b] = [await signUp(api), await signUp(api)];
    expect((await hub(api, 'block_user', { ...as(a), block_user: b.openid })).status).toBe(200);
    // The list entry gone without its person item (a state no operation leaves, kept out of harm's way).
    await db.send(new UpdateCommand({ TableName: tableNames.hub, Key: blockKeys.blockList(a.openid), UpdateExpression: 'REMOVE blocked.#b, persons.#b', ExpressionAttributeNames: { '#b': b.openid } }));
    await deleteAndErase(b);
    const b2 = await again(b);
    expect(await exists(blockKeys.personBlockedBy(personIdOf(b.phone), a.openid))).toBe(false);
    expect(await exists(blockKeys.blockedBy(b2.openid, a.openid))).toBe(false);
    expect((await hub(api, 'follow_user', { ...as(b2), follow_user: a.openid })).status).toBe(200);
  });

  it("the blocker's erasure takes its blocks' person items with it (its own data)", async () => {
    const [a, b] = [await signUp(api), await signUp(api)];
    expect((await hub(api, 'block_user', { ...as(a), block_user: b.openid })).status).toBe(200);
    const personItem = blockKeys.personBlockedBy(personIdOf(b.phone), a.openid);
    expect(await exists(personItem)).toBe(true);
    await deleteAndErase(a);
    expect(await exists(personItem)).toBe(false);
    expect(await exists(blockKeys.blockedBy(b.openid, a.openid))).toBe(false);
  });
});

describe('an invitation never names a deleted account (finding 10)', () => {
  it('ignores a deleted inviter: no invited_by, no INVITED# item in the erased partition', async () => {
    const inviter = await signUp(api);
    await deleteAndErase(inviter);
    const invitee = await signUp(api, newPhone(), { invite_uid: inviter.openid });
    expect(invitee.new_account).toBe(true);
    expect(await getHubItem(accountKeys.account(invitee.openid))).not.toHaveProperty('invited_by');
    expect(await exists(accountKeys.invite(inviter.openid, invitee.openid))).toBe(false);
    // A live inviter is still recorded.
    const live = await signUp(api);
    const invited = await signUp(api, newPhone(), { invite_uid: live.openid });
    expect(await getHubItem(accountKeys.account(invited.openid))).toMatchObject({ invited_by: live.openid });
    expect(await exists(accountKeys.invite(live.openid, invited.openid))).toBe(true);
  });

  it('drops the inviter when its deletion lands between the read and the sign-up transaction (the condition in the transaction)', async () => {
    const inviter = await signUp(api);
    await deleteAndErase(inviter);
    // The sign-in as create_phone_account runs it, after a read that found the inviter live.
    const guard = { Put: { TableName: tableNames.hub, Item: { pk: `TEST#guard#${inviter.openid}`, sk: 'GUARD' }, ConditionExpression: 'attribute_not_exists(pk)' } };
    const { account, created } = await signInByPhone(newPhone(), { guard, inviter: inviter.openid });
    expect(created).toBe(true);
    expect(account.invited_by).toBeUndefined();
    expect(await getHubItem(accountKeys.account(account.openid))).not.toHaveProperty('invited_by');
    expect(await exists(accountKeys.invite(inviter.openid, account.openid))).toBe(false);
  });
});
