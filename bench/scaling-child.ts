/**
 * The scaling tables (run by sections/scaling.ts in a process of its own, on fresh tables):
 * get_next_list against catalog size and history length, comment_get page 1 against a far page,
 * get_follower at offset 0 against a far offset, verify with few against many keys.
 */
import { writeFileSync } from 'node:fs';
import { dropSharedHeads } from '../lib/entities/catalog/shared-heads.js';
import { clock } from '../lib/platform/clock.js';
import { MAX_VIEWED } from '../lib/transport/hub/get-next-list.js';
import { createKey } from '../lib/features/keys/key-service.js';
import { importCatalog } from './catalog.js';
import { mustSucceed, signUp, signUpMany, type Account } from './fixtures.js';
import { printTable } from './format.js';
import { hubRequest, invoke, type BenchRequest } from './invoke.js';
import { costOf, installRecorder, recordDb } from './recorder.js';
import { seedComments, seedFollowers, seedKeys } from './seed.js';
import { mode, round, summarize } from './stats.js';
import type { ScalingResult, ScalingRow } from './sections/scaling.js';

const quick = process.env.BENCH_QUICK === '1';
const SIZES = quick
  ? { catalog: [500, 2_000, 5_000], history: [0, 100, 2_000], comments: 1_010, farPage: 50, followers: 1_020, farOffset: 1_000, keys: [10, 2_000] }
  : { catalog: [1_000, 10_000, 100_000], history: [0, 100, 10_000], comments: 10_010, farPage: 500, followers: 10_020, farOffset: 10_000, keys: [10, 100_000] };
const COST_CALLS = quick ? 3 : 5;
const LATENCY_CALLS = quick ? 10 : 50;
const as = (a: Account) => ({ openid: a.openid, token: a.token });
const short = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));

installRecorder();
const seedSeconds: Record<string, number> = {};
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  seedSeconds[name] = round((performance.now() - t0) / 1000, 1);
  console.log(`  seeded ${name} in ${seedSeconds[name]} s`);
  return out;
}

