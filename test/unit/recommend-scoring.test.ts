import { describe, expect, it } from 'vitest';
import { BLEND, CandidatePool, composePage, explorePlaces, followPlaces, modelWeight, noise, PAGE, rankCandidates, tierOf, type Candidate, type RankContext, type Scored } from '../../lib/features/recommend/scoring.js';
import { CREATION_WEIGHT, hotness, initialTrend, TREND_HALF_LIFE_DAYS, trendUnit } from '../../lib/entities/catalog/trend.js';

const NOW = Date.UTC(2026, 10, 21);
const DAY = 86_400_000;

function candidate(vid: string, fields: Partial<Candidate> = {}): Candidate {
  return { vid, author_openid: `author-${vid}`, tags: [], created_at: new Date(NOW - 10 * DAY).toISOString(), trend: initialTrend(NOW - 10 * DAY), sources: new Set(['trending']), cf: 0, ...fields };
}

function context(fields: Partial<RankContext> = {}): RankContext {
  return { nowMs: NOW, seed: 'seed', profile: new Map(), tagIdf: () => 1, followedAuthors: new Set(), disliked: new Set(), blocked: new Set(), seen: new Set(), liked: () => false, served: new Set(), exclude: new Set(), ...fields };
}

const order = (ranked: { candidate: Candidate }[]) => ranked.map((s) => s.candidate.vid);
describe('trend with time decay', () => {
  it('counts a fresh video as CREATION_WEIGHT likes and halves every half-life', () => {
    const created = NOW - 2 * DAY;
    expect(hotness(initialTrend(created, 7), created)).toBeCloseTo(CREATION_WEIGHT + 7, 9);
    expect(hotness(initialTrend(created, 7), created + TREND_HALF_LIFE_DAYS * DAY)).toBeCloseTo((CREATION_WEIGHT + 7) / 2, 9);
  });

  it('keeps the order of decayed scores in the order of stored trends, at any time', () => {
    const oldPopular = initialTrend(NOW - 20 * DAY, 200);
    const newQuiet = initialTrend(NOW - DAY, 5);
    for (const at of [NOW, NOW + 30 * DAY, NOW + 400 * DAY]) {
      expect(Math.sign(hotness(oldPopular, at) - hotness(newQuiet, at))).toBe(Math.sign(oldPopular - newQuiet));
    }
    // A like now outweighs a like 3 half-lives ago by 8.
    expect(trendUnit(NOW) / trendUnit(NOW - 3 * TREND_HALF_LIFE_DAYS * DAY)).toBeCloseTo(8, 9);
  });

  it('stays within what the SDK and DynamoDB accept until 2032', () => {
    expect(trendUnit(Date.UTC(2026, 0, 1))).toBe(2 ** -400);
    expect(trendUnit(Date.UTC(2032, 0, 1))).toBeLessThan(Number.MAX_SAFE_INTEGER);
    // Older events (a bulk import of old videos) all weigh the smallest amount DynamoDB can store.
    expect(trendUnit(Date.UTC(2020, 0, 1))).toBeGreaterThan(1e-130);
    expect(trendUnit(Date.UTC(2020, 0, 1))).toBe(trendUnit(Date.UTC(2010, 0, 1)));
  });
});

describe('the blend of tags and the learned model', () => {
  // "tagged": the caller's strongest tag, nothing from the model; "modelled": the model's best, no tag of the taste.
  const pool = () => [candidate('tagged', { tags: ['robotics'] }), candidate('modelled', { cf: 0.8 }), candidate('other', { cf: 0.1 })];
  const profile = new Map([['robotics', 1]]);

  it('lets tags carry the page while the caller has done little, and the model once they have done more', () => {
    expect(modelWeight(0)).toBe(BLEND.min);
    expect(modelWeight(BLEND.half)).toBeCloseTo((BLEND.min + BLEND.max) / 2, 12);
    expect(modelWeight(1e9)).toBeCloseTo(BLEND.max, 6);
    expect(order(rankCandidates(pool(), context({ profile, modelEvidence: 0 }), 'personal'))[0]).toBe('tagged');
    expect(order(rankCandidates(pool(), context({ profile, modelEvidence: 0.25 }), 'personal'))[0]).toBe('tagged');
    expect(order(rankCandidates(pool(), context({ profile, modelEvidence: 3 }), 'personal'))[0]).toBe('modelled');
  });
});

