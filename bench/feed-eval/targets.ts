import { meanMetrics, ratio, type SystemMetrics } from './metrics.js';
import type { WorldSpec } from './worlds.js';

export type SystemKey = 'feed' | 'popularity' | 'newest' | 'popularityLocal' | 'itemKnn' | 'random' | 'oracle' | 'oracleCapped';

interface Spread {
  max: number;
  mean: number;
}

/** What one world's child process reports (world-child.ts). Fields added since the first generation are optional, so earlier files still read. */
export interface WorldResult {
  name: string;
  spec: WorldSpec;
  stats: Record<string, unknown>;
  model?: { afterBuild: Record<string, unknown>; afterFreshness: Record<string, unknown> };
  systems: Record<Exclude<SystemKey, 'popularityLocal' | 'itemKnn'>, SystemMetrics> & Partial<Record<'popularityLocal' | 'itemKnn', SystemMetrics>>;
  randomExpected: { hr: number; recall: number; ndcg: number; topicPrecision: number };
  moreLikeThis: { calls: number; topicPrecision: number; oracleCapped?: number };
  followFreshness: { pairs: number; hits: number; rate: number; missesWithAuthorCapFull: number };
  /** rec calls (the first pages and the follow-freshness refreshes). */
  requests: Spread;
  wcu?: Spread;
  /** Every get_next_list of the evaluation: rec, hot, new and "more like this". */
  allModes?: { requests: Spread; wcu: Spread };
}

export interface ControlledResult {
  perTopic: { topic: string; inTopic: number; followed: boolean }[];
  min: number;
  mean: number;
  chance: number;
  followFreshness: number;
  model?: { refreshes: number; first?: Record<string, unknown>; last?: Record<string, unknown> };
  requests?: Spread;
  wcu?: Spread;
}

export interface Target {
  name: string;
  world: string;
  value: number;
  goal: string;
  met: boolean;
}

export interface EvalResult {
  /** `rescored`: when and by which code the saved figures were scored again (`--render`). */
  meta: { date: string; commit?: string; label?: string; quick: boolean; seedOffset?: number; seconds: number; rescored?: { date: string; commit: string } };
  worlds: WorldResult[];
  controlled: ControlledResult;
  randomCheck: { ok: boolean; tolerance: number; rows: { world: string; metric: string; measured: number; expected: number; ok: boolean }[] };
  targets: Target[];
}

/** The figures of several worlds averaged (systems metric by metric; requests and write units: the worst), reported as the world "mean". */
export function meanOverWorlds(worlds: WorldResult[]) {
  const keys = Object.keys(worlds[0]?.systems ?? {}).filter((k) => worlds.every((w) => w.systems[k as SystemKey])) as SystemKey[];
  const avg = (f: (w: WorldResult) => number) => worlds.reduce((s, w) => s + f(w), 0) / Math.max(1, worlds.length);
  return {
    systems: Object.fromEntries(keys.map((k) => [k, meanMetrics(worlds.map((w) => w.systems[k]!))])) as Partial<Record<SystemKey, SystemMetrics>>,
    followFreshness: avg((w) => w.followFreshness.rate),
    moreLikeThis: avg((w) => w.moreLikeThis.topicPrecision),
    requests: { max: Math.max(0, ...worlds.map((w) => w.requests.max)), mean: avg((w) => w.requests.mean) },
    wcu: { max: Math.max(0, ...worlds.map((w) => w.wcu?.max ?? 0)), mean: avg((w) => w.wcu?.mean ?? 0) },
  };
}

/** The world whose topics are in no tag ("co-liking"): there the feed must match local item-kNN. */
export const isCoLikingWorld = (spec: WorldSpec) => spec.tagging === 'genres';

/** The measured random baseline must match its analytic expectation: a check of the metric code. */
export const RANDOM_TOLERANCE = 0.02;

