import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { createKey } from '../../lib/features/keys/key-service.js';
import { deletionKeys } from '../../lib/features/deletion/deletion.js';
import { printTable } from '../format.js';
import { importCatalog } from '../catalog.js';
import { jwtFor, mustSucceed, signUp, type Account } from '../fixtures.js';
import { seedAccounts } from '../seed.js';
import { bearer, hubRequest, invoke } from '../invoke.js';
import { costOf, recordDb } from '../recorder.js';
import { inParallel } from '../../lib/platform/db/batch.js';

/**
 * Account deletion by account size (docs/accounts.md; docs/performance.md, "Account deletion"):
 * accounts built through the real operations (likes, follows both ways, comments, keys through the
 * handlers and use cases; the accounts on the other side of the follows are written as sign-up
 * writes them, with a login token each), then `DELETE /api/v1/me` while other people like, comment and follow on
 * the same videos and accounts; the erasure runs as `npm start` runs it (the stream poller). Per
 * size: the request's cost, the time until the deletion record said `erased`, the DynamoDB requests
 * and capacity of that window on the functions' client (the erasure's runs, plus the polls of the
 * record and the others' 24 calls; the derived counters have a client of their own, not counted), and
 * whether every count touched was exact afterwards (a recount by Scan, bench only).
 */
export interface DeletionRow {
  size: string;
  likes: number;
  follows: number;
  followers: number;
  comments: number;
  keys: number;
  /** Seconds to build the account through the operations. */
  buildSeconds: number;
  request: { requests: number; wcu: number; ms: number };
  /** From the answer until the record said erased (ms). */
  erasedMs: number;
  /** Then until the stream had applied every count the erasure moved (ms). */
  convergedMs: number;
  erasure: { requests: number; reads: number; writes: number; rcu: number; wcu: number };
  /** Others' operations during the erasure, and how many were not 200. */
  concurrent: { calls: number; failed: number };
  exact: boolean;
  note: string;
}

export interface DeletionResult {
  rows: DeletionRow[];
}

const SIZES = [
  { size: 'small', likes: 100, follows: 20, followers: 20, comments: 20, keys: 2 },
  { size: 'medium', likes: 1_000, follows: 200, followers: 200, comments: 100, keys: 10 },
  { size: 'issue target', likes: 10_000, follows: 2_000, followers: 2_000, comments: 1_000, keys: 50 },
];
const ERASURE_CAP_MS = 20 * 60_000;
/** Rounds of others' calls (a like, a comment, a follow or unfollow each) at the start of the erasure. */
const OTHER_ROUNDS = 8;

const as = (a: Pick<Account, 'openid' | 'token'>) => ({ openid: a.openid, token: a.token });
const get = async <T>(key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: tableNames.hub, Key: key, ConsistentRead: true }))).Item as T | undefined;

/**
 * The accounts the victim follows and that follow it: written as sign-up writes them (bench/seed.ts),
 * each with a login token; the follows themselves go through follow_user.
 */
async function people(prefix: string, n: number): Promise<Account[]> {
  const openids = await seedAccounts(prefix, n);
  return Promise.all(openids.map(async (openid) => ({ openid, token: await jwtFor(openid), phone: '' })));
}

/**
 * The counters of `vids` and `accounts` as stored, and the facts they count (like, comment, follow
 * items) recounted, from one Scan (bench only). The bench catalog's videos start with counts of their
 * own (a popularity), so exactness is checked on the changes: between two snapshots, each stored
 * count must move exactly as its recount does.
 */