/** Cost (mode and max over a few calls after a warm-up) and latency (unrecorded calls) of one request. */
async function measure(label: string, request: () => BenchRequest, expect = 200): Promise<ScalingRow> {
  try {
    const call = async () => {
      const res = await invoke(request());
      if (res.status !== expect) throw new Error(`${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    };
    await call();
    const samples = [];
    // Each measured call as a container's first: the feed's shared heads read (docs/feed.md, "The shared heads' cache").
    for (let i = 0; i < COST_CALLS; i++) samples.push((await recordDb(() => (dropSharedHeads(), call()))).requests);
    const totals = samples.map((s) => s.length);
    const typical = samples.find((s) => s.length === mode(totals))!;
    const figures = costOf(typical);
    const times: number[] = [];
    for (let i = 0; i < LATENCY_CALLS; i++) {
      const t0 = performance.now();
      await call();
      times.push(performance.now() - t0);
    }
    const t = summarize(times);
    return { label, requests: mode(totals), requestsMax: Math.max(...totals), rcu: round(figures.rcu, 1), wcu: round(figures.wcu, 1), p50: round(t.p50), p99: round(t.p99), commands: figures.commands };
  } catch (error) {
    return { label, requests: NaN, requestsMax: NaN, rcu: NaN, wcu: NaN, p50: NaN, p99: NaN, error: (error as Error).message };
  }
}

function show(title: string, rows: ScalingRow[]) {
  printTable(
    title,
    ['case', 'requests', 'max', 'RCU', 'WCU', 'p50 ms', 'p99 ms', 'requests sent'],
    rows.map((r) => [r.label, r.skipped ? 'n/a' : r.error ? 'ERROR' : r.requests, r.requestsMax, r.rcu, r.wcu, r.p50, r.p99, r.skipped ?? (r.error ? r.error.slice(0, 100) : r.commands)]),
  );
}

const result: ScalingResult = { sizes: { ...SIZES, comments: [SIZES.comments], followers: [SIZES.followers], farPage: [SIZES.farPage], farOffset: [SIZES.farOffset] } as unknown as Record<string, number[]>, seedSeconds };

// verify: 10 keys, then many ------------------------------------------------------------------------
{
  const rows: ScalingRow[] = [];
  const owner = 'scale-key-owner';
  const created = [];
  for (let i = 0; i < SIZES.keys[0]!; i++) created.push(await createKey(owner, { name: `k${i}` }));
  const key = created[0]!.api_key;
  const verify = () => ({ method: 'GET' as const, path: `/api/v1/api-keys/verify?key=${key}` });
  await mustSucceed(verify());
  rows.push(await measure(`${short(SIZES.keys[0]!)} keys in the table`, verify));
  await timed(`${short(SIZES.keys[1]!)} keys`, () => seedKeys(SIZES.keys[1]! / 100, 100, 10_000_000));
  clock.advance(61_000); // last_used_at due once, then recent again, as in the first row
  await mustSucceed(verify());
  rows.push(await measure(`${short(SIZES.keys[1]! + SIZES.keys[0]!)} keys in the table`, verify));
  show('Scaling: verify against the number of keys in the table', rows);
  result.verifyKeys = rows;
}

// get_follower offsets ---------------------------------------------------------------------------------
const star = await signUp();
{
  await timed(`${short(SIZES.followers)} followers`, () => seedFollowers(star.openid, SIZES.followers));
  const offsets = [0, Math.round(SIZES.farOffset / 2), SIZES.farOffset];
  const rows: ScalingRow[] = [];
  for (const offset of offsets) rows.push(await measure(`offset ${offset}`, () => hubRequest('get_follower', { ...as(star), watch_list: '', offset, d: '' })));
  show(`Scaling: get_follower of an account with ${SIZES.followers} followers, by offset`, rows);
  result.followerOffsets = rows;
}

// Catalog authors and the feed users -------------------------------------------------------------------
const authors = await signUpMany(50);
const [reader, historyMid, historyBig] = [await signUp(), await signUp(), await signUp()];
const authorIds = authors.map((a) => a.openid);

// comment_get pages ------------------------------------------------------------------------------------
{
  const [vid] = await importCatalog(authorIds, 0, 1, { prefix: 'cv' });
  await timed(`${short(SIZES.comments)} comments`, () =>
    seedComments(
      vid!,
      SIZES.comments,
      authors.map((a) => ({ openid: a.openid, nickname: `author ${a.openid.slice(-4)}` })),
    ),
  );
  const pages = [1, Math.round(SIZES.farPage / 2), SIZES.farPage];
  const rows: ScalingRow[] = [];
  for (const page of pages) rows.push(await measure(`page ${page}`, () => hubRequest('comment_get', { ...as(reader), vid: vid!, page, d: '' })));
  show(`Scaling: comment_get on a video with ${SIZES.comments} comments, by page`, rows);
  result.commentPages = rows;
}

// get_next_list: catalog size x history ----------------------------------------------------------------
{
  const rows: ScalingRow[] = [];
  const users = [
    { account: reader, history: SIZES.history[0]! },
    { account: historyMid, history: SIZES.history[1]! },
    { account: historyBig, history: SIZES.history[2]! },
  ];
  const seeded = new Map<Account, number>();
  let catalog = 0;
  const vids: string[] = [];
  for (const size of SIZES.catalog) {
    const added = await timed(`catalog to ${short(size)} videos`, () => importCatalog(authorIds, catalog, size - catalog, { prefix: 'fv', chunk: 10_000, lean: true }));
    vids.push(...added);
    catalog = size;
    for (const user of users) {
      if (user.history > catalog) continue;
      if ((seeded.get(user.account) ?? 0) < user.history) {
        // History the way clients make it: get_next_list reporting the most viewed vids one call may.
        await timed(`history of ${short(user.history)}`, async () => {
          for (let from = seeded.get(user.account) ?? 0; from < user.history; from += MAX_VIEWED) {
            await mustSucceed(hubRequest('get_next_list', { ...as(user.account), view_list: vids.slice(from, Math.min(from + MAX_VIEWED, user.history)).join(',') }));
          }
        });
        seeded.set(user.account, user.history);
      }
    }
    rows.push(await measure(`catalog ${short(size)}, no token`, () => hubRequest('get_next_list', { openid: 'bench-anonymous' })));
    for (const user of users) {
      if (user.history > catalog) {
        rows.push({ label: `catalog ${short(size)}, history ${short(user.history)}`, requests: NaN, requestsMax: NaN, rcu: NaN, wcu: NaN, p50: NaN, p99: NaN, skipped: 'n/a: history longer than the catalog' });
        continue;
      }
      rows.push(await measure(`catalog ${short(size)}, history ${short(user.history)}`, () => hubRequest('get_next_list', as(user.account))));
    }
  }
  show('Scaling: get_next_list (signed in, order=rec) by catalog size and history length', rows);
  result.feed = rows;
}

writeFileSync(process.env.BENCH_RESULT_FILE!, JSON.stringify(result));
process.exit(0);
