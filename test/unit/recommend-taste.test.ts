import { describe, expect, it } from 'vitest';
import { tagDeltas } from '../../lib/entities/catalog/tag-stats.js';
import { distinctiveTags, idf, idfOf, tagSimilarity, TASTE_MODEL, tasteProfile, tasteScore } from '../../lib/features/recommend/taste.js';

/** Catalog counters: `total` videos, `df` per tag. */
const catalog = (total: number, df: Record<string, number>) => ({ total, df: new Map(Object.entries(df)) });

describe('tag weights', () => {
  it('idf falls as a tag covers more of the catalog, to 0 for a tag on every video', () => {
    expect(idf(0, 300)).toBeCloseTo(Math.log(301), 12);
    expect(idf(25, 300)).toBeGreaterThan(2 * idf(150, 300));
    expect(idf(300, 300)).toBe(0);
    expect(idf(400, 300)).toBe(0);
    // Without counters (a store from before them) every tag weighs the same.
    expect(idfOf(catalog(0, {}))('anything')).toBe(1);
  });

  it('counts a video\'s tags once per change: +1 added, -1 removed, 0 kept', () => {
    expect(tagDeltas(['a', 'b'], ['b', 'c', 'c'])).toEqual(
      new Map([
        ['a', -1],
        ['b', 0],
        ['c', 1],
      ]),
    );
  });
});

describe('taste profile', () => {
  // The controlled case: 10 topics x 10 videos, every one tagged [topic, "expo"].
  const controlled = catalog(100, { solar: 10, wind: 10, expo: 100 });

  it('after 4 likes of [solar, expo], solar carries the taste and expo nothing', () => {
    const profile = tasteProfile(new Map([['solar', 12], ['expo', 12]]), 12, controlled);
    // Lift about 6.5 ((12 + 6p) / 18 / p, p = 11/101 the smoothed catalog share) on the evidence of 4
    // likes (12 / 18): ln 6.5 x 2/3, short of a full weight.
    const p = 11 / 101;
    const solar = (Math.log((12 + 6 * p) / 18 / p) * 2) / 3 / TASTE_MODEL.fullWeight;
    expect(profile.get('solar')).toBeCloseTo(solar, 12);
    expect(profile.get('expo') ?? 0).toBe(0);
    expect(tasteScore(['solar', 'expo'], profile)).toBeCloseTo(solar, 12);
    // An off-topic video that shares the generic tag is not on a par with an on-topic one: no saturation.
    expect(tasteScore(['wind', 'expo'], profile)).toBe(0);
  });

  it('broad, genre-like tags keep small weights: even the strongest tells little', () => {
    // 20 likes (W = 60): "drama" on 14 of them and on 37 % of the catalog; "comedy" on 8 and 35 %.
    const stats = catalog(300, { drama: 111, comedy: 105 });
    const profile = tasteProfile(new Map([['drama', 42], ['comedy', 24]]), 60, stats);
    expect(profile.get('drama')!).toBeLessThan(0.5);
    expect(profile.get('drama')!).toBeGreaterThan(profile.get('comedy') ?? 0);
    // A topic tag with the same evidence on 8 % of the catalog counts fully.
    expect(tasteProfile(new Map([['topic', 42]]), 60, catalog(300, { topic: 24 })).get('topic')).toBe(1);
  });

  it('a generic tag as common among the likes as in the catalog weighs nothing; a topic tag on most likes weighs most', () => {
    // 10 likes (W = 30): 8 of the topic (8 % of the catalog), 7 with "expo" (73 %), 3 with "2026" (30 %).
    const stats = catalog(300, { construction: 24, expo: 219, '2026': 90 });
    const profile = tasteProfile(new Map([['construction', 24], ['expo', 21], ['2026', 9]]), 30, stats);
    expect(profile.get('construction')).toBe(1);
    expect(profile.get('expo') ?? 0).toBe(0);
    expect(profile.get('2026') ?? 0).toBeLessThan(0.05);
    expect(distinctiveTags(profile, 2)).toEqual(['construction']);
  });

  it('one like of a rare tag weighs less than many likes of a topic: lift times evidence', () => {
    const stats = catalog(300, { robotics: 25, 'robotics-welding': 5, 'solar-inverters': 5 });
    const profile = tasteProfile(new Map([['robotics', 24], ['robotics-welding', 6], ['solar-inverters', 3]]), 30, stats);
    expect(profile.get('robotics')).toBe(1);
    expect(profile.get('solar-inverters')!).toBeLessThan(0.5);
    expect(profile.get('robotics-welding')!).toBeGreaterThan(profile.get('solar-inverters')!);
    const t = 3;
    expect(TASTE_MODEL.priorWeight).toBeGreaterThan(0);
    expect(t / (t + TASTE_MODEL.priorWeight)).toBeLessThan(0.5);
  });

  it('a disliked tag weighs less than nothing', () => {
    const stats = catalog(300, { robotics: 25, aerospace: 25 });
    const profile = tasteProfile(new Map([['robotics', 24], ['aerospace', -8]]), 27, stats);
    expect(profile.get('aerospace')!).toBeLessThan(0);
    expect(tasteScore(['aerospace', 'robotics'], profile)).toBeLessThan(tasteScore(['robotics'], profile));
    expect(distinctiveTags(profile, 5)).toEqual(['robotics']);
  });

  it('leaves out a tag whose count was not read, rather than taking it for a rare one', () => {
    const profile = tasteProfile(new Map([['robotics', 24], ['unread', 3]]), 27, catalog(300, { robotics: 25 }));
    expect([...profile.keys()]).toEqual(['robotics']);
  });

  it('without catalog counters, the raw weights scaled to the strongest', () => {
    const profile = tasteProfile(new Map([['a', 6], ['b', 3]]), 9, catalog(0, {}));
    expect(profile).toEqual(
      new Map([
        ['a', 1],
        ['b', 0.5],
      ]),
    );
    expect(tasteProfile(new Map(), 0, catalog(100, {}))).toEqual(new Map());
  });

  it('distinctive tags: strongest first, only tags worth reading', () => {
    const profile = new Map([
      ['solar', 1],
      ['rare', 0.9],
      ['storage', 0.5],
      ['disliked', -0.4],
    ]);
    expect(distinctiveTags(profile, 2)).toEqual(['solar', 'rare']);
    expect(distinctiveTags(profile, 2, (t) => t !== 'rare')).toEqual(['solar', 'storage']);
  });
});

describe('"more like this" similarity', () => {
  const tagIdf = (t: string) => ({ robotics: 2.5, 'robotics-welding': 4, expo: 0.3 })[t] ?? 2;

  it('is the share of the video\'s tag information (idf squared) a candidate carries', () => {
    const reference = ['robotics', 'robotics-welding', 'expo'];
    const total = 2.5 ** 2 + 4 ** 2 + 0.3 ** 2;
    expect(tagSimilarity(['robotics', 'robotics-welding', 'expo', 'other'], reference, tagIdf)).toBe(1);
    expect(tagSimilarity(['robotics'], reference, tagIdf)).toBeCloseTo(6.25 / total, 12);
    expect(tagSimilarity(['expo', 'aerospace'], reference, tagIdf)).toBeCloseTo(0.09 / total, 12);
    expect(tagSimilarity(['anything'], [], tagIdf)).toBe(0);
  });
});
