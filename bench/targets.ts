import { formatTable } from './format.js';
import { BARE_GET_ITEM, BARE_KEY_UPDATE, BARE_SESSION_READ } from './reference-rows.js';
import type { ColdStartResult } from './sections/coldstart.js';
import type { CostResult } from './sections/cost.js';
import type { LatencyRow } from './sections/latency.js';
import type { HotspotsResult } from './sections/hotspots.js';
import type { HotItemsResult } from './sections/hot-items.js';
import type { KeyLimitResult } from './sections/key-limit.js';
import type { DeletionResult } from './sections/deletion.js';
import type { PostingsResult } from './sections/postings.js';
import type { ScalingResult } from './sections/scaling.js';

export interface TargetCheck {
  target: string;
  measured: string;
  status: 'met' | 'missed' | 'not measured';
}

/** Cold starts (docs/performance.md, "Cold starts"): the import of every function's bundle, and its size. */
const COLD_IMPORT_MS = 100;
/** A function's import over the reference's (bench/reference/get-item.ts), median of 10 each, alternated. */
const COLD_REFERENCE_RATIO = 1.3;
/** The authorizer's warm p50 and p99 over a bare consistent GetItem's (all of its cost is the one read). */
const AUTH_P50_RATIO = 1.2;
const AUTH_P99_RATIO = 1.5;
const COLD_BUNDLE_BYTES = 1024 * 1024;

const fmt = (n: number) => (Number.isFinite(n) ? String(n) : 'n/a');