describe('signals', () => {
  it('noise is deterministic per seed and vid, in [0, 1)', () => {
    expect(noise('a', 'v1')).toBe(noise('a', 'v1'));
    expect(noise('a', 'v1')).not.toBe(noise('b', 'v1'));
    for (let i = 0; i < 200; i++) {
      const n = noise(`s${i}`, 'v');
      expect(n >= 0 && n < 1).toBe(true);
    }
  });

  it('merges candidates by vid, keeping every source', () => {
    const pool = new CandidatePool();
    pool.add({ vid: 'a', author_openid: 'x', tags: [], created_at: '2026-01-01T00:00:00Z', trend: 1 }, 'trending');
    pool.add({ vid: 'a', author_openid: 'x', tags: [], created_at: '2026-01-01T00:00:00Z', trend: 0, cf: 0.4 }, 'neighbour');
    expect(pool.size).toBe(1);
    expect(pool.values()[0]).toMatchObject({ vid: 'a', trend: 1, cf: 0.4, sources: new Set(['trending', 'neighbour']) });
  });
});

describe('ranking', () => {
  it('leaves out disliked and excluded videos', () => {
    const ranked = rankCandidates([candidate('a'), candidate('b'), candidate('c')], context({ disliked: new Set(['a']), exclude: new Set(['c']) }), 'personal');
    expect(order(ranked)).toEqual(['b']);
  });

  it('leaves out the videos of authors the caller blocked', () => {
    const ranked = rankCandidates([candidate('a'), candidate('b', { author_openid: 'blocked' }), candidate('c')], context({ blocked: new Set(['blocked']) }), 'personal');
    expect(order(ranked).sort()).toEqual(['a', 'c']);
  });

  it('puts unseen before handed-out before seen, whatever the scores', () => {
    const ctx = context({ seen: new Set(['hot']), served: new Set(['warm']) });
    const ranked = rankCandidates(
      [candidate('hot', { trend: initialTrend(NOW, 1000) }), candidate('warm', { trend: initialTrend(NOW, 500) }), candidate('cold', { trend: initialTrend(NOW - 50 * DAY) })],
      ctx,
      'personal',
    );
    expect(order(ranked)).toEqual(['cold', 'warm', 'hot']);
    expect(tierOf('hot', ctx)).toBe(2);
    expect(tierOf('warm', ctx)).toBe(1);
  });

  it('follows the taste, the learned model and follows; trend and freshness rank anonymous callers', () => {
    const base = [candidate('plain'), candidate('liked-topic', { tags: ['robotics'] })];
    expect(order(rankCandidates(base, context({ profile: new Map([['robotics', 1]]) }), 'personal'))[0]).toBe('liked-topic');
    expect(order(rankCandidates([candidate('plain'), candidate('neighbour', { cf: 0.3 })], context(), 'personal'))[0]).toBe('neighbour');
    expect(order(rankCandidates([candidate('plain'), candidate('followed')], context({ followedAuthors: new Set(['author-followed']) }), 'personal'))[0]).toBe('followed');
    expect(order(rankCandidates([candidate('plain'), candidate('hot', { trend: initialTrend(NOW - 10 * DAY, 400) })], context(), 'anonymous'))[0]).toBe('hot');
    expect(order(rankCandidates([candidate('plain'), candidate('new', { created_at: new Date(NOW).toISOString(), trend: initialTrend(NOW - 10 * DAY) })], context(), 'anonymous'))[0]).toBe('new');
  });

  it('popularity breaks ties of relevance but never outvotes it', () => {
    const profile = new Map([['solar', 1]]);
    const ranked = rankCandidates(
      [
        candidate('off-topic-viral', { tags: ['wind', 'expo'], trend: initialTrend(NOW, 100_000), created_at: new Date(NOW).toISOString() }),
        candidate('on-topic-quiet', { tags: ['solar', 'expo'] }),
        candidate('on-topic-popular', { tags: ['solar', 'expo'], trend: initialTrend(NOW - 10 * DAY, 300) }),
      ],
      context({ profile }),
      'personal',
    );
    expect(order(ranked)).toEqual(['on-topic-popular', 'on-topic-quiet', 'off-topic-viral']);
    expect(ranked[2]!.relevance).toBe(0);
  });

  it('"more like this" ranks by the share of the video\'s tag information a candidate carries', () => {
    const idf = new Map([
      ['robotics', 2.5],
      ['expo', 0.3],
      ['aerospace', 2.5],
    ]);
    const ctx = context({ similarTo: { vid: 'x', tags: ['robotics', 'expo'], author_openid: 'someone' }, exclude: new Set(['x']), tagIdf: (t) => idf.get(t) ?? 3 });
    const ranked = rankCandidates(
      [
        candidate('x', { tags: ['robotics'] }),
        candidate('unrelated-hot', { tags: ['aerospace'], trend: initialTrend(NOW, 10_000) }),
        candidate('generic-only', { tags: ['expo', 'aerospace'] }),
        candidate('same-topic', { tags: ['robotics'] }),
      ],
      ctx,
      'similar',
    );
    expect(order(ranked)[0]).toBe('same-topic');
    expect(ranked[0]!.relevance).toBeCloseTo(6.25 / 6.34, 9);
    // Sharing only the generic tag is next to nothing: the trend of a hot unrelated video weighs more.
    expect(ranked.find((s) => s.candidate.vid === 'generic-only')!.relevance).toBeCloseTo(0.09 / 6.34, 9);
  });
});

