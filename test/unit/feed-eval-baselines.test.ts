import { describe, expect, it } from 'vitest';
import { ItemKnn, pickCapped, rankedPage } from '../../bench/feed-eval/baselines.js';
import { meanMetrics, ratio, ratiosTo, type SystemMetrics } from '../../bench/feed-eval/metrics.js';
import { evaluateTargets, meanOverWorlds, type WorldResult } from '../../bench/feed-eval/targets.js';
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

describe('targets', () => {
  const world = (name: string, feed: Partial<SystemMetrics>, spec = WORLDS[0]!): WorldResult => ({
    name,
    spec: { ...spec, name },
    stats: {},
    systems: {
      feed: metrics(feed),
      popularity: metrics({ hr: 0.3 }),
      newest: metrics({}),
      popularityLocal: metrics({ hr: 0.2 }),
      itemKnn: metrics({ hr: 0.7 }),
      random: metrics({}),
      oracle: metrics({ hr: 1, ndcg: 0.5, topicPrecision: 1 }),
      oracleCapped: metrics({ hr: 0.8, ndcg: 0.4, topicPrecision: 0.6 }),
    },
    randomExpected: { hr: 0, recall: 0, ndcg: 0, topicPrecision: 0 },
    moreLikeThis: { calls: 0, topicPrecision: 0 },
    followFreshness: { pairs: 10, hits: 10, rate: 1, missesWithAuthorCapFull: 0 },
    requests: { max: 8, mean: 7 },
    wcu: { max: 3, mean: 2 },
    allModes: { requests: { max: 8, mean: 7 }, wcu: { max: 5, mean: 2 } },
  });
  const controlled = { perTopic: [], min: 6, mean: 6, chance: 0.6, followFreshness: 1 };
  const coLiking = WORLDS.find((w) => w.name === 'co-liking')!;
  const targets = evaluateTargets({ worlds: [world('a', { hr: 0.68, ndcg: 0.34, topicPrecision: 0.54 }), world('b', { hr: 0.6, ndcg: 0.2, topicPrecision: 0.3 }, coLiking)], controlled });
  const find = (name: string, w: string) => targets.find((t) => t.name === name && t.world === w);

  it('against the capped oracle, local popularity and, where topics are in no tag, item-kNN', () => {
    expect(find('HR@10 / capped oracle', 'a')).toMatchObject({ value: expect.closeTo(0.85, 12), met: true });
    expect(find('NDCG@10 / capped oracle', 'a')?.value).toBeCloseTo(0.85, 12);
    expect(find('topic precision@10 / capped oracle', 'a')).toMatchObject({ value: expect.closeTo(0.9, 12), met: true });
    expect(find('HR@10 / popularity HR@10', 'a')).toMatchObject({ value: expect.closeTo(3.4, 12), met: true });
    expect(find('HR@10 / capped oracle', 'b')).toMatchObject({ value: expect.closeTo(0.75, 12), met: false });
    expect(find('HR@10 / item-kNN HR@10', 'a')).toBeUndefined();
    expect(find('HR@10 / item-kNN HR@10', 'b')?.met).toBe(false);
  });

  it('a ratio exactly at its goal meets it, whatever the rounding', () => {
    // 0.3 / 0.1 computes as 2.9999999999999996.
    const exact = evaluateTargets({ worlds: [world('c', { hr: 0.3 })].map((w) => ({ ...w, systems: { ...w.systems, popularityLocal: metrics({ hr: 0.1 }) } })), controlled });
    expect(exact.find((t) => t.name === 'HR@10 / popularity HR@10')?.met).toBe(true);
    const below = evaluateTargets({ worlds: [world('c', { hr: 0.299 })].map((w) => ({ ...w, systems: { ...w.systems, popularityLocal: metrics({ hr: 0.1 }) } })), controlled });
    expect(below.find((t) => t.name === 'HR@10 / popularity HR@10')?.met).toBe(false);
  });

  it('the write units of every mode and the mean over the worlds', () => {
    expect(find('write units per feed call (max, every mode)', 'a')).toMatchObject({ value: 5, met: false });
    expect(find('HR@10 / capped oracle', 'mean')?.value).toBeCloseTo(0.64 / 0.8, 12);
    expect(meanOverWorlds([world('a', {}), world('b', {})]).wcu.max).toBe(3);
  });
});
