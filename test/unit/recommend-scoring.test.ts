import { describe, expect, it } from 'vitest';
import { CandidatePool, noise, rankCandidates, selectList, tasteAffinity, tierOf, type Candidate, type RankContext } from '../../lib/recommend/scoring.js';
import { CREATION_WEIGHT, hotness, initialTrend, TREND_HALF_LIFE_DAYS, trendUnit } from '../../lib/catalog/trend.js';

const NOW = Date.UTC(2026, 10, 21);
const DAY = 86_400_000;

function candidate(vid: string, fields: Partial<Candidate> = {}): Candidate {
  return { vid, author_openid: `author-${vid}`, tags: [], created_at: new Date(NOW - 10 * DAY).toISOString(), trend: initialTrend(NOW - 10 * DAY), sources: new Set(['trending']), colike: 0, ...fields };
}

function context(fields: Partial<RankContext> = {}): RankContext {
  return { nowMs: NOW, seed: 'seed', taste: new Map(), followedAuthors: new Set(), disliked: new Set(), seen: new Set(), served: new Set(), exclude: new Set(), ...fields };
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

describe('signals', () => {
  it('noise is deterministic per seed and vid, in [0, 1)', () => {
    expect(noise('a', 'v1')).toBe(noise('a', 'v1'));
    expect(noise('a', 'v1')).not.toBe(noise('b', 'v1'));
    for (let i = 0; i < 200; i++) {
      const n = noise(`s${i}`, 'v');
      expect(n >= 0 && n < 1).toBe(true);
    }
  });

  it('taste affinity is relative to the strongest tag and clamped to [-1, 1]', () => {
    const taste = new Map([
      ['robotics', 6],
      ['logistics', 3],
      ['aerospace', -9],
    ]);
    expect(tasteAffinity(['robotics'], taste)).toBe(1);
    expect(tasteAffinity(['logistics'], taste)).toBe(0.5);
    expect(tasteAffinity(['robotics', 'logistics'], taste)).toBe(1);
    expect(tasteAffinity(['aerospace'], taste)).toBe(-1);
    expect(tasteAffinity(['unknown'], taste)).toBe(0);
    expect(tasteAffinity(['robotics'], new Map())).toBe(0);
  });

  it('merges candidates by vid, keeping every source', () => {
    const pool = new CandidatePool();
    pool.add({ vid: 'a', author_openid: 'x', tags: [], created_at: '2026-01-01T00:00:00Z', trend: 1 }, 'trending');
    pool.add({ vid: 'a', author_openid: 'x', tags: [], created_at: '2026-01-01T00:00:00Z', trend: 0, colike: 4 }, 'colike');
    expect(pool.size).toBe(1);
    expect(pool.values()[0]).toMatchObject({ vid: 'a', trend: 1, colike: 4, sources: new Set(['trending', 'colike']) });
  });
});

describe('ranking', () => {
  it('leaves out disliked and excluded videos', () => {
    const ranked = rankCandidates([candidate('a'), candidate('b'), candidate('c')], context({ disliked: new Set(['a']), exclude: new Set(['c']) }), true);
    expect(order(ranked)).toEqual(['b']);
  });

  it('puts unseen before handed-out before seen, whatever the scores', () => {
    const ctx = context({ seen: new Set(['hot']), served: new Set(['warm']) });
    const ranked = rankCandidates(
      [candidate('hot', { trend: initialTrend(NOW, 1000) }), candidate('warm', { trend: initialTrend(NOW, 500) }), candidate('cold', { trend: initialTrend(NOW - 50 * DAY) })],
      ctx,
      true,
    );
    expect(order(ranked)).toEqual(['cold', 'warm', 'hot']);
    expect(tierOf('hot', ctx)).toBe(2);
    expect(tierOf('warm', ctx)).toBe(1);
  });

  it('follows the taste, co-likes, follows, trend and freshness', () => {
    const base = [candidate('plain'), candidate('liked-topic', { tags: ['robotics'] })];
    expect(order(rankCandidates(base, context({ taste: new Map([['robotics', 5]]) }), true))[0]).toBe('liked-topic');
    expect(order(rankCandidates([candidate('plain'), candidate('coliked', { colike: 3 })], context(), true))[0]).toBe('coliked');
    expect(order(rankCandidates([candidate('plain'), candidate('followed')], context({ followedAuthors: new Set(['author-followed']) }), true))[0]).toBe('followed');
    expect(order(rankCandidates([candidate('plain'), candidate('hot', { trend: initialTrend(NOW - 10 * DAY, 400) })], context(), false))[0]).toBe('hot');
    expect(order(rankCandidates([candidate('plain'), candidate('new', { created_at: new Date(NOW).toISOString(), trend: initialTrend(NOW - 10 * DAY) })], context(), false))[0]).toBe('new');
  });

  it('for "more like this" ranks videos sharing a tag first, even when others are hotter', () => {
    const ctx = context({ similarTo: { vid: 'x', tags: ['robotics', 'expo'], author_openid: 'someone' }, exclude: new Set(['x']) });
    const ranked = rankCandidates(
      [
        candidate('x', { tags: ['robotics'] }),
        candidate('unrelated-hot', { tags: ['aerospace'], trend: initialTrend(NOW, 10_000), colike: 50 }),
        candidate('one-tag', { tags: ['expo', 'logistics'] }),
        candidate('two-tags', { tags: ['robotics', 'expo'] }),
      ],
      ctx,
      true,
    );
    expect(order(ranked)).toEqual(['two-tags', 'one-tag', 'unrelated-hot']);
    expect(ranked.map((s) => s.related)).toEqual([true, true, false]);
  });
});

describe('picking a list', () => {
  const byAuthor = (vid: string, author: string, tier: 0 | 1 | 2 = 0) => ({ candidate: candidate(vid, { author_openid: author }), score: 0, tier, related: false });

  it('takes at most two videos per author while others are available, keeping the ranked order', () => {
    const ranked = [byAuthor('a1', 'A'), byAuthor('a2', 'A'), byAuthor('a3', 'A'), byAuthor('b1', 'B'), byAuthor('a4', 'A'), byAuthor('c1', 'C')];
    expect(order(selectList(ranked, 4))).toEqual(['a1', 'a2', 'b1', 'c1']);
  });

  it('takes more of one author when nobody else is left', () => {
    const ranked = [byAuthor('a1', 'A'), byAuthor('a2', 'A'), byAuthor('a3', 'A'), byAuthor('b1', 'B')];
    expect(order(selectList(ranked, 4))).toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it('takes a third unseen video of an author before any seen video', () => {
    const ranked = [byAuthor('a1', 'A'), byAuthor('a2', 'A'), byAuthor('a3', 'A'), byAuthor('s1', 'S', 2)];
    expect(order(selectList(ranked, 3))).toEqual(['a1', 'a2', 'a3']);
    expect(order(selectList(ranked, 4))).toEqual(['a1', 'a2', 'a3', 's1']);
  });

  it('counts the authors of videos placed before the list (the shared video)', () => {
    const ranked = [byAuthor('a1', 'A'), byAuthor('a2', 'A'), byAuthor('b1', 'B')];
    expect(order(selectList(ranked, 2, ['A']))).toEqual(['a1', 'b1']);
  });
});