/** The performance targets of the project, checked against the figures of this run. */
export function evaluateTargets(results: Record<string, unknown>): TargetCheck[] {
  const cost = results.cost as CostResult | undefined;
  const latency = results.latency as { rows: LatencyRow[] } | undefined;
  const cold = results.coldstart as ColdStartResult | undefined;
  const scaling = results.scaling as ScalingResult | undefined;
  const postings = results.postings as PostingsResult | undefined;
  const hot = results.hotitems as HotItemsResult | undefined;
  const checks: TargetCheck[] = [];
  const costRow = (name: string) => cost?.rows.find((r) => r.operation === name && !r.error);
  const limitCheck = (target: string, rows: { name: string; limit: number }[]) => {
    const found = rows.map((r) => ({ ...r, row: costRow(r.name) }));
    if (found.some((f) => !f.row)) return checks.push({ target, measured: 'cost section not run or failed', status: 'not measured' });
    checks.push({
      target,
      measured: found.map((f) => `${f.name}: ${f.row!.requestsMax}`).join('; '),
      status: found.every((f) => f.row!.requestsMax <= f.limit) ? 'met' : 'missed',
    });
  };
  // An access key: one conditional UpdateItem of its hash guard checks it, counts the minute against
  // its limit and records last_used_at when due (docs/api-keys.md, "Per-key rate limit").
  limitCheck('key verification: 1 DynamoDB request (the guard\'s conditional update), when last_used_at is due too', [
    { name: 'verify (last_used_at recent)', limit: 1 },
    { name: 'verify (last_used_at due)', limit: 1 },
  ]);
  limitCheck('authentication (authorizer): JWT 1 request; access key 1, when last_used_at is due too', [
    { name: 'authorizer: JWT', limit: 1 },
    { name: 'authorizer: access key (last_used_at recent)', limit: 1 },
    { name: 'authorizer: access key (last_used_at due)', limit: 1 },
  ]);

  const feedRows = cost?.rows.filter((r) => r.operation.startsWith('get_next_list') && !r.error) ?? [];
  const feedScaling = scaling?.feed?.filter((r) => !r.error && !r.skipped) ?? [];
  const feedTarget = 'get_next_list: at most 8 requests, independent of catalog size and history';
  if (feedRows.length === 0 && feedScaling.length === 0) {
    checks.push({ target: feedTarget, measured: 'get_next_list not measured', status: 'not measured' });
  } else {
    const all = [...feedRows.map((r) => r.requestsMax), ...feedScaling.map((r) => r.requestsMax)];
    // Independent of catalog size: each caller (same history) costs the same at every size.
    const byCaller = new Map<string, number[]>();
    for (const r of feedScaling) {
      const caller = r.label.replace(/^catalog [^,]+, /, '');
      byCaller.set(caller, [...(byCaller.get(caller) ?? []), r.requestsMax]);
    }
    const varying = [...byCaller].filter(([, v]) => Math.max(...v) !== Math.min(...v)).map(([k]) => k);
    // Independent of history length: the longest history costs no more than a short one.
    const withHistory = [...byCaller].filter(([k]) => k.startsWith('history') && k !== 'history 0');
    const growsWithHistory = withHistory.length > 1 && Math.max(...withHistory.at(-1)![1]) > Math.max(...withHistory[0]![1]);
    const worst = feedRows.filter((r) => r.requestsMax > 8).map((r) => `${r.operation.replace('get_next_list ', '')} ${r.requestsMax}`);
    checks.push({
      target: feedTarget,
      measured: [
        `max ${Math.max(...all)} requests over ${all.length} measured variants`,
        worst.length ? `above 8: ${worst.join(', ')}` : '',
        feedScaling.length ? `scaling table ${Math.min(...feedScaling.map((r) => r.requests))}-${Math.max(...feedScaling.map((r) => r.requestsMax))}` : 'scaling not run',
        varying.length ? `count differs between catalog sizes for: ${varying.join(', ')}` : feedScaling.length ? 'same count at every catalog size' : '',
        growsWithHistory ? 'more requests with the longest history' : withHistory.length > 1 ? 'no more requests with the longest history' : '',
      ]
        .filter(Boolean)
        .join('; '),
      // The target is the bound: at most 8 whatever the catalog size and history (the feed adapts
      // within that budget, so the exact count may differ between cases).
      status: Math.max(...all) <= 8 ? 'met' : 'missed',
    });
  }

  // The feed's writes stay small and do not grow with the caller's history (docs/feed.md, "Feed state").
  const feedWcuTarget = 'get_next_list: at most 4 WCU a call, not growing with the caller\'s history';
  if (feedRows.length === 0 && feedScaling.length === 0) {
    checks.push({ target: feedWcuTarget, measured: 'get_next_list not measured', status: 'not measured' });
  } else {
    const wcus = [...feedRows.map((r) => ({ name: r.operation.replace('get_next_list ', ''), wcu: r.wcu })), ...feedScaling.map((r) => ({ name: r.label, wcu: r.wcu }))];
    const worst = wcus.reduce((a, b) => (b.wcu > a.wcu ? b : a));
    const byHistory = feedScaling.filter((r) => /history/.test(r.label));
    const shortest = byHistory.filter((r) => /history 0\b/.test(r.label)).map((r) => r.wcu);
    const longest = byHistory.filter((r) => /history 10k/.test(r.label)).map((r) => r.wcu);
    checks.push({
      target: feedWcuTarget,
      measured: [
        `max ${fmt(worst.wcu)} WCU over ${wcus.length} measured variants (${worst.name})`,
        shortest.length && longest.length ? `history 0: ${fmt(Math.max(...shortest))} WCU, history 10k: ${fmt(Math.max(...longest))} WCU` : 'scaling not run',
      ].join('; '),
      status: worst.wcu <= 4 && (longest.length === 0 || Math.max(...longest) <= Math.max(4, ...shortest)) ? 'met' : 'missed',
    });
  }

  // Page 1 also shows the caller their own held comments (docs/moderation.md, "Filter"): one Query
  // more, whatever the video; every later page costs the same.
  const commentTarget = 'comment_get: the same cost for every page after the first, page 1 at most one request more (the caller\'s held comments)';
  const pages = scaling?.commentPages?.filter((r) => !r.error) ?? [];
  if (pages.length < 2) {
    checks.push({ target: commentTarget, measured: 'scaling section not run', status: 'not measured' });
  } else {
    const [first, ...later] = pages;
    const same = later.every((p) => p.requests === later[0]!.requests && p.rcu === later[0]!.rcu) && first!.requests <= later[0]!.requests + 1;
    checks.push({
      target: commentTarget,
      measured: pages.map((p) => `${p.label}: ${p.requests} req, ${p.rcu} RCU`).join('; '),
      status: same ? 'met' : 'missed',
    });
  }

  const coldTarget = `every function importing in at most ${COLD_IMPORT_MS} ms (median of 10 fresh imports, bundled as deployed), bundle at most 1 MB`;
  if (!cold) {
    checks.push({ target: coldTarget, measured: 'coldstart section not run', status: 'not measured' });
  } else {
    const biggest = [...cold.rows].sort((a, b) => b.bytes - a.bytes)[0];
    const slowest = [...cold.rows].sort((a, b) => b.importMsMedian - a.importMsMedian)[0];
    const over = cold.rows.filter((r) => r.importMsMedian > COLD_IMPORT_MS).map((r) => `${r.function} ${r.importMsMedian} ms`);
    const ok = cold.rows.every((r) => r.bytes <= COLD_BUNDLE_BYTES && r.importMsMedian <= COLD_IMPORT_MS);
    checks.push({
      target: coldTarget,
      measured: [
        `largest ${biggest?.function} ${fmt(Math.round((biggest?.bytes ?? NaN) / 1024))} KB; slowest import ${slowest?.function} ${fmt(slowest?.importMsMedian ?? NaN)} ms (CPU ${fmt(slowest?.importCpuMsMedian ?? NaN)} ms)`,
        over.length ? `over ${COLD_IMPORT_MS} ms: ${over.join(', ')}` : '',
        `median of ${cold.runs}${cold.runs < 10 ? ' (quick run)' : ''}`,
      ]
        .filter(Boolean)
        .join('; '),
      status: ok && cold.runs >= 10 ? 'met' : ok ? 'not measured' : 'missed',
    });
  }

  const referenceTarget = `every function importing within ${COLD_REFERENCE_RATIO}x the reference's median (one GetItem, the same SDK packages, bundled the same way, imported alternately with it) and within ${COLD_IMPORT_MS} ms`;
  if (!cold?.reference || cold.rows.some((r) => r.ratioToReference === undefined)) {
    checks.push({ target: referenceTarget, measured: 'coldstart section not run with the reference', status: 'not measured' });
  } else {
    const over = cold.rows.filter((r) => r.ratioToReference > COLD_REFERENCE_RATIO || r.importMsMedian > COLD_IMPORT_MS);
    const worst = [...cold.rows].sort((a, b) => b.ratioToReference - a.ratioToReference)[0]!;
    checks.push({
      target: referenceTarget,
      measured: [
        `reference ${fmt(cold.reference.msMedian)} ms; worst ${worst.function} ${fmt(worst.ratioToReference)}x (${fmt(worst.importMsMedian)} ms)`,
        `${over.length} of ${cold.rows.length} over${over.length ? `: ${over.map((r) => `${r.function} ${fmt(r.ratioToReference)}x`).join(', ')}` : ''}`,
      ].join('; '),
      status: over.length === 0 && cold.runs >= 10 ? 'met' : over.length === 0 ? 'not measured' : 'missed',
    });
  }

  const bare = latency?.rows.find((r) => r.operation === BARE_GET_ITEM && !r.error);
  const authRows = ['authorizer: JWT', 'authorizer: access key (last_used_at recent)'].map((n) => latency?.rows.find((r) => r.operation === n && !r.error));
  const ratioTarget = `authorizer warm p50 at most ${AUTH_P50_RATIO}x and p99 at most ${AUTH_P99_RATIO}x a bare consistent GetItem's, same DynamoDB Local, same run (a key and a JWT)`;
  if (!bare || authRows.some((r) => !r)) {
    checks.push({ target: ratioTarget, measured: 'latency section not run with the reference', status: 'not measured' });
  } else {
    const ratios = authRows.map((r) => ({ name: r!.operation.replace('authorizer: ', ''), p50: r!.p50 / bare.p50, p99: r!.p99 / bare.p99 }));
    // A key's one request is an UpdateItem: its ratio to that request, sent bare, is the authorizer's own cost.
    const update = latency?.rows.find((r) => r.operation === BARE_KEY_UPDATE && !r.error);
    const keyRow = authRows[1]!;
    // A JWT's one request is a BatchGetItem of two items: the same, sent bare.
    const session = latency?.rows.find((r) => r.operation === BARE_SESSION_READ && !r.error);
    const jwtRow = authRows[0]!;
    const x = (v: number) => `${fmt(Math.round(v * 100) / 100)}x`;
    checks.push({
      target: ratioTarget,
      measured: [
        `bare GetItem p50 ${fmt(bare.p50)} ms, p99 ${fmt(bare.p99)} ms`,
        ...ratios.map((r) => `${r.name}: p50 ${x(r.p50)}, p99 ${x(r.p99)}`),
        ...(update ? [`bare key-use UpdateItem p50 ${fmt(update.p50)} ms, p99 ${fmt(update.p99)} ms; access key to it: p50 ${x(keyRow.p50 / update.p50)}, p99 ${x(keyRow.p99 / update.p99)}`] : []),
        ...(session ? [`bare session BatchGetItem p50 ${fmt(session.p50)} ms, p99 ${fmt(session.p99)} ms; JWT to it: p50 ${x(jwtRow.p50 / session.p50)}, p99 ${x(jwtRow.p99 / session.p99)}`] : []),
      ].join('; '),
      status: ratios.every((r) => r.p50 <= AUTH_P50_RATIO && r.p99 <= AUTH_P99_RATIO) ? 'met' : 'missed',
    });
  }

  const auth = authRows;
  if (auth.some((r) => !r)) {
    checks.push({ target: 'authorizer warm in-process p99 at most 5 ms (DynamoDB Local)', measured: 'latency section not run or failed', status: 'not measured' });
  } else {
    checks.push({
      target: 'authorizer warm in-process p99 at most 5 ms (DynamoDB Local)',
      measured: auth.map((r) => `${r!.operation.replace('authorizer: ', '')}: p99 ${r!.p99} ms`).join('; '),
      status: auth.every((r) => r!.p99 <= 5) ? 'met' : 'missed',
    });
  }
  checks.push(...postingsTargets(postings));
  checks.push(hotspotsTarget(results.hotspots as HotspotsResult | undefined));
  checks.push(...hotItemsTargets(hot, costRow('like (first like)')));
  checks.push(...deletionTargets(results.deletion as DeletionResult | undefined));
  checks.push(...keyLimitTargets(results.keylimit as KeyLimitResult | undefined, costRow('GET /me (JWT)'), costRow('GET /me (access key)')));
  return checks;
}

