import { describe, expect, it } from 'vitest';
import {
  alsScorer,
  bestOf,
  choleskySolve,
  easeScorer,
  eligibleFor,
  ItemKnn,
  itemKnnScorer,
  pageFor,
  pickCapped,
  popularityScorer,
  rankedPage,
  trainAls,
  tuneEase,
  validationSplit,
  type AlsParams,
  type Interactions,
} from '../../bench/feed-eval/baselines.js';
import { meanMetrics, ratio, ratiosTo, type SystemMetrics } from '../../bench/feed-eval/metrics.js';
import { bestBaseline, evaluateTargets, meanOverWorlds, type WorldResult } from '../../bench/feed-eval/targets.js';
import { WORLDS } from '../../bench/feed-eval/worlds.js';

/** The offline evaluation's local baselines and ratios (bench/feed-eval), against hand-computed cases. */
describe('item-kNN over co-likes', () => {
  // Likers: video 0 {A, B}, 1 {A, B, C}, 2 {B, C}, 3 {D}.
  const knn = new ItemKnn([[0, 1], [0, 1, 2], [1, 2], [3]]);

  it('cosine = common likers / sqrt(likers of each)', () => {
    expect(knn.cosine(0, 1)).toBeCloseTo(2 / Math.sqrt(6), 12);
    expect(knn.cosine(0, 2)).toBeCloseTo(1 / 2, 12);
    expect(knn.cosine(1, 2)).toBeCloseTo(2 / Math.sqrt(6), 12);
    expect(knn.cosine(2, 1)).toBe(knn.cosine(1, 2));
    expect(knn.cosine(0, 3)).toBe(0);
    expect(knn.cosine(0, 9)).toBe(0);
  });

  it("a candidate's score sums its cosine to each liked video", () => {
    const one = knn.scores([0], [1, 2, 3]);
    expect(one.get(1)).toBeCloseTo(2 / Math.sqrt(6), 12);
    expect(one.get(2)).toBeCloseTo(0.5, 12);
    expect(one.get(3)).toBe(0);
    expect(knn.scores([0, 2], [1]).get(1)).toBeCloseTo(4 / Math.sqrt(6), 12);
  });

  it('ranks by score, then popularity, at most 2 per author, never outside the eligible videos', () => {
    const scores = knn.scores([0], [1, 2, 3, 4, 5]);
    const author = (v: number) => (v <= 3 ? 0 : v);
    const popularity = (v: number) => [0, 0, 0, 0, 1, 5][v]!;
    // 1 and 2 by score; 3 (score 0) is author 0's third: after 5 and 4 (by popularity).
    expect(rankedPage([1, 2, 3, 4, 5], (v) => scores.get(v) ?? 0, popularity, author, 2, 4)).toEqual([1, 2, 5, 4]);
    expect(rankedPage([1, 2, 3, 4, 5], (v) => scores.get(v) ?? 0, popularity, author, 2, 5)).toEqual([1, 2, 5, 4, 3]);
    expect(rankedPage([1, 2, 3, 4, 5], (v) => scores.get(v) ?? 0, popularity, author, Infinity, 4)).toEqual([1, 2, 5, 4]);
    expect(rankedPage([2, 4], (v) => scores.get(v) ?? 0, popularity, author, 2, 10)).toEqual([2, 4]);
  });
});

describe('the capped page', () => {
  it('keeps the order, skips a third video of one author while others are left, then fills', () => {
    const author = (v: number) => (v < 5 ? 0 : 1);
    expect(pickCapped([0, 1, 2, 5, 3], author, 2, 3)).toEqual([0, 1, 5]);
    expect(pickCapped([0, 1, 2, 5, 3], author, 2, 4)).toEqual([0, 1, 5, 2]);
    expect(pickCapped([0, 1, 2], author, Infinity, 2)).toEqual([0, 1]);
  });
});

const metrics = (over: Partial<SystemMetrics>): SystemMetrics => ({ users: 10, hr: 0, recall: 0, ndcg: 0, topicPrecision: 0, coverage: 0, dislikedReturned: 0, likedReturned: 0, maxPerAuthor: 2, meanLength: 10, ...over });

