/**
 * Ranking metrics of the feed's offline evaluation, pure so that unit tests can check them against
 * hand-computed cases and the random baseline against its analytic expectation.
 *
 * Per user: `list` is the answer (video indexes in order), `relevant` the held-out likes, `topics`
 * the user's planted favourite topics. Averages are over users.
 */
export interface UserCase {
  list: number[];
  relevant: number[];
  favourites: number[];
  liked: number[];
  disliked: number[];
}

export interface Catalog {
  topicOf: (video: number) => number;
  authorOf: (video: number) => number;
  size: number;
}

export interface SystemMetrics {
  users: number;
  hr: number;
  recall: number;
  ndcg: number;
  topicPrecision: number;
  coverage: number;
  dislikedReturned: number;
  likedReturned: number;
  maxPerAuthor: number;
  meanLength: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

export const hit = (list: number[], relevant: number[], k = 10) => list.slice(0, k).some((v) => relevant.includes(v));

export function recall(list: number[], relevant: number[], k = 10): number {
  if (relevant.length === 0) return 0;
  return list.slice(0, k).filter((v) => relevant.includes(v)).length / relevant.length;
}

/** Binary-relevance NDCG@k: DCG = sum of 1/log2(rank + 1) over the hits; IDCG = the best possible. */
export function ndcg(list: number[], relevant: number[], k = 10): number {
  let dcg = 0;
  list.slice(0, k).forEach((v, i) => {
    if (relevant.includes(v)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(k, relevant.length); i++) idcg += 1 / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Share of the answer in the given topics (an empty answer counts 0). */
export function topicPrecision(list: number[], topics: number[], topicOf: (video: number) => number, k = 10): number {
  const top = list.slice(0, k);
  return top.length ? top.filter((v) => topics.includes(topicOf(v))).length / top.length : 0;
}

export function maxPerAuthor(list: number[], authorOf: (video: number) => number): number {
  const counts = new Map<number, number>();
  for (const v of list) counts.set(authorOf(v), (counts.get(authorOf(v)) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

export function evaluateSystem(cases: UserCase[], catalog: Catalog, k = 10): SystemMetrics {
  const shown = new Set<number>();
  for (const c of cases) for (const v of c.list.slice(0, k)) shown.add(v);
  return {
    users: cases.length,
    hr: mean(cases.map((c) => (hit(c.list, c.relevant, k) ? 1 : 0))),
    recall: mean(cases.map((c) => recall(c.list, c.relevant, k))),
    ndcg: mean(cases.map((c) => ndcg(c.list, c.relevant, k))),
    topicPrecision: mean(cases.map((c) => topicPrecision(c.list, c.favourites, catalog.topicOf, k))),
    coverage: shown.size / catalog.size,
    dislikedReturned: cases.reduce((s, c) => s + c.list.filter((v) => c.disliked.includes(v)).length, 0),
    likedReturned: cases.reduce((s, c) => s + c.list.filter((v) => c.liked.includes(v)).length, 0),
    maxPerAuthor: Math.max(0, ...cases.map((c) => maxPerAuthor(c.list.slice(0, k), catalog.authorOf))),
    meanLength: mean(cases.map((c) => Math.min(k, c.list.length))),
  };
}

/** ln C(n, k) */
function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return -Infinity;
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * What a uniformly random answer of k videos drawn from `eligible` scores in expectation, for one
 * user: HR = 1 - C(n - h, k) / C(n, k), recall = k / n, NDCG = (sum over ranks of h / n / log2(rank
 * + 1)) / IDCG, topic precision = on-topic share of the eligible videos.
 */
export function randomExpectation(eligible: number, relevant: number, onTopic: number, k = 10) {
  const n = eligible;
  const m = Math.min(k, n);
  const hr = relevant > 0 && n > 0 ? 1 - Math.exp(logChoose(n - relevant, m) - logChoose(n, m)) : 0;
  let dcg = 0;
  for (let i = 0; i < m; i++) dcg += relevant / n / Math.log2(i + 2);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, relevant); i++) idcg += 1 / Math.log2(i + 2);
  return {
    hr,
    recall: relevant > 0 ? m / n : 0,
    ndcg: idcg > 0 ? dcg / idcg : 0,
    topicPrecision: n > 0 ? onTopic / n : 0,
  };
}

export { mean };

/** `value / reference`, or NaN when the reference is 0 (no ratio to report). */
export const ratio = (value: number, reference: number) => (reference > 0 ? value / reference : Number.NaN);

/** A system's HR@10, NDCG@10 and topic precision@10 as shares of a reference system's (the capped oracle's). */
export function ratiosTo(m: SystemMetrics, reference: SystemMetrics) {
  return { hr: ratio(m.hr, reference.hr), ndcg: ratio(m.ndcg, reference.ndcg), topicPrecision: ratio(m.topicPrecision, reference.topicPrecision) };
}

/** The metric-by-metric mean of several systems' figures (e.g. one system over the worlds); the worst for the per-author maximum. */
export function meanMetrics(runs: SystemMetrics[]): SystemMetrics {
  const avg = (key: keyof SystemMetrics) => mean(runs.map((r) => r[key]));
  return {
    users: runs.reduce((s, r) => s + r.users, 0),
    hr: avg('hr'),
    recall: avg('recall'),
    ndcg: avg('ndcg'),
    topicPrecision: avg('topicPrecision'),
    coverage: avg('coverage'),
    dislikedReturned: avg('dislikedReturned'),
    likedReturned: avg('likedReturned'),
    maxPerAuthor: Math.max(0, ...runs.map((r) => r.maxPerAuthor)),
    meanLength: avg('meanLength'),
  };
}