/** The search index at scale (the postings section): publishing, the size of its items, q. */
function postingsTargets(p: PostingsResult | undefined): TargetCheck[] {
  const targets = [
    'publishing a video: at most 10 DynamoDB requests',
    'search postings: every publish succeeds and no posting item exceeds its bound, whatever the catalog size',
    'get_next_list q: at most 8 requests per call for a gram in every video of a month',
  ];
  if (!p) return targets.map((target) => ({ target, measured: 'postings section not run', status: 'not measured' }));
  const worst = Math.max(...p.publish.samples.map((s) => s.requestsMax));
  return [
    {
      target: targets[0]!,
      measured: `${p.publish.samples.map((s) => `${s.label}: ${s.requests} (max ${s.requestsMax})`).join('; ')}; mean ${p.publish.requestsPerPublishMean} over ${p.videos} publishes (JWT, demo texts with 2-4 tags)`,
      status: worst <= 10 ? 'met' : 'missed',
    },
    {
      target: targets[1]!,
      measured: `${p.videos} publishes in ${p.month}, ${p.publish.failures} failed; largest of ${p.items.postings} posting items ${p.items.largestBytes} bytes (bound ${p.items.boundBytes}); "${p.term}" has ${p.items.termPostings} postings`,
      status: p.publish.failures === 0 && p.items.largestBytes <= p.items.boundBytes ? 'met' : 'missed',
    },
    {
      target: targets[2]!,
      measured: `q=${p.term} over ${p.items.termPostings} postings: ${p.search.calls} calls, ${p.search.requestsPerCallMode} requests usually, at most ${p.search.requestsPerCallMax}; every video once: ${p.search.exactlyOnce}, newest first: ${p.search.newestFirst}`,
      status: p.search.requestsPerCallMax <= 8 && p.search.exactlyOnce && p.search.newestFirst ? 'met' : 'missed',
    },
  ];
}