describe('composing a page', () => {
  const scored = (vid: string, author: string, fields: Partial<Scored> = {}, at = NOW - 10 * DAY): Scored => ({
    candidate: candidate(vid, { author_openid: author, created_at: new Date(at).toISOString() }),
    score: 0,
    relevance: 0,
    tier: 0,
    trend: 0,
    ...fields,
  });
  const rules = { nowMs: NOW, seed: 'seed' };

  it('takes at most two videos per author while others are available, best first', () => {
    const ranked = [scored('a1', 'A', { score: 6 }), scored('a2', 'A', { score: 5 }), scored('a3', 'A', { score: 4 }), scored('b1', 'B', { score: 3 }), scored('a4', 'A', { score: 2 }), scored('c1', 'C', { score: 1 })];
    expect(order(composePage(ranked, { ...rules, count: 4 }).picked)).toEqual(['a1', 'a2', 'b1', 'c1']);
  });

  it('takes more of one author before a video already handed out, and one handed out before any seen one', () => {
    const ranked = [scored('a1', 'A', { score: 3 }), scored('a2', 'A', { score: 2 }), scored('a3', 'A', { score: 1 }), scored('b1', 'B', { tier: 1 }), scored('s1', 'S', { tier: 2, score: 9 })];
    expect(order(composePage(ranked, { ...rules, count: 3 }).picked)).toEqual(['a1', 'a2', 'a3']);
    expect(order(composePage(ranked, { ...rules, count: 4 }).picked)).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(order(composePage(ranked, { ...rules, count: 5 }).picked)).toEqual(['a1', 'a2', 'a3', 'b1', 's1']);
  });

  it('counts the authors of videos placed before the page (the shared video)', () => {
    const ranked = [scored('a1', 'A', { score: 2 }), scored('a2', 'A', { score: 1 }), scored('b1', 'B')];
    expect(order(composePage(ranked, { ...rules, count: 2, preCounted: ['A'] }).picked)).toEqual(['a1', 'b1']);
  });

  it('reserves places for new videos of followed authors, newest first, an author\'s new video before its older ones, ordered by score with the rest', () => {
    const ranked = [
      scored('old-f1', 'F', { score: 9, relevance: 9 }),
      scored('old-f2', 'F', { score: 8, relevance: 8 }),
      scored('x', 'X', { score: 7 }),
      ...['y1', 'y2', 'y3', 'y4', 'y5'].map((vid) => scored(vid, vid, { score: 1 })),
      scored('new-f', 'F', { score: 0 }, NOW - DAY),
      scored('new-g', 'G', { score: 0 }, NOW - 1000),
      scored('new-h', 'H', { score: 0 }, NOW - 2 * DAY),
      scored('new-k', 'K', { score: 0 }, NOW - 3 * DAY),
    ];
    const page = composePage(ranked, { ...rules, count: 10, followNew: new Set(['new-f', 'new-g', 'new-h', 'new-k']) });
    expect(followPlaces(10)).toBe(3);
    // The three newest are on the page, though they score least; F's second place goes to old-f1.
    expect(order(page.picked)).toEqual(['old-f1', 'x', 'y1', 'y2', 'y3', 'y4', 'y5', 'new-g', 'new-f', 'new-h']);
    expect(order(page.picked)).not.toContain('old-f2');
    expect(order(page.followLeft)).toEqual(['new-k']);
  });

  it('reserves exploration places for unseen candidates the taste does not explain, placed after the relevant ones', () => {
    const ranked = [scored('r1', 'A', { score: 2, relevance: 2 }), scored('r2', 'B', { score: 1.9, relevance: 1.9 }), scored('r3', 'C', { score: 1.8, relevance: 1.8 }), scored('hot-other', 'D', { score: 0.2, trend: 1 }), scored('cold-other', 'E', { score: 0.1 })];
    expect(order(composePage(ranked, { ...rules, count: 3, explore: 1 }).picked)).toEqual(['r1', 'r2', 'hot-other']);
    expect(order(composePage(ranked, { ...rules, count: 3, explore: 0 }).picked)).toEqual(['r1', 'r2', 'r3']);
  });

  it('explores a share of the page: a fraction of a place on that share of the calls', () => {
    expect(PAGE.exploreShare).toBe(0.05);
    const counts = Array.from({ length: 2000 }, (_, i) => explorePlaces(10, `seed${i}`));
    expect(new Set(counts)).toEqual(new Set([0, 1]));
    expect(counts.filter((c) => c === 1).length / counts.length).toBeGreaterThan(0.45);
    expect(counts.filter((c) => c === 1).length / counts.length).toBeLessThan(0.55);
    expect(explorePlaces(20, 'any')).toBe(1);
  });
});
