/**
 * Baselines computed locally from a world's training interactions (what was actually performed:
 * likes, views, dislikes), pure so that unit tests can check them by hand (docs/feed.md, "Offline
 * evaluation"): the most liked unseen videos, item-kNN over co-likes, EASE and implicit ALS (their
 * hyperparameters chosen on a validation split of the training data only), and the page rule every
 * system shares: nothing liked, disliked or viewed, at most 2 per author.
 */
import { easeWeights, gramMatrix, type SparseRow } from '../../lib/features/recommend/ease.js';
import { seededRandom } from '../../lib/platform/seeded-random.js';

/** The first `k` of `ranked`, at most `cap` per author; then, if places are left, the rest in order whatever the author. */
export function pickCapped(ranked: readonly number[], authorOf: (video: number) => number, cap: number, k = 10): number[] {
  const perAuthor = new Map<number, number>();
  const out: number[] = [];
  for (const pass of [cap, Infinity]) {
    for (const i of ranked) {
      if (out.length >= k) break;
      const a = authorOf(i);
      if (out.includes(i) || (perAuthor.get(a) ?? 0) >= pass) continue;
      out.push(i);
      perAuthor.set(a, (perAuthor.get(a) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * Item-to-item cosine over co-likes: cos(i, c) = |likers(i) and likers(c)| / sqrt(|likers(i)| |likers(c)|),
 * from every actor's liked videos.
 */
export class ItemKnn {
  private readonly likers: Map<number, Set<number>> = new Map();

  constructor(likesByActor: readonly (readonly number[])[]) {
    likesByActor.forEach((videos, actor) => {
      for (const v of videos) {
        const set = this.likers.get(v) ?? new Set<number>();
        set.add(actor);
        this.likers.set(v, set);
      }
    });
  }

  cosine(i: number, c: number): number {
    const a = this.likers.get(i);
    const b = this.likers.get(c);
    if (!a || !b) return 0;
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    let both = 0;
    for (const x of small) if (large.has(x)) both++;
    return both / Math.sqrt(a.size * b.size);
  }

  /** score(c) = sum over the user's liked videos i of cos(i, c), for every candidate. */
  scores(liked: readonly number[], candidates: readonly number[]): Map<number, number> {
    return new Map(candidates.map((c) => [c, liked.reduce((s, i) => s + this.cosine(i, c), 0)]));
  }
}

/**
 * A ranked page over `eligible` (what the user has not liked, disliked or viewed): by `score`
 * descending, ties (and unscored videos) by `popularity` descending, then by index; at most `cap` per
 * author, as the capped oracle.
 */
export function rankedPage(eligible: readonly number[], score: (video: number) => number, popularity: (video: number) => number, authorOf: (video: number) => number, cap: number, k = 10): number[] {
  const ranked = [...eligible].sort((a, b) => score(b) - score(a) || popularity(b) - popularity(a) || a - b);
  return pickCapped(ranked, authorOf, cap, k);
}

// Baselines from a world's training data, each with its hyperparameters chosen on a split of that data.

/** What a world's people did before the evaluation, by person index: likes in time order, videos opened and not liked, dislikes. */
export interface Interactions {
  videos: number;
  people: { liked: number[]; viewed: number[]; disliked: number[] }[];
}

/** A trained baseline: a person's score for each video. */
export type Scorer = (person: number) => (video: number) => number;

/** Likes per video in the training data. */
export function likeCounts(train: Interactions): number[] {
  const counts = new Array<number>(train.videos).fill(0);
  for (const p of train.people) for (const v of p.liked) counts[v]!++;
  return counts;
}

/** The videos a person may be shown: not liked, disliked or viewed (the feed's page rule). */
export function eligibleFor(train: Interactions, person: number): number[] {
  const p = train.people[person]!;
  const excluded = new Set([...p.liked, ...p.viewed, ...p.disliked]);
  return Array.from({ length: train.videos }, (_, v) => v).filter((v) => !excluded.has(v));
}

/** A person's first page under a scorer: eligible videos by score, ties by likes then index, at most `cap` per author. */
export function pageFor(train: Interactions, person: number, scorer: Scorer, authorOf: (video: number) => number, popularity: readonly number[], cap = 2, k = 10): number[] {
  const eligible = eligibleFor(train, person);
  const score = scorer(person);
  // Each score once, not once per comparison.
  const scores = new Map(eligible.map((v) => [v, score(v)]));
  return rankedPage(eligible, (v) => scores.get(v)!, (v) => popularity[v]!, authorOf, cap, k);
}

export function popularityScorer(train: Interactions): Scorer {
  const counts = likeCounts(train);
  return () => (v) => counts[v]!;
}

export function itemKnnScorer(train: Interactions): Scorer {
  const knn = new ItemKnn(train.people.map((p) => p.liked));
  return (person) => {
    const liked = train.people[person]!.liked;
    const scores = knn.scores(liked, Array.from({ length: train.videos }, (_, v) => v));
    return (v) => scores.get(v) ?? 0;
  };
}

/** A person's row of X: 1 for a like, `viewWeight` for a video opened and not liked (left out at 0). */
function rowsOf(train: Interactions, viewWeight: number): SparseRow[] {
  return train.people.map((p) => {
    const liked = new Set(p.liked);
    const viewed = viewWeight > 0 ? [...new Set(p.viewed)].filter((v) => !liked.has(v)) : [];
    return { items: [...liked, ...viewed], values: [...[...liked].map(() => 1), ...viewed.map(() => viewWeight)] };
  });
}

export interface EaseParams {
  lambda: number;
  viewWeight: number;
}

/** EASE (lib/features/recommend/ease.ts, the full dense B) over likes and views: score(j) = sum over i of x[i] B[i][j]. */
export function easeScorer(train: Interactions, { lambda, viewWeight }: EaseParams): Scorer {
  const n = train.videos;
  const rows = rowsOf(train, viewWeight);
  const b = easeWeights(gramMatrix(rows, n), n, lambda);
  return (person) => {
    const { items, values } = rows[person]!;
    const scores = new Float64Array(n);
    items.forEach((i, a) => {
      const row = i * n;
      for (let j = 0; j < n; j++) scores[j]! += values[a]! * b[row + j]!;
    });
    return (v) => scores[v]!;
  };
}

export interface AlsParams {
  factors: number;
  lambda: number;
  alpha: number;
  iterations: number;
  viewWeight: number;
  seed: number;
}

/** Solves A x = b for a symmetric positive definite k x k A (Cholesky, reading A's lower triangle only; A and b are overwritten, x written to `out` at `offset`). */
export function choleskySolve(a: Float64Array, b: Float64Array, k: number, out: Float64Array, offset = 0): void {
  for (let j = 0; j < k; j++) {
    let d = a[j * k + j]!;
    for (let m = 0; m < j; m++) d -= a[j * k + m]! ** 2;
    d = Math.sqrt(d);
    a[j * k + j] = d;
    for (let i = j + 1; i < k; i++) {
      let s = a[i * k + j]!;
      for (let m = 0; m < j; m++) s -= a[i * k + m]! * a[j * k + m]!;
      a[i * k + j] = s / d;
    }
  }
  // L y = b, then L' x = y.
  for (let i = 0; i < k; i++) {
    let s = b[i]!;
    for (let m = 0; m < i; m++) s -= a[i * k + m]! * b[m]!;
    b[i] = s / a[i * k + i]!;
  }
  for (let i = k - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let m = i + 1; m < k; m++) s -= a[m * k + i]! * out[offset + m]!;
    out[offset + i] = s / a[i * k + i]!;
  }
}

/**
 * Implicit ALS (Hu, Koren, Volinsky 2008): preference 1 for every video a person liked or opened,
 * confidence c = 1 + alpha r (r = 1 for a like, `viewWeight` for a view); minimises
 * sum c (p - x'y)^2 + lambda (|x|^2 + |y|^2) by exact alternating least squares, one k x k solve per
 * person and per video each half-step (x_u = (Y'Y + Y'(C_u - I)Y + lambda I)^-1 Y'C_u p_u).
 * The videos' factors start as seeded normal draws x 0.1 (the people's are solved first).
 * `onIteration` sees the factors after each iteration.
 */
export function trainAls(train: Interactions, params: AlsParams, onIteration?: (iteration: number, x: Float64Array, y: Float64Array) => void): { x: Float64Array; y: Float64Array } {
  const { factors: k, lambda, alpha, iterations, viewWeight, seed } = params;
  const rows = rowsOf(train, viewWeight);
  const nu = rows.length;
  const ni = train.videos;
  const cols: { items: number[]; values: number[] }[] = Array.from({ length: ni }, () => ({ items: [], values: [] }));
  rows.forEach((r, u) =>
    r.items.forEach((i, a) => {
      cols[i]!.items.push(u);
      cols[i]!.values.push(r.values[a]!);
    }),
  );
  const rand = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-12))) * Math.cos(2 * Math.PI * rand());
  // The people's factors are solved first: only the videos' need a start.
  const x = new Float64Array(nu * k);
  const y = Float64Array.from({ length: ni * k }, () => 0.1 * gauss());
  const a = new Float64Array(k * k);
  const b = new Float64Array(k);
  const gram = new Float64Array(k * k);
  /** Solves every row of `target` from the fixed factors `fixed` (n rows). */
  const halfStep = (target: Float64Array, lines: readonly { items: readonly number[]; values: readonly number[] }[], fixed: Float64Array, n: number) => {
    gram.fill(0);
    for (let r = 0; r < n; r++) {
      const o = r * k;
      for (let p = 0; p < k; p++) {
        const f = fixed[o + p]!;
        for (let q = p; q < k; q++) gram[p * k + q]! += f * fixed[o + q]!;
      }
    }
    for (let p = 0; p < k; p++) for (let q = 0; q < p; q++) gram[p * k + q] = gram[q * k + p]!;
    lines.forEach(({ items, values }, t) => {
      a.set(gram);
      b.fill(0);
      for (let p = 0; p < k; p++) a[p * k + p]! += lambda;
      items.forEach((i, m) => {
        const c = 1 + alpha * values[m]!;
        const o = i * k;
        for (let p = 0; p < k; p++) {
          const f = fixed[o + p]!;
          b[p]! += c * f;
          const g = (c - 1) * f;
          // The lower triangle only: all that choleskySolve reads.
          for (let q = 0; q <= p; q++) a[p * k + q]! += g * fixed[o + q]!;
        }
      });
      choleskySolve(a, b, k, target, t * k);
    });
  };
  for (let it = 1; it <= iterations; it++) {
    halfStep(x, rows, y, ni);
    halfStep(y, cols, x, nu);
    onIteration?.(it, x, y);
  }
  return { x, y };
}

/** A scorer from ALS factors: score(u, i) = x_u . y_i. */
export function alsScorerOf(x: Float64Array, y: Float64Array, k: number): Scorer {
  return (person) => {
    const n = y.length / k;
    const scores = new Float64Array(n);
    for (let v = 0; v < n; v++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += x[person * k + p]! * y[v * k + p]!;
      scores[v] = s;
    }
    return (v) => scores[v]!;
  };
}

export function alsScorer(train: Interactions, params: AlsParams): Scorer {
  const { x, y } = trainAls(train, params);
  return alsScorerOf(x, y, params.factors);
}

/**
 * The training data with each evaluated person's last training like (in time) moved out as the
 * validation truth (out of their views too): hyperparameters are chosen on this, never on the
 * held-out likes. People with fewer than 2 likes keep theirs and are not validated.
 */
export function validationSplit(train: Interactions, evaluated: readonly number[]): { train: Interactions; truth: Map<number, number> } {
  const truth = new Map<number, number>();
  const people = train.people.map((p, person) => {
    if (!evaluated.includes(person) || p.liked.length < 2) return p;
    const last = p.liked.at(-1)!;
    truth.set(person, last);
    return { liked: p.liked.slice(0, -1), viewed: p.viewed.filter((v) => v !== last), disliked: p.disliked };
  });
  return { train: { videos: train.videos, people }, truth };
}

/** HR@10 and NDCG@10 of a scorer on a validation split (one truth per person), under the page rules. */
export function validate(split: ReturnType<typeof validationSplit>, scorer: Scorer, authorOf: (video: number) => number, k = 10): { hr: number; ndcg: number } {
  const popularity = likeCounts(split.train);
  let hr = 0;
  let ndcg = 0;
  for (const [person, v] of split.truth) {
    const rank = pageFor(split.train, person, scorer, authorOf, popularity, 2, k).indexOf(v);
    if (rank >= 0) {
      hr++;
      ndcg += 1 / Math.log2(rank + 2);
    }
  }
  const n = Math.max(1, split.truth.size);
  return { hr: hr / n, ndcg: ndcg / n };
}

export interface Tuned<P> {
  params: P;
  validation: { hr: number; ndcg: number };
  grid: { params: P; hr: number; ndcg: number }[];
  seconds: number;
}

/** The best of `candidates` by validation NDCG@10, then HR@10 (the first of equals). */
export function bestOf<P>(candidates: { params: P; hr: number; ndcg: number }[]): { params: P; hr: number; ndcg: number } {
  return candidates.reduce((best, c) => (c.ndcg > best.ndcg + 1e-12 || (Math.abs(c.ndcg - best.ndcg) <= 1e-12 && c.hr > best.hr + 1e-12) ? c : best));
}

export const EASE_GRID: EaseParams[] = [2, 10, 50, 250, 1000].flatMap((lambda) => [0, 0.3, 0.6].map((viewWeight) => ({ lambda, viewWeight })));

export function tuneEase(train: Interactions, evaluated: readonly number[], authorOf: (video: number) => number, grid: readonly EaseParams[] = EASE_GRID): Tuned<EaseParams> {
  const t0 = performance.now();
  const split = validationSplit(train, evaluated);
  const rows = grid.map((params) => ({ params, ...validate(split, easeScorer(split.train, params), authorOf) }));
  const best = bestOf(rows);
  return { params: best.params, validation: { hr: best.hr, ndcg: best.ndcg }, grid: rows, seconds: (performance.now() - t0) / 1000 };
}

/**
 * ALS's grid: factors x lambda x alpha, each trained once and read at 5, 10 and 15 iterations; views
 * at 0.5 of a like. (The first run on the report worlds, bench/feed-eval-gen3.json, had alpha 2 and 8
 * only and EASE's lambda up to 250: alpha 2 and lambda 250 were chosen at the grid's edge in half the
 * worlds, so the grids reach further.)
 */
export const ALS_GRID = { factors: [16, 32, 64], lambda: [3, 10, 30], alpha: [0.5, 2, 8], iterations: [5, 10, 15], viewWeight: 0.5, seed: 20080101 };

export function tuneAls(train: Interactions, evaluated: readonly number[], authorOf: (video: number) => number, grid = ALS_GRID): Tuned<AlsParams> {
  const t0 = performance.now();
  const split = validationSplit(train, evaluated);
  const rows: Tuned<AlsParams>['grid'] = [];
  const most = Math.max(...grid.iterations);
  for (const factors of grid.factors)
    for (const lambda of grid.lambda)
      for (const alpha of grid.alpha) {
        const base = { factors, lambda, alpha, viewWeight: grid.viewWeight, seed: grid.seed };
        trainAls(split.train, { ...base, iterations: most }, (iterations, x, y) => {
          if (grid.iterations.includes(iterations)) rows.push({ params: { ...base, iterations }, ...validate(split, alsScorerOf(x, y, factors), authorOf) });
        });
      }
  const best = bestOf(rows);
  return { params: best.params, validation: { hr: best.hr, ndcg: best.ndcg }, grid: rows, seconds: (performance.now() - t0) / 1000 };
}