/** The scaling model (the hotspots section): the busiest partition key at 100x within DynamoDB's per-partition limits. */
function hotspotsTarget(h: HotspotsResult | undefined): TargetCheck {
  const target = 'traffic mix at 100x: no item or partition key above 1,000 WCU/s or 3,000 RCU/s';
  if (!h) return { target, measured: 'hotspots section not run', status: 'not measured' };
  const failures = h.mix.reduce((s, m) => s + m.failures, 0);
  return {
    target,
    measured: `busiest by writes ${h.worstPartitionWcu.key} ${h.worstPartitionWcu.wcuPerSecond} WCU/s; by reads ${h.worstPartitionRcu.key} ${h.worstPartitionRcu.rcuPerSecond} RCU/s; busiest item ${h.worstItemWcu.key} ${h.worstItemWcu.wcuPerSecond} WCU/s${failures ? `; ${failures} sampled calls not as expected` : ''}`,
    status: h.withinLimits && failures === 0 ? 'met' : 'missed',
  };
}

/** Account deletion (docs/accounts.md, "Erasure"): the issue-size account erased within 5 minutes while others act, every count exact. */
function deletionTargets(deletion: DeletionResult | undefined): TargetCheck[] {
  const target = 'account deletion: an account with 10,000 likes, 2,000 follows each way, 1,000 comments and 50 keys erased within 5 minutes of the request while others act, every count exact';
  const large = deletion?.rows.find((r) => r.likes >= 10_000);
  if (!large) return [{ target, measured: deletion ? 'only smaller accounts measured (--quick)' : 'deletion section not run', status: 'not measured' }];
  return [
    {
      target,
      measured: `erased after ${Math.round(large.erasedMs / 100) / 10} s, counts exact ${Math.round(large.convergedMs / 100) / 10} s later; others' calls ${large.concurrent.calls} (${large.concurrent.failed} not 200); exact ${large.exact ? 'yes' : 'no'}`,
      status: large.erasedMs >= 0 && large.erasedMs <= 300_000 && large.exact && large.concurrent.failed === 0 ? 'met' : 'missed',
    },
  ];
}