async function countsSnapshot(vids: Set<string>, accounts: Set<string>): Promise<Map<string, { stored: number; recount: number }>> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new ScanCommand({ TableName: tableNames.hub, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    start = out.LastEvaluatedKey;
  } while (start);
  const counts = new Map<string, { stored: number; recount: number }>();
  const at = (k: string) => counts.get(k) ?? counts.set(k, { stored: 0, recount: 0 }).get(k)!;
  for (const item of items) {
    const openid = String(item.pk).slice('ACCOUNT#'.length);
    if (item.entity === 'like' && vids.has(String(item.vid))) at(`${String(item.vid)} like_count`).recount++;
    if (item.entity === 'comment' && vids.has(String(item.vid))) at(`${String(item.vid)} comment_count`).recount++;
    if (String(item.sk).startsWith('FOLLOWS#') && accounts.has(openid)) at(`${openid} follow_count`).recount++;
    if (String(item.sk).startsWith('FOLLOWER#') && accounts.has(openid)) at(`${openid} follower_count`).recount++;
    if (item.entity === 'video' && vids.has(String(item.vid))) {
      at(`${String(item.vid)} like_count`).stored = Number(item.like_count ?? 0);
      at(`${String(item.vid)} comment_count`).stored = Number(item.comment_count ?? 0);
    }
    if (item.entity === 'account' && accounts.has(String(item.openid))) {
      at(`${String(item.openid)} follow_count`).stored = Number(item.follow_count ?? 0);
      at(`${String(item.openid)} follower_count`).stored = Number(item.follower_count ?? 0);
    }
  }
  return counts;
}

function exactChanges(before: Map<string, { stored: number; recount: number }>, after: Map<string, { stored: number; recount: number }>): { exact: boolean; note: string } {
  const wrong: string[] = [];
  for (const [name, now] of after) {
    const was = before.get(name) ?? { stored: 0, recount: 0 };
    if (now.stored - was.stored !== now.recount - was.recount) wrong.push(`${name} moved ${now.stored - was.stored}, its facts ${now.recount - was.recount}`);
  }
  return { exact: wrong.length === 0, note: wrong.length === 0 ? `${after.size} counts moved exactly as their facts` : `off: ${wrong.slice(0, 3).join(', ')} (${wrong.length})` };
}