describe('ratios and means', () => {
  it('ratios to the capped oracle, none when it scores 0', () => {
    expect(ratiosTo(metrics({ hr: 0.6, ndcg: 0.2, topicPrecision: 0.45 }), metrics({ hr: 0.8, ndcg: 0.4, topicPrecision: 0.5 }))).toEqual({ hr: expect.closeTo(0.75, 12), ndcg: 0.5, topicPrecision: expect.closeTo(0.9, 12) });
    expect(ratio(0.3, 0)).toBeNaN();
  });

  it('the mean over worlds: metric by metric, the worst per-author maximum, users summed', () => {
    const m = meanMetrics([metrics({ hr: 0.5, maxPerAuthor: 2 }), metrics({ hr: 0.7, maxPerAuthor: 3 })]);
    expect(m.hr).toBeCloseTo(0.6, 12);
    expect(m.maxPerAuthor).toBe(3);
    expect(m.users).toBe(20);
  });
});

/** People by index: liked (in time order), viewed (opened, not liked), disliked. */
const interactions = (videos: number, people: [number[], number[]?, number[]?][]): Interactions => ({ videos, people: people.map(([liked, viewed = [], disliked = []]) => ({ liked, viewed, disliked })) });

describe('the local baselines on the training data', () => {
  const author = (v: number) => v;

  it('popularity: the most liked videos the person has not liked, viewed or disliked, ties by index', () => {
    // Likes per video: 0 -> 3, 1 -> 2, 2 -> 2, 3 -> 1, 4 -> 0.
    const train = interactions(5, [[[0, 1, 2]], [[0, 1]], [[0, 2, 3]], [[], [0], [1]]]);
    expect(eligibleFor(train, 3)).toEqual([2, 3, 4]);
    const counts = [3, 2, 2, 1, 0];
    expect(pageFor(train, 3, popularityScorer(train), author, counts, 2, 2)).toEqual([2, 3]);
    expect(pageFor(train, 1, popularityScorer(train), author, counts)).toEqual([2, 3, 4]);
    // At most 2 per author while others are left: videos 0-2 by one author.
    expect(pageFor(interactions(5, [[[0]], [[0, 1]], [[1, 2]], [[]]]), 3, popularityScorer(interactions(5, [[[0]], [[0, 1]], [[1, 2]], [[]]])), (v) => (v <= 2 ? 0 : v), [2, 2, 1, 0, 0], 2, 3)).toEqual([0, 1, 3]);
  });

  it('item-kNN scores a candidate by its cosine to each liked video', () => {
    const train = interactions(4, [[[0, 1]], [[0, 1, 2]], [[1, 2]], [[3]]]);
    expect(itemKnnScorer(train)(0)(2)).toBeCloseTo(1 / 2 + 2 / Math.sqrt(6), 12);
  });

  it('EASE on two videos: B[0][1] = G01 / (G00 + lambda), views weighted into the Gram matrix', () => {
    // Likes: {0, 1}, {0, 1}, {0}: G00 = 3, G01 = 2, G11 = 2.
    const train = interactions(2, [[[0, 1]], [[0, 1]], [[0]]]);
    expect(easeScorer(train, { lambda: 1, viewWeight: 0 })(2)(1)).toBeCloseTo(2 / 4, 12);
    expect(easeScorer(train, { lambda: 1, viewWeight: 0 })(2)(0)).toBe(0);
    // Person 2 also opened video 1 (weight 0.5): their row is x = [1, 0.5], so G00 = 3, G01 = 2.5, G11 = 2.25.
    const viewed = interactions(2, [[[0, 1]], [[0, 1]], [[0], [1]]]);
    const s = easeScorer(viewed, { lambda: 1, viewWeight: 0.5 })(2);
    // B[0][1] = 2.5 / 4 and B[1][0] = 2.5 / (2.25 + 1): person 2's scores are x B = [0.5 B10, B01].
    expect(s(1)).toBeCloseTo(2.5 / 4, 12);
    expect(s(0)).toBeCloseTo((0.5 * 2.5) / 3.25, 12);
  });

  it('a Cholesky solve of a symmetric positive definite system', () => {
    // [[4, 2], [2, 3]] x = [2, 1]: x = [0.5, 0].
    const out = new Float64Array(2);
    choleskySolve(Float64Array.from([4, 2, 2, 3]), Float64Array.from([2, 1]), 2, out);
    expect(out[0]).toBeCloseTo(0.5, 12);
    expect(out[1]).toBeCloseTo(0, 12);
  });

  // Two tastes: people 0-3 like videos 0-2, people 4-7 videos 3-5; person 0 has liked only 0 and 1.
  const twoTastes = interactions(6, [[[0, 1]], [[0, 1, 2]], [[0, 2]], [[1, 2]], [[3, 4]], [[3, 4, 5]], [[4, 5]], [[3, 5], [0]]]);
  const params: AlsParams = { factors: 2, lambda: 0.1, alpha: 10, iterations: 10, viewWeight: 0.5, seed: 7 };

  it('implicit ALS: each video factor solves its weighted least squares exactly, given the people factors', () => {
    const { x, y } = trainAls(twoTastes, { ...params, iterations: 3 });
    const k = params.factors;
    // For video 0: (X'X + X'(C - I)X + lambda I) y0 = X'C p, with c = 1 + alpha r over its likers and viewers.
    const r = [1, 1, 1, 0, 0, 0, 0, 0.5];
    const a = [0, 0, 0, 0];
    const b = [0, 0];
    for (let u = 0; u < 8; u++) {
      const c = 1 + params.alpha * r[u]!;
      for (let p = 0; p < k; p++) {
        if (r[u]! > 0) b[p]! += c * x[u * k + p]!;
        for (let q = 0; q < k; q++) a[p * k + q]! += c * x[u * k + p]! * x[u * k + q]!;
      }
    }
    for (let p = 0; p < k; p++) {
      const lhs = (a[p * k]! + (p === 0 ? params.lambda : 0)) * y[0]! + (a[p * k + 1]! + (p === 1 ? params.lambda : 0)) * y[1]!;
      expect(lhs).toBeCloseTo(b[p]!, 9);
    }
  });

  it('implicit ALS ranks the unseen video of the person\'s taste first, the same way for the same seed', () => {
    const score = alsScorer(twoTastes, params)(0);
    expect(score(2)).toBeGreaterThan(Math.max(score(3), score(4), score(5)));
    const again = alsScorer(twoTastes, params)(0);
    expect([2, 3, 4, 5].map(again)).toEqual([2, 3, 4, 5].map(score));
    // The seed decides the starting factors: one iteration from another seed lands elsewhere.
    const once = (seed: number) => Array.from(trainAls(twoTastes, { ...params, iterations: 1, seed }).y);
    expect(once(7)).toEqual(once(7));
    expect(once(8)).not.toEqual(once(7));
    expect(pageFor(twoTastes, 0, alsScorer(twoTastes, params), (v) => v, [3, 3, 3, 3, 3, 3])[0]).toBe(2);
  });

  it('the validation split moves each evaluated person\'s last training like out (and out of their views), nothing else', () => {
    const train = interactions(6, [[[0, 1, 2], [2, 4]], [[3]], [[4, 5]]]);
    const split = validationSplit(train, [0, 1]);
    expect(split.truth).toEqual(new Map([[0, 2]]));
    expect(split.train.people[0]).toEqual({ liked: [0, 1], viewed: [4], disliked: [] });
    expect(split.train.people[1]).toEqual(train.people[1]);
    expect(split.train.people[2]).toEqual(train.people[2]);
    expect(train.people[0]!.liked).toEqual([0, 1, 2]);
  });

  it('tuning picks by validation NDCG@10, then HR@10, and never sees more than the training data', () => {
    expect(bestOf([{ params: 'a', hr: 0.7, ndcg: 0.2 }, { params: 'b', hr: 0.4, ndcg: 0.3 }, { params: 'c', hr: 0.6, ndcg: 0.3 }]).params).toBe('c');
    expect(bestOf([{ params: 'a', hr: 0.5, ndcg: 0.2 }, { params: 'b', hr: 0.5, ndcg: 0.2 }]).params).toBe('a');
    const tuned = tuneEase(twoTastes, [0, 1, 2, 3], (v) => v, [
      { lambda: 1, viewWeight: 0 },
      { lambda: 1e6, viewWeight: 0 },
    ]);
    expect(tuned.grid).toHaveLength(2);
    expect(tuned.validation.hr).toBeGreaterThan(0);
  });
});