/** Hot items (docs/performance.md, "Hot items"): no 503, exact counts once converged; and a cheap first like. */
function hotItemsTargets(hot: HotItemsResult | undefined, firstLikeRow: { requestsMax: number; wcu: number } | undefined): TargetCheck[] {
  const hotTarget = 'hot items: 50 comments on one video, 200 likes on one video, 200 likes over one author: no 503, counts exact once converged';
  const likeTarget = 'a first like: at most 6 requests and 12 WCU';
  const checks: TargetCheck[] = [];
  if (!hot) checks.push({ target: hotTarget, measured: 'hotitems section not run', status: 'not measured' });
  else {
    checks.push({
      target: hotTarget,
      measured: hot.cases.map((c) => `${c.name}: ${c.unavailable} x 503, exact ${c.exact ? 'yes' : 'no'}, converged after ${c.convergenceMs} ms`).join('; '),
      status: hot.cases.every((c) => c.unavailable === 0 && c.statuses['200'] === c.calls && c.exact) ? 'met' : 'missed',
    });
  }
  const like = firstLikeRow ? { requests: firstLikeRow.requestsMax, wcu: firstLikeRow.wcu, from: 'cost' } : hot ? { ...hot.firstLike, from: 'hotitems' } : undefined;
  if (!like) checks.push({ target: likeTarget, measured: 'cost and hotitems sections not run', status: 'not measured' });
  else checks.push({ target: likeTarget, measured: `${like.requests} requests, ${like.wcu} WCU (${like.from} section)`, status: like.requests <= 6 && like.wcu <= 12 ? 'met' : 'missed' });
  return checks;
}

/** The per-key limit (docs/api-keys.md, "Per-key rate limit") admits exactly its limit, for at most one extra request per key-authenticated call. */
function keyLimitTargets(
  limits: KeyLimitResult | undefined,
  meJwt: { requestsMax: number } | undefined,
  meKey: { requestsMax: number } | undefined,
): TargetCheck[] {
  const exactTarget = 'per-key rate limit: exactly the limit admitted of a burst within one minute';
  const costTarget = 'per-key rate limit: no extra DynamoDB request per key-authenticated call (GET /me, key vs JWT: the key\'s one guard update against the JWT\'s one session read)';
  const checks: TargetCheck[] = [];
  if (!limits) checks.push({ target: exactTarget, measured: 'keylimit section not run', status: 'not measured' });
  else {
    checks.push({
      target: exactTarget,
      measured: limits.cases.map((c) => `limit ${c.limit}, ${c.calls} calls: ${c.admitted} admitted, ${c.refused} x 429, ${c.other} other`).join('; '),
      status: limits.cases.every((c) => c.exact && c.other === 0) ? 'met' : 'missed',
    });
  }
  // A JWT costs 1 request (the ended-session check); a key 1 (its guard's update, which counts).
  if (!meJwt || !meKey) checks.push({ target: costTarget, measured: 'cost section not run', status: 'not measured' });
  else checks.push({ target: costTarget, measured: `GET /me: JWT ${meJwt.requestsMax}, access key ${meKey.requestsMax}`, status: meKey.requestsMax <= meJwt.requestsMax ? 'met' : 'missed' });
  return checks;
}

export function printTargets(checks: TargetCheck[]): void {
  console.log(`\nTargets\n${formatTable(['target', 'measured', 'status'], checks.map((c) => [c.target, c.measured, c.status]))}`);
}
