import type { SystemMetrics } from './metrics.js';
import type { WorldSpec } from './worlds.js';

/** What one world's child process reports (world-child.ts). */
export interface WorldResult {
  name: string;
  spec: WorldSpec;
  stats: Record<string, unknown>;
  systems: Record<'feed' | 'popularity' | 'newest' | 'random' | 'oracle' | 'oracleCapped', SystemMetrics>;
  randomExpected: { hr: number; recall: number; ndcg: number; topicPrecision: number };
  moreLikeThis: { calls: number; topicPrecision: number; oracleCapped?: number };
  followFreshness: { pairs: number; hits: number; rate: number; missesWithAuthorCapFull: number };
  requests: { max: number; mean: number };
}

export interface ControlledResult {
  perTopic: { topic: string; inTopic: number; followed: boolean }[];
  min: number;
  mean: number;
  chance: number;
  followFreshness: number;
}

export interface Target {
  name: string;
  world: string;
  value: number;
  goal: string;
  met: boolean;
}

export interface EvalResult {
  meta: { date: string; commit?: string; quick: boolean; seedOffset?: number; seconds: number };
  worlds: WorldResult[];
  controlled: ControlledResult;
  randomCheck: { ok: boolean; tolerance: number; rows: { world: string; metric: string; measured: number; expected: number; ok: boolean }[] };
  targets: Target[];
}

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

/** The targets (#9 "Targets"), for every world, first page of 10. */
export function evaluateTargets(result: Pick<EvalResult, 'worlds' | 'controlled'>): Target[] {
  const targets: Target[] = [];
  const add = (name: string, world: string, value: number, goal: string, met: boolean) => targets.push({ name, world, value, goal, met });
  for (const w of result.worlds) {
    const f = w.systems.feed;
    add('topic precision@10', w.name, f.topicPrecision, '>= 0.6', f.topicPrecision >= 0.6);
    add('HR@10', w.name, f.hr, '>= 0.75', f.hr >= 0.75);
    add('HR@10 / popularity HR@10', w.name, w.systems.popularity.hr > 0 ? f.hr / w.systems.popularity.hr : Infinity, '>= 3', f.hr >= 3 * w.systems.popularity.hr);
    add('NDCG@10', w.name, f.ndcg, '>= 0.4', f.ndcg >= 0.4);
    add('follow freshness', w.name, w.followFreshness.rate, '>= 0.9', w.followFreshness.rate >= 0.9);
    add('more like this: topic precision', w.name, w.moreLikeThis.topicPrecision, '>= 0.7', w.moreLikeThis.topicPrecision >= 0.7);
    add('disliked videos returned', w.name, f.dislikedReturned, '0', f.dislikedReturned === 0);
    add('most videos of one author', w.name, f.maxPerAuthor, '<= 2', f.maxPerAuthor <= 2);
    add('coverage across users', w.name, f.coverage, '>= 0.4', f.coverage >= 0.4);
    add('DynamoDB requests per call (max)', w.name, w.requests.max, '<= 8', w.requests.max <= 8);
  }
  const c = result.controlled;
  add('controlled: videos of the liked topic in the next 10 (fewest over 10 users)', 'controlled', c.min, '>= 6', c.min >= 6);
  add('controlled: follow freshness', 'controlled', c.followFreshness, '>= 0.9', c.followFreshness >= 0.9);
  return targets;
}