describe('targets', () => {
  const world = (name: string, feed: Partial<SystemMetrics>, spec = WORLDS[0]!, systems: Partial<WorldResult['systems']> = {}): WorldResult => ({
    name,
    spec: { ...spec, name },
    stats: {},
    systems: {
      feed: metrics(feed),
      popularity: metrics({ hr: 0.3 }),
      newest: metrics({}),
      popularityLocal: metrics({ hr: 0.2, ndcg: 0.1 }),
      itemKnn: metrics({ hr: 0.7, ndcg: 0.3 }),
      ease: metrics({ hr: 0.75, ndcg: 0.28 }),
      als: metrics({ hr: 0.6, ndcg: 0.36 }),
      random: metrics({}),
      oracle: metrics({ hr: 1, ndcg: 0.5, topicPrecision: 1 }),
      oracleCapped: metrics({ hr: 0.8, ndcg: 0.4, topicPrecision: 0.6 }),
      ...systems,
    },
    randomExpected: { hr: 0, recall: 0, ndcg: 0, topicPrecision: 0 },
    moreLikeThis: { calls: 0, topicPrecision: 0 },
    followFreshness: { pairs: 10, hits: 10, rate: 1, missesWithAuthorCapFull: 0 },
    requests: { max: 8, mean: 7 },
    wcu: { max: 3, mean: 2 },
    allModes: { requests: { max: 8, mean: 7 }, wcu: { max: 5, mean: 2 } },
  });
  const controlled = { perTopic: [], min: 6, mean: 6, chance: 0.6, followFreshness: 1 };
  const thin = WORLDS.find((w) => w.thin)!;
  const latent = WORLDS.find((w) => w.generator === 'latent')!;
  const noOracle = { oracle: undefined, oracleCapped: undefined };
  const targets = evaluateTargets({
    worlds: [world('a', { hr: 0.675, ndcg: 0.324, topicPrecision: 0.51 }), world('b', { hr: 0.6, ndcg: 0.2, topicPrecision: 0.3 }, thin), world('c', { hr: 0.7, ndcg: 0.4 }, latent, noOracle)],
    controlled,
  });
  const find = (name: string, w: string) => targets.find((t) => t.name === name && t.world === w);

  it('HR@10 and NDCG@10 against the best local baseline of each metric', () => {
    expect(bestBaseline(world('a', {}).systems, 'hr')).toMatchObject({ key: 'ease', value: 0.75 });
    expect(bestBaseline(world('a', {}).systems, 'ndcg')).toMatchObject({ key: 'als', value: 0.36 });
    expect(find('HR@10 / best local baseline', 'a')).toMatchObject({ value: expect.closeTo(0.9, 12), met: true, reference: 'EASE' });
    expect(find('NDCG@10 / best local baseline', 'a')).toMatchObject({ value: expect.closeTo(0.9, 12), met: true, reference: 'ALS' });
    expect(find('HR@10 / best local baseline', 'b')).toMatchObject({ value: expect.closeTo(0.8, 12), met: false });
    // An earlier file without EASE and ALS: the best of those it has.
    expect(bestBaseline(world('d', {}, WORLDS[0], { ease: undefined, als: undefined }).systems, 'hr')).toMatchObject({ key: 'itemKnn', value: 0.7 });
  });

  it('topic precision against the capped oracle where topics are planted, HR against it on thin data only', () => {
    expect(find('topic precision@10 / capped oracle', 'a')).toMatchObject({ value: expect.closeTo(0.85, 12), met: true });
    expect(find('topic precision@10 / capped oracle', 'b')).toMatchObject({ value: expect.closeTo(0.5, 12), met: false });
    expect(find('topic precision@10 / capped oracle', 'c')).toBeUndefined();
    expect(find('HR@10 / capped oracle (thin data)', 'a')).toBeUndefined();
    expect(find('HR@10 / capped oracle (thin data)', 'b')).toMatchObject({ value: expect.closeTo(0.75, 12), met: false });
    expect(targets.some((t) => t.name.includes('popularity HR') || t.name === 'NDCG@10 / capped oracle')).toBe(false);
  });

  it('a ratio exactly at its goal meets it, whatever the rounding', () => {
    const at = (hr: number) => evaluateTargets({ worlds: [world('e', { hr, ndcg: 1 }, WORLDS[0], { ease: metrics({ hr: 0.7 }), itemKnn: metrics({ hr: 0.1 }) })], controlled }).find((t) => t.name === 'HR@10 / best local baseline')!;
    expect(at(0.63).met).toBe(true);
    expect(at(0.6299).met).toBe(false);
  });

  it('the write units of every mode and the means over the worlds', () => {
    expect(find('write units per feed call (max, every mode)', 'a')).toMatchObject({ value: 5, met: false });
    // Mean feed HR (0.675 + 0.6 + 0.7) / 3 against the best mean baseline, EASE's 0.75.
    expect(find('HR@10 / best local baseline', 'mean')?.value).toBeCloseTo(1.975 / 3 / 0.75, 12);
    expect(find('topic precision@10 / capped oracle', 'mean of the planted-topic worlds')?.value).toBeCloseTo((0.81 / 2) / 0.6, 12);
    expect(meanOverWorlds([world('a', {}), world('b', {})]).wcu.max).toBe(3);
  });
});
