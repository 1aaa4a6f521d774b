import type { TagFrequencies } from '../../entities/catalog/tag-stats.js';

/**
 * Taste that discriminates (docs/feed.md, "Taste"). Pure: no I/O.
 *
 * How much a tag tells about the caller is how much MORE often it is on what they liked and watched
 * than on the catalog at large: its lift, share in the taste / share in the catalog. The taste
 * share of a tag is its decayed weight t over the weight of all positive events W (a like weighs 3,
 * a view 0.5; lib/features/recommend/feed-state.ts), smoothed towards the catalog share p = (df + 1) /
 * (N + 1) with the strength of TASTE_MODEL.priorWeight (two likes): lift = ((t + m p) / (W + m)) / p.
 * A tag on most videos ("expo" on 73 %) is on about as many liked videos: lift about 1, weight 0.
 * So is a format tag that is on a third of the catalog and of the likes alike. A topic tag on 8 % of
 * the catalog and on most likes: lift about 9. The profile weight is ln(lift) (0 below 1) times the
 * evidence behind it, t / (t + TASTE_MODEL.priorWeight): one like of a rare tag is a big lift on little evidence
 * (a third of its weight), eight likes of a topic are not (four fifths). It is scaled so that the
 * strongest tag weighs 1, or less when even the strongest tells little (TASTE_MODEL.fullWeight); a tag whose weight is negative (disliked more than liked) gets
 * ln(m p / (m p + |t|)), a penalty. A video's taste score is the SUM of its tags' profile weights:
 * it grows with every matching tag and never caps, and tags that say nothing add nothing.
 */
export type { TagFrequencies };

export const TASTE_MODEL = {
  /** Smoothing of a tag's taste share towards its catalog share, in taste weight (a like weighs 3); also the evidence that earns half of a lift. */
  priorWeight: 6,
  /**
   * The profile weight that counts fully (weight 1): a tag about 6.5 times as frequent among the
   * caller's likes as in the catalog, on good evidence (ln 6.5 x 0.8). A profile whose strongest tag
   * tells less (broad, genre-like tags) keeps its smaller weights, so that such tags do not outvote
   * what the learned model knows.
   */
  fullWeight: 1.5,
};

/** Share of the catalog carrying a tag (add-one smoothed, never 0). */
const catalogShare = (stats: TagFrequencies, tag: string) => (Math.min(stats.df.get(tag) ?? 0, stats.total) + 1) / (stats.total + 1);

export function idf(df: number, total: number): number {
  return Math.max(0, Math.log((total + 1) / (Math.min(df, total) + 1)));
}

/** The idf of each tag of a catalog; every tag weighs 1 while the catalog's counters are unknown (a store from before them). */
export const idfOf =
  (stats: TagFrequencies) =>
  (tag: string): number =>
    stats.total > 0 ? idf(stats.df.get(tag) ?? 0, stats.total) : 1;

/**
 * Profile weight per tag from the raw weights `raw` (tag -> t) and their positive total `total` (W),
 * scaled so that the strongest weighs 1 (or less: TASTE_MODEL.fullWeight). Without catalog counters (a store from before them) the
 * raw weights are used as they are.
 */
export function tasteProfile(raw: ReadonlyMap<string, number>, total: number, stats: TagFrequencies): Map<string, number> {
  const profile = new Map<string, number>();
  let strongest = 0;
  let W = total;
  for (const w of raw.values()) W = Math.max(W, w);
  for (const [tag, t] of raw) {
    let v: number;
    if (stats.total <= 0) v = t;
    // A tag whose count was not read (beyond the strongest MAX_TAGS_PER_READ) is left out, not taken for a rare one.
    else if (!stats.df.has(tag)) continue;
    else {
      const m = TASTE_MODEL.priorWeight * catalogShare(stats, tag);
      v = t > 0 ? Math.max(0, Math.log((t + m) / (W + TASTE_MODEL.priorWeight) / catalogShare(stats, tag))) * (t / (t + TASTE_MODEL.priorWeight)) : Math.log(m / (m - t));
    }
    if (v === 0 || !Number.isFinite(v)) continue;
    profile.set(tag, v);
    strongest = Math.max(strongest, v);
  }
  if (strongest <= 0) return new Map();
  // Raw weights (no counters) are on another scale: the strongest is 1 there.
  const scale = stats.total > 0 ? Math.max(strongest, TASTE_MODEL.fullWeight) : strongest;
  for (const [tag, v] of profile) profile.set(tag, v / scale);
  return profile;
}

/** Sum of the profile weights of the video's (distinct) tags. */
export function tasteScore(tags: readonly string[], profile: ReadonlyMap<string, number>): number {
  let score = 0;
  for (const tag of new Set(tags)) score += profile.get(tag) ?? 0;
  return score;
}

/**
 * The caller's most distinctive tags, strongest first: positive profile weight, and a tag ranking
 * worth reading (`usable`, e.g. on at least two videos: a tag on one video offers nothing beyond it).
 */
export function distinctiveTags(profile: ReadonlyMap<string, number>, n: number, usable: (tag: string) => boolean = () => true): string[] {
  return [...profile.entries()]
    .filter(([tag, w]) => w > 0 && usable(tag))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([tag]) => tag);
}

/**
 * "More like this": the share of the reference video's tag information (sum of idf^2 over its tags)
 * that a candidate carries too, in [0, 1]. Sharing a topic tag counts, sharing "expo" hardly does.
 */
export function tagSimilarity(tags: readonly string[], reference: readonly string[], tagIdf: (tag: string) => number): number {
  const ref = new Set(reference);
  let total = 0;
  for (const tag of ref) total += tagIdf(tag) ** 2;
  if (total <= 0) return 0;
  let shared = 0;
  for (const tag of new Set(tags)) if (ref.has(tag)) shared += tagIdf(tag) ** 2;
  return shared / total;
}
