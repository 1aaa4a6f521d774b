import { randomBytes } from 'node:crypto';
import { newNonce, newPhone } from '../fixtures.js';
import { hubRequest } from '../invoke.js';
import { NoAnswer, type SoakAnswer, type SoakClient, type SoakRequest } from './client.js';
import { compareSets, type Ledger, type LedgerKey } from './ledger.js';

/**
 * One simulated user of the soak: signs up, then picks operations from MIX one after the other
 * (with a think time between them) until the deadline, updating the ledger on every acknowledged
 * answer. Videos and accounts are picked with a skew, so that a few popular ones take most likes,
 * comments and follows and their counters are written concurrently.
 */
export interface SoakAccount {
  openid: string;
  token: string;
  phone: string;
  /** When the phone's last SMS code was sent. */
  codeAt: number;
}

export interface SoakContext {
  client: SoakClient;
  ledger: Ledger;
  vids: string[];
  /** Every account signed up so far, oldest first (the catalog's authors lead). */
  accounts: SoakAccount[];
  deadline: number;
  thinkMs: number;
}

export class SoakUser {
  lastPage: string[] = [];
  comments = 0;
  keysMade = 0;
  readonly device = randomBytes(8).toString('hex');
  constructor(
    readonly name: string,
    public account: SoakAccount,
  ) {}

  get openid() {
    return this.account.openid;
  }