async function oneSize(spec: (typeof SIZES)[number], editor: Account, crowd: Account[], settle: () => Promise<void>): Promise<DeletionRow> {
  const t0 = performance.now();
  const victim = await signUp();
  const vids = await importCatalog(editor.openid, 0, spec.likes, { prefix: `del${spec.size.replace(/\W/g, '')}`, lean: true });
  await inParallel(vids, 8, async (vid) => {
    await mustSucceed(hubRequest('like', { ...as(victim), vid }));
  });
  const tag = spec.size.replace(/\W/g, '');
  const followees = await people(`dfe${tag}`, spec.follows);
  const followers = await people(`dfr${tag}`, spec.followers);
  await inParallel(followees, 8, async (f) => {
    await mustSucceed(hubRequest('follow_user', { ...as(victim), follow_user: f.openid }));
  });
  await inParallel(followers, 8, async (f) => {
    await mustSucceed(hubRequest('follow_user', { ...as(f), follow_user: victim.openid }));
  });
  await inParallel(
    Array.from({ length: spec.comments }, (_, i) => i),
    8,
    async (i) => {
      await mustSucceed(hubRequest('comment_set', { ...as(victim), vid: vids[i % vids.length]!, content: `Comment ${i} on the booth` }));
    },
  );
  for (let i = 0; i < spec.keys; i++) await createKey(victim.openid, { name: `key ${i}` });
  const buildSeconds = Math.round((performance.now() - t0) / 100) / 10;
  await settle();
  const watched = { vids: new Set(vids), accounts: new Set([...followees, ...followers, ...crowd].map((a) => a.openid)) };
  const before = await countsSnapshot(watched.vids, watched.accounts);

  const { result, requests } = await recordDb(async () => {
    const s = performance.now();
    const res = await invoke({ method: 'DELETE', path: '/api/v1/me?confirm=delete', headers: bearer(victim.token) });
    return { res, ms: Math.round(performance.now() - s) };
  });
  if (result.res.status !== 202) throw new Error(`delete: ${result.res.status} ${JSON.stringify(result.res.body)}`);
  const requestCost = costOf(requests);
  const id = (result.res.body.data as { deletion: { id: string } }).deletion.id;
  const answered = performance.now();

  // The erasure runs in the stream poller meanwhile; its requests are the function's client's.
  let concurrent = 0;
  let failed = 0;
  let polls = 0;
  const others = crowd.slice(0, 4);
  const erasure = await recordDb(async () => {
    let erasedMs = -1;
    let round = 0;
    while (performance.now() - answered < ERASURE_CAP_MS) {
      // Others act on the same videos and accounts while it runs (the first OTHER_ROUNDS rounds).
      if (round < OTHER_ROUNDS) {
        const actor = others[round % others.length]!;
        const vid = vids[(round * 7) % vids.length]!;
        const calls = [
          invoke(hubRequest('like', { ...as(actor), vid })),
          invoke(hubRequest('comment_set', { ...as(actor), vid, content: `During the erasure ${round}` })),
          invoke(hubRequest(round % 2 === 0 ? 'follow_user' : 'unfollow_user', { ...as(actor), follow_user: followees[round % followees.length]!.openid })),
        ];
        for (const r of await Promise.all(calls)) {
          concurrent++;
          if (r.status !== 200) failed++;
        }
      }
      round++;
      polls++;
      const record = await get<{ state: string }>(deletionKeys.deletion(id));
      if (record?.state === 'erased') {
        erasedMs = Math.round(performance.now() - answered);
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return erasedMs;
  });
  // The log holds the poller's erasure runs, the polls of the record, and the others' calls (the
  // record's polls and those calls are a few dozen requests: see the row's note).
  const erasureCost = costOf(erasure.requests);
  const profile = await get<Record<string, unknown>>(accountKeys.account(victim.openid));
  const leftInPartition = await db.send(
    new QueryCommand({ TableName: tableNames.hub, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': accountKeys.account(victim.openid).pk }, Select: 'COUNT', ConsistentRead: true }),
  );
  // Counts are exact once the stream has applied what the erasure removed (the likes' counters).
  const convergedFrom = performance.now();
  await settle();
  const convergedMs = Math.round(performance.now() - convergedFrom);
  const counts = exactChanges(before, await countsSnapshot(watched.vids, watched.accounts));
  return {
    size: spec.size,
    likes: spec.likes,
    follows: spec.follows,
    followers: spec.followers,
    comments: spec.comments,
    keys: spec.keys,
    buildSeconds,
    request: { requests: requestCost.requests, wcu: requestCost.wcu, ms: result.ms },
    erasedMs: erasure.result,
    convergedMs,
    erasure: { requests: erasureCost.requests, reads: erasureCost.reads, writes: erasureCost.writes, rcu: Math.round(erasureCost.rcu), wcu: Math.round(erasureCost.wcu) },
    concurrent: { calls: concurrent, failed },
    exact: counts.exact && profile?.entity === 'deleted_account',
    note: `${counts.note}; ${leftInPartition.Count ?? 0} items left in the partition (the tombstone and the deletion's events); ${polls} polls of the record in the window`,
  };
}

export async function deletionSection(options: { quick: boolean; settle: () => Promise<void> }): Promise<DeletionResult> {
  // ADMIN_PHONES (bench/environment.ts) makes this account an admin: it owns the imported videos.
  const editor = await signUp('+8613800138000');
  const crowd = await people('dcrowd', 4);
  const rows: DeletionRow[] = [];
  for (const spec of options.quick ? SIZES.slice(0, 1) : SIZES) {
    console.log(`  building the ${spec.size} account (${spec.likes} likes, ${spec.follows}/${spec.followers} follows, ${spec.comments} comments, ${spec.keys} keys)...`);
    rows.push(await oneSize(spec, editor, crowd, options.settle));
  }
  printTable(
    'Account deletion by size: DELETE /api/v1/me, then the erasure (stream poller running) while others act',
    ['size', 'likes', 'follows/followers', 'comments', 'keys', 'build s', 'DELETE /me req', 'WCU', 'ms', 'erased after ms', 'counts exact after ms', 'erasure req (R/W)', 'RCU', 'WCU', 'others calls (failed)', 'exact', 'note'],
    rows.map((r) => [
      r.size,
      r.likes,
      `${r.follows}/${r.followers}`,
      r.comments,
      r.keys,
      r.buildSeconds,
      r.request.requests,
      r.request.wcu,
      r.request.ms,
      r.erasedMs,
      r.convergedMs,
      `${r.erasure.requests} (${r.erasure.reads}/${r.erasure.writes})`,
      r.erasure.rcu,
      r.erasure.wcu,
      `${r.concurrent.calls} (${r.concurrent.failed})`,
      r.exact ? 'yes' : 'NO',
      r.note,
    ]),
  );
  return { rows };
}