export function checkRandom(worlds: WorldResult[]): EvalResult['randomCheck'] {
  const rows = worlds.flatMap((w) =>
    (['hr', 'recall', 'ndcg', 'topicPrecision'] as const).map((metric) => {
      const measured = w.systems.random[metric];
      const expected = w.randomExpected[metric];
      return { world: w.name, metric, measured, expected, ok: Math.abs(measured - expected) <= RANDOM_TOLERANCE };
    }),
  );
  return { ok: rows.every((r) => r.ok), tolerance: RANDOM_TOLERANCE, rows };
}

/**
 * The targets (docs/feed.md, "Offline evaluation"), for every world and on the mean over the worlds,
 * first page of 10: ratios to the capped oracle, to local popularity and (topics in no tag) to local
 * item-kNN; follow freshness; nothing disliked or already liked; the author cap; the request budget
 * and write units of every feed call.
 */
/** `value >= goal`, up to rounding: 0.3 is 3 times 0.1 though 0.3 / 0.1 computes as 2.9999999999999996. */
export const atLeast = (value: number, goal: number) => value >= goal - 1e-9;

export function evaluateTargets(result: Pick<EvalResult, 'worlds' | 'controlled'>): Target[] {
  const targets: Target[] = [];
  const add = (name: string, world: string, value: number, goal: string, met: boolean) => targets.push({ name, world, value, goal, met });
  const quality = (world: string, systems: Partial<Record<SystemKey, SystemMetrics>>, followFreshness: number) => {
    const f = systems.feed!;
    const capped = systems.oracleCapped!;
    const popular = systems.popularityLocal ?? systems.popularity!;
    const tp = ratio(f.topicPrecision, capped.topicPrecision);
    const hr = ratio(f.hr, capped.hr);
    const ndcg = ratio(f.ndcg, capped.ndcg);
    add('topic precision@10 / capped oracle', world, tp, '>= 0.9', atLeast(tp, 0.9));
    add('HR@10 / capped oracle', world, hr, '>= 0.85', atLeast(hr, 0.85));
    add('HR@10 / popularity HR@10', world, ratio(f.hr, popular.hr), '>= 3', atLeast(f.hr, 3 * popular.hr));
    add('NDCG@10 / capped oracle', world, ndcg, '>= 0.85', atLeast(ndcg, 0.85));
    add('follow freshness', world, followFreshness, '>= 0.9', atLeast(followFreshness, 0.9));
  };
  for (const w of result.worlds) {
    const f = w.systems.feed;
    quality(w.name, w.systems, w.followFreshness.rate);
    if (isCoLikingWorld(w.spec) && w.systems.itemKnn) add('HR@10 / item-kNN HR@10', w.name, ratio(f.hr, w.systems.itemKnn.hr), '>= 1', atLeast(f.hr, w.systems.itemKnn.hr));
    add('disliked videos returned', w.name, f.dislikedReturned, '0', f.dislikedReturned === 0);
    add('already-liked videos returned', w.name, f.likedReturned, '0', f.likedReturned === 0);
    add('most videos of one author', w.name, f.maxPerAuthor, '<= 2', f.maxPerAuthor <= 2);
    const requests = w.allModes?.requests.max ?? w.requests.max;
    add('DynamoDB requests per feed call (max, every mode)', w.name, requests, '<= 8', requests <= 8);
    const wcu = w.allModes?.wcu.max ?? w.wcu?.max ?? Number.NaN;
    add('write units per feed call (max, every mode)', w.name, wcu, '<= 4', wcu <= 4);
  }
  if (result.worlds.length > 1) {
    const m = meanOverWorlds(result.worlds);
    quality('mean', m.systems, m.followFreshness);
  }
  const c = result.controlled;
  add('controlled: videos of the liked topic in the next 10 (fewest over 10 users)', 'controlled', c.min, '>= 6', c.min >= 6);
  add('controlled: follow freshness', 'controlled', c.followFreshness, '>= 0.9', atLeast(c.followFreshness, 0.9));
  return targets;
}