  /** What every hub call of the user carries: who, the login token, the device. */
  get auth() {
    return { openid: this.account.openid, token: this.account.token, d: this.device };
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const any = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
/** Skewed towards the head of the list: the first tenth gets almost half the picks. */
const popular = <T>(list: readonly T[]): T => list[Math.floor(list.length * Math.random() ** 3)]!;
/** A hub call: `GET /api/v1?do=<op>` with every parameter in the query string. */
export const hub = (op: string, params: Record<string, string | number | undefined>): SoakRequest => ({ method: 'GET', path: hubRequest(op, params).path });
/** get_fav's parameters (the seed requires them all, most may be empty): the first page of a like list. */
export const likeList = (fav_index: number, view = '') => ({ watch_list: 'like', next_id: 0, fav_index, view, q: '' });

function contract(ctx: SoakContext, op: string, detail: string) {
  ctx.client.recorder.fail({ kind: 'contract', op, detail });
}

function otherAccount(ctx: SoakContext, user: SoakUser): SoakAccount | undefined {
  for (let i = 0; i < 5; i++) {
    const account = popular(ctx.accounts);
    if (account.openid !== user.openid) return account;
  }
  return undefined;
}

/** A sign-up or a sign-in through the real operations: gen_code, the code from `/_dev/sms`, create_phone_account. */
export async function signIn(client: SoakClient, phone: string, previous?: SoakAccount): Promise<SoakAccount & { newAccount: boolean }> {
  const nonce = newNonce();
  if ((await client.send('gen_code', hub('gen_code', { phonenumber: phone, nonce }))).status !== 200) throw new NoAnswer('gen_code');
  const codeAt = Date.now();
  const sms = await client.send('GET /_dev/sms', { method: 'GET', path: `/_dev/sms?phone=${encodeURIComponent(phone)}` });
  const code = (sms.data.messages as { code: string }[] | undefined)?.[0]?.code;
  if (!code) {
    client.recorder.fail({ kind: 'contract', op: 'gen_code', detail: `no SMS code in the outbox for ${phone}` });
    throw new NoAnswer('gen_code');
  }
  const params = { openid: phone, token: nonce, code, openid0: previous?.openid ?? '', token0: previous?.token ?? '' };
  const answer = await client.send('create_phone_account', hub('create_phone_account', params));
  if (answer.status !== 200) throw new NoAnswer('create_phone_account');
  return { openid: String(answer.data.openid), token: String(answer.data.token), phone, codeAt, newAccount: answer.data.new_account === true };
}

type Repeat = 'once' | 'again' | 'parallel';
/** Deliberate duplicates: a retry after the answer, or the same request twice at once. */
function repeatMode(again: number, parallel: number): Repeat {
  const r = Math.random();
  return r < parallel ? 'parallel' : r < parallel + again ? 'again' : 'once';
}

/**
 * Sends an idempotent request once, twice in a row or twice at once (labelled `op (again)` and
 * `op (parallel)` in the figures); `onAck` runs for every answer with the expected status.
 */
async function withDuplicates(ctx: SoakContext, op: string, request: SoakRequest, mode: Repeat, onAck: (answer: SoakAnswer) => void): Promise<SoakAnswer[]> {
  const once = async (label: string) => {
    const answer = await ctx.client.send(label, request);
    if (answer.status === 200) onAck(answer);
    return answer;
  };
  if (mode === 'parallel') return Promise.all([once(`${op} (parallel)`), once(`${op} (parallel)`)]);
  const first = await once(op);
  return mode === 'again' ? [first, await once(`${op} (again)`)] : [first];
}

async function feed(user: SoakUser, ctx: SoakContext) {
  const params = { ...user.auth, watch_count: 10, view_list: user.lastPage.join(',') || undefined };
  const answer = await ctx.client.send('get_next_list', hub('get_next_list', params));
  if (answer.status !== 200) return;
  const vids = (answer.data.list as { vid: string }[]).map((v) => v.vid);
  if (new Set(vids).size !== vids.length) contract(ctx, 'get_next_list', `duplicate vids in one answer: ${vids.join(',')}`);
  const disliked = vids.filter((vid) => ctx.ledger.dislikedBy(user.openid).has(vid));
  if (disliked.length) contract(ctx, 'get_next_list', `${user.openid} got videos it disliked: ${disliked.join(',')}`);
  user.lastPage = vids;
}

async function like(user: SoakUser, ctx: SoakContext) {
  const vid = user.lastPage.length > 0 && Math.random() < 0.5 ? any(user.lastPage) : popular(ctx.vids);
  await withDuplicates(ctx, 'like', hub('like', { ...user.auth, vid }), repeatMode(0.12, 0.12), (answer) => {
    ctx.ledger.liked(user.openid, vid);
    if (answer.data.liked !== true || !(Number(answer.data.like_count) >= 1)) contract(ctx, 'like', `answer ${JSON.stringify(answer.data)} after liking ${vid}`);
  });
}

async function dislike(user: SoakUser, ctx: SoakContext) {
  const liked = [...ctx.ledger.likedBy(user.openid)];
  const vid = liked.length > 0 && Math.random() < 0.6 ? any(liked) : popular(ctx.vids);
  await withDuplicates(ctx, 'dislike', hub('dislike', { ...user.auth, vid, action: 'dislike' }), repeatMode(0.1, 0.1), (answer) => {
    ctx.ledger.disliked(user.openid, vid);
    if (answer.data.disliked !== true) contract(ctx, 'dislike', `answer ${JSON.stringify(answer.data)} after disliking ${vid}`);
  });
}

async function followUser(user: SoakUser, ctx: SoakContext) {
  const target = otherAccount(ctx, user);
  if (!target) return;
  await withDuplicates(ctx, 'follow_user', hub('follow_user', { ...user.auth, follow_user: target.openid }), repeatMode(0.12, 0.15), (answer) => {
    ctx.ledger.followed(user.openid, target.openid);
    if (answer.data.following !== true) contract(ctx, 'follow_user', `answer ${JSON.stringify(answer.data)}`);
  });
}

async function unfollowUser(user: SoakUser, ctx: SoakContext) {
  const followees = [...ctx.ledger.followees(user.openid)];
  // Now and then someone not followed: unfollowing is idempotent too.
  const target = followees.length > 0 && Math.random() < 0.85 ? any(followees) : otherAccount(ctx, user)?.openid;
  if (!target) return;
  await withDuplicates(ctx, 'unfollow_user', hub('unfollow_user', { ...user.auth, follow_user: target }), repeatMode(0.1, 0.1), (answer) => {
    ctx.ledger.unfollowed(user.openid, target);
    if (answer.data.following !== false) contract(ctx, 'unfollow_user', `answer ${JSON.stringify(answer.data)}`);
  });
}

const PHRASES = ['Great booth!', '展位很棒，明天再来', 'Where is hall 3?', '这个机器人太厉害了', 'Line 1\nline 2 of a longer note', 'Thanks for the demo'];

async function commentSet(user: SoakUser, ctx: SoakContext) {
  user.comments += 1;
  const vid = popular(ctx.vids);
  const content = `${any(PHRASES)} (${user.name} #${user.comments})`;
  const answers = await withDuplicates(ctx, 'comment_set', hub('comment_set', { ...user.auth, vid, content }), repeatMode(0.2, 0.1), (answer) => {
    ctx.ledger.commented(vid, String((answer.data.comment as { cid: string }).cid));
  });
  // Retries of the same (openid, vid, content) within 60 s must give the first comment back.
  const cids = new Set(answers.filter((a) => a.status === 200).map((a) => (a.data.comment as { cid: string }).cid));
  if (cids.size > 1) contract(ctx, 'comment_set', `${answers.length} sends of one comment on ${vid} made ${cids.size} comments: ${[...cids].join(' ')}`);
}

async function commentGet(user: SoakUser, ctx: SoakContext) {
  const vid = popular(ctx.vids);
  const acknowledged = ctx.ledger.comments(vid).size;
  const answer = await ctx.client.send('comment_get', hub('comment_get', { ...user.auth, vid, page: Math.random() < 0.8 ? 1 : 2 }));
  // Comments are never removed: every acknowledged one is counted.
  if (answer.status === 200 && Number(answer.data.total) < acknowledged) {
    contract(ctx, 'comment_get', `total ${answer.data.total} on ${vid} below the ${acknowledged} acknowledged comments`);
  }
}

/** Only the user changes its own like_count and follow_count, and it is idle now: they are exact. */
async function getFav(user: SoakUser, ctx: SoakContext) {
  const other = Math.random() < 0.3 ? otherAccount(ctx, user) : undefined;
  const answer = await ctx.client.send('get_fav', hub('get_fav', { ...user.auth, ...likeList(10, other?.openid) }));
  if (answer.status !== 200 || other) return;
  const profile = answer.data.profile as Record<string, unknown>;
  const want = { like_count: ctx.ledger.likedBy(user.openid).size, follow_count: ctx.ledger.followees(user.openid).size };
  if (profile.like_count !== want.like_count || profile.follow_count !== want.follow_count) {
    contract(ctx, 'get_fav', `own profile of ${user.openid} shows like_count ${profile.like_count} follow_count ${profile.follow_count}, ledger ${want.like_count} ${want.follow_count}`);
  }
}

async function getFollow(user: SoakUser, ctx: SoakContext) {
  const other = Math.random() < 0.4 ? otherAccount(ctx, user) : undefined;
  const answer = await ctx.client.send('get_follow', hub('get_follow', { ...user.auth, watch_list: other?.openid ?? '', offset: 0 }));
  const want = ctx.ledger.followees(user.openid).size;
  if (answer.status === 200 && !other && answer.data.total !== want) contract(ctx, 'get_follow', `${user.openid} follows ${answer.data.total} by get_follow, ${want} by the ledger`);
}

async function getFollower(user: SoakUser, ctx: SoakContext) {
  const other = Math.random() < 0.4 ? otherAccount(ctx, user) : undefined;
  await ctx.client.send('get_follower', hub('get_follower', { ...user.auth, watch_list: other?.openid ?? '', offset: 0 }));
}

const keysPath = '/api/v1/api-keys';

/** A key verifies while it is active, and never once its revoke or delete has answered. */
async function verifyKey(ctx: SoakContext, owner: string, key: LedgerKey, op: string) {
  const answer = await ctx.client.send(op, { method: 'GET', path: `${keysPath}/verify?key=${encodeURIComponent(key.apiKey)}` }, key.active ? 200 : 401);
  if (answer.status === 200 && answer.data.user_id !== owner) contract(ctx, op, `key ${key.id} verified as ${answer.data.user_id}, not ${owner}`);
}

async function keyCreate(user: SoakUser, ctx: SoakContext) {
  user.keysMade += 1;
  const body = { name: `soak ${user.name} ${user.keysMade}`, scopes: Math.random() < 0.5 ? ['export:read'] : [] };
  // Not idempotent (each create is a new credential): only 429 and 503, which write nothing, are retried.
  const answer = await ctx.client.send('key create', { method: 'POST', path: keysPath, bearer: user.account.token, body }, 201);
  if (answer.status !== 201) return;
  const key = answer.data.key as { id: number; is_active: boolean; user_id: string };
  ctx.ledger.keyCreated(user.openid, key.id, String(answer.data.api_key));
  if (key.is_active !== true || key.user_id !== user.openid) contract(ctx, 'key create', `new key ${JSON.stringify(key)}`);
  // A new key verifies on the first try.
  if (Math.random() < 0.5) await verifyKey(ctx, user.openid, ctx.ledger.keys(user.openid).find((k) => k.id === key.id)!, 'key verify (new key)');
}

/** The user's own key list equals the ledger: only the user changes it, and it is idle now. */
async function keyList(user: SoakUser, ctx: SoakContext) {
  const answer = await ctx.client.send('key list', { method: 'GET', path: keysPath, bearer: user.account.token });
  if (answer.status !== 200) return;
  const seen = (answer.body.data as { id: number; is_active: boolean }[]).map((k) => `${k.id}:${k.is_active}`);
  const want = ctx.ledger.keys(user.openid).filter((k) => !k.deleted).map((k) => `${k.id}:${k.active}`);
  for (const m of compareSets('key', user.openid, 'keys', want, seen)) contract(ctx, 'key list', `${m.id}: ${m.expected} expected, ${m.seen}`);
}

async function keyVerify(user: SoakUser, ctx: SoakContext) {
  const keys = ctx.ledger.keys(user.openid);
  if (keys.length === 0) return keyCreate(user, ctx);
  // Mostly keys that still exist; sometimes a deleted one (it must not verify).
  const live = keys.filter((k) => !k.deleted);
  const key = live.length > 0 && Math.random() < 0.8 ? any(live) : any(keys);
  await verifyKey(ctx, user.openid, key, key.deleted ? 'key verify (deleted key)' : key.active ? 'key verify' : 'key verify (revoked key)');
}

async function keyRevoke(user: SoakUser, ctx: SoakContext) {
  const live = ctx.ledger.keys(user.openid).filter((k) => !k.deleted);
  const active = live.filter((k) => k.active);
  // Mostly active keys; sometimes one revoked already (revoking again succeeds again).
  const key = active.length > 0 && Math.random() < 0.85 ? any(active) : live.length > 0 ? any(live) : undefined;
  if (!key) return keyCreate(user, ctx);
  const request: SoakRequest = { method: 'POST', path: `${keysPath}/${key.id}/revoke`, bearer: user.account.token };
  await withDuplicates(ctx, 'key revoke', request, repeatMode(0.1, 0.1), () => ctx.ledger.keyRevoked(user.openid, key.id));
  await verifyKey(ctx, user.openid, key, 'key verify (revoked key)');
}

async function keyDelete(user: SoakUser, ctx: SoakContext) {
  const live = ctx.ledger.keys(user.openid).filter((k) => !k.deleted);
  if (live.length === 0) return keyCreate(user, ctx);
  const key = any(live);
  const request: SoakRequest = { method: 'DELETE', path: `${keysPath}/${key.id}`, bearer: user.account.token };
  if ((await ctx.client.send('key delete', request)).status !== 200) return;
  ctx.ledger.keyDeleted(user.openid, key.id);
  await verifyKey(ctx, user.openid, key, 'key verify (deleted key)');
  // Deleting is not idempotent: the key is gone.
  if (Math.random() < 0.2) await ctx.client.send('key delete (again)', request, 404);
}

/** A new phone: the user goes on as a new account; the old one keeps its facts (and is checked). */
async function signUpAgain(user: SoakUser, ctx: SoakContext) {
  const account = await signIn(ctx.client, newPhone());
  if (!account.newAccount) contract(ctx, 'create_phone_account', `a new phone signed in to an existing account ${account.openid}`);
  ctx.ledger.addAccount(account.openid);
  ctx.accounts.push(account);
  user.account = account;
  user.lastPage = [];
}

/**
 * The same phone again, ending the previous session (openid0/token0): the old token gets 401 from
 * now on. Within 60 s of the phone's last code gen_code answers 429 (the per-phone interval is the
 * one limit left on) and the client waits out its Retry-After: done on purpose now and then, while
 * the run has a minute left; otherwise the user reads its feed instead.
 */
async function signInAgain(user: SoakUser, ctx: SoakContext) {
  const previous = { ...user.account };
  const tooSoon = Date.now() - previous.codeAt < 61_000;
  if (tooSoon && (Math.random() < 0.7 || ctx.deadline - Date.now() < 65_000)) return feed(user, ctx);
  const account = await signIn(ctx.client, previous.phone, previous);
  if (account.newAccount || account.openid !== previous.openid) contract(ctx, 'create_phone_account', `sign-in of ${previous.openid} answered ${account.openid}, new_account ${account.newAccount}`);
  Object.assign(user.account, { token: account.token, codeAt: account.codeAt });
  await ctx.client.send('get_fav (ended token)', hub('get_fav', { ...user.auth, ...likeList(10), token: previous.token }), 401);
}

/** Requests that must fail, in the envelope: an unknown video, a key that does not exist, a bad page, a forged token. */
async function badRequest(user: SoakUser, ctx: SoakContext) {
  const bad: [string, SoakRequest, number][] = [
    ['like (unknown vid)', hub('like', { ...user.auth, vid: `missing${randomBytes(4).toString('hex')}` }), 404],
    ['key verify (unknown key)', { method: 'GET', path: `${keysPath}/verify?key=ak_${randomBytes(24).toString('base64url')}` }, 401],
    ['comment_get (page 0)', hub('comment_get', { ...user.auth, vid: popular(ctx.vids), page: 0 }), 400],
    ['get_fav (forged token)', hub('get_fav', { ...user.auth, ...likeList(10), token: `${user.account.token.slice(0, -4)}AAAA` }), 401],
  ];
  const [op, request, status] = any(bad);
  await ctx.client.send(op, request, status);
}

type Step = (user: SoakUser, ctx: SoakContext) => Promise<void>;

/** The mix: relative weights of what a user does next. */
export const MIX: [string, number, Step][] = [
  ['feed', 18, feed],
  ['like', 14, like],
  ['dislike', 4, dislike],
  ['follow', 8, followUser],
  ['unfollow', 4, unfollowUser],
  ['comment', 8, commentSet],
  ['read comments', 7, commentGet],
  ['profile', 6, getFav],
  ['following', 3, getFollow],
  ['followers', 3, getFollower],
  ['create key', 4, keyCreate],
  ['list keys', 3, keyList],
  ['verify key', 7, keyVerify],
  ['revoke key', 3, keyRevoke],
  ['delete key', 2, keyDelete],
  ['sign up', 1, signUpAgain],
  ['sign in again', 1.5, signInAgain],
  ['bad request', 2.5, badRequest],
];

export function pickWeighted<T>(entries: readonly (readonly [string, number, T])[], r = Math.random()): T {
  const total = entries.reduce((s, e) => s + e[1], 0);
  let left = r * total;
  for (const [, weight, value] of entries) {
    left -= weight;
    if (left < 0) return value;
  }
  return entries[entries.length - 1]![2];
}

/** One user's loop until the deadline; a request that got no answer is recorded and the user goes on. */
export async function runUser(user: SoakUser, ctx: SoakContext): Promise<void> {
  while (Date.now() < ctx.deadline) {
    try {
      await pickWeighted(MIX)(user, ctx);
    } catch (error) {
      if (!(error instanceof NoAnswer)) throw error;
    }
    await sleep(Math.random() * 2 * ctx.thinkMs);
  }
}
