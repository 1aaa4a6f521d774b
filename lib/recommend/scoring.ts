import { hotness } from '../catalog/trend.js';

/**
 * Pure ranking of get_next_list (docs/feed.md): candidates from several sources are merged by vid,
 * scored by weighted signals, put in tiers (unseen before seen), and picked with a per-author cap.
 * No I/O here: the unit tests drive it directly.
 */
export type Source = 'trending' | 'fresh' | 'tag' | 'colike' | 'follow' | 'author';

export interface Candidate {
  vid: string;
  author_openid: string;
  tags: string[];
  created_at: string;
  /** Stored trend score (0 when the source does not carry it). */
  trend: number;
  sources: Set<Source>;
  /** How often the caller's latest likes (or the "more like this" video) were liked together with it. */
  colike: number;
}

/** Merges candidates by vid: sources add up, the highest trend and co-like count win. */
export class CandidatePool {
  readonly byVid = new Map<string, Candidate>();

  add(candidate: Omit<Candidate, 'sources' | 'colike'> & { colike?: number }, source: Source): void {
    if (!candidate.vid || !candidate.author_openid) return;
    const existing = this.byVid.get(candidate.vid);
    if (existing) {
      existing.sources.add(source);
      existing.trend = Math.max(existing.trend, candidate.trend);
      existing.colike = Math.max(existing.colike, candidate.colike ?? 0);
      return;
    }
    this.byVid.set(candidate.vid, {
      vid: candidate.vid,
      author_openid: candidate.author_openid,
      tags: candidate.tags ?? [],
      created_at: candidate.created_at,
      trend: candidate.trend,
      sources: new Set([source]),
      colike: candidate.colike ?? 0,
    });
  }

  get size(): number {
    return this.byVid.size;
  }

  values(): Candidate[] {
    return [...this.byVid.values()];
  }
}

/** 0 = unseen and not yet handed out since the last refresh, 1 = handed out but not viewed, 2 = seen (or liked) recently. */
export type Tier = 0 | 1 | 2;

export interface RankContext {
  nowMs: number;
  /** Varies the exploration noise per call; the same seed ranks the same way. */
  seed: string;
  /** Current taste weight per tag (may be negative). */
  taste: Map<string, number>;
  followedAuthors: Set<string>;
  disliked: Set<string>;
  seen: Set<string>;
  served: Set<string>;
  /** Never returned (the "more like this" video, the shared video placed first). */
  exclude: Set<string>;
  /** "More like this": the video the list is about. */
  similarTo?: { vid: string; tags: string[]; author_openid: string };
}

export interface Scored {
  candidate: Candidate;
  score: number;
  tier: Tier;
  /** Shares at least one tag with the "more like this" video. */
  related: boolean;
}

export const WEIGHTS = {
  /** Signed-in callers: taste, co-likes and follows personalize; trend and freshness keep it lively. */
  personal: { tag: 0.35, colike: 0.2, follow: 0.15, trend: 0.15, fresh: 0.1, noise: 0.05 },
  /** Anonymous callers: what is hot, what is new, and some exploration. */
  anonymous: { tag: 0, colike: 0, follow: 0, trend: 0.55, fresh: 0.3, noise: 0.15 },
  /** "More like this": tag overlap first, then co-likes, the same author, trend and freshness. */
  similar: { overlap: 0.45, colike: 0.25, sameAuthor: 0.1, trend: 0.1, fresh: 0.08, noise: 0.02 },
};
export const FRESH_HALF_LIFE_DAYS = 7;
export const FOLLOW_HALF_LIFE_DAYS = 14;
export const AUTHOR_CAP = 2;
const DAY_MS = 86_400_000;

/** FNV-1a over seed and vid, scaled to [0, 1): deterministic exploration noise. */
export function noise(seed: string, vid: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}:${vid}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

const ageDays = (createdAt: string, nowMs: number) => Math.max(0, (nowMs - Date.parse(createdAt)) / DAY_MS);
const decay = (days: number, halfLife: number) => 2 ** (-days / halfLife);
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** How well the tags fit the taste: the sum of their weights relative to the strongest tag, in [-1, 1]. */
export function tasteAffinity(tags: string[], taste: Map<string, number>): number {
  let max = 0;
  for (const w of taste.values()) if (w > max) max = w;
  if (max <= 0) return 0;
  let sum = 0;
  for (const tag of new Set(tags)) sum += taste.get(tag) ?? 0;
  return clamp(sum / max, -1, 1);
}

export function tierOf(vid: string, ctx: Pick<RankContext, 'seen' | 'served'>): Tier {
  if (ctx.seen.has(vid)) return 2;
  if (ctx.served.has(vid)) return 1;
  return 0;
}

/** Scores and orders the candidates: by tier, then (more like this) related first, then score. */
export function rankCandidates(candidates: Candidate[], ctx: RankContext, personal: boolean): Scored[] {
  const pool = candidates.filter((c) => !ctx.disliked.has(c.vid) && !ctx.exclude.has(c.vid));
  let maxHot = 0;
  let maxColike = 0;
  for (const c of pool) {
    maxHot = Math.max(maxHot, hotness(c.trend, ctx.nowMs));
    maxColike = Math.max(maxColike, c.colike);
  }
  const trendNorm = (c: Candidate) => (maxHot > 0 ? Math.log1p(hotness(c.trend, ctx.nowMs)) / Math.log1p(maxHot) : 0);
  const colikeNorm = (c: Candidate) => (maxColike > 0 ? c.colike / maxColike : 0);
  const similar = ctx.similarTo;
  const similarTags = new Set(similar?.tags ?? []);

  const scored = pool.map((c): Scored => {
    const age = ageDays(c.created_at, ctx.nowMs);
    const fresh = decay(age, FRESH_HALF_LIFE_DAYS);
    const n = noise(ctx.seed, c.vid);
    let score: number;
    let related = false;
    if (similar) {
      const w = WEIGHTS.similar;
      const tags = new Set(c.tags);
      const shared = [...tags].filter((t) => similarTags.has(t)).length;
      const union = new Set([...tags, ...similarTags]).size;
      related = shared > 0;
      score =
        w.overlap * (union > 0 ? shared / union : 0) +
        w.colike * colikeNorm(c) +
        w.sameAuthor * (c.author_openid === similar.author_openid ? 1 : 0) +
        w.trend * trendNorm(c) +
        w.fresh * fresh +
        w.noise * n;
    } else {
      const w = personal ? WEIGHTS.personal : WEIGHTS.anonymous;
      const follow = ctx.followedAuthors.has(c.author_openid) ? decay(age, FOLLOW_HALF_LIFE_DAYS) : 0;
      score =
        w.tag * tasteAffinity(c.tags, ctx.taste) +
        w.colike * colikeNorm(c) +
        w.follow * follow +
        w.trend * trendNorm(c) +
        w.fresh * fresh +
        w.noise * n;
    }
    return { candidate: c, score, tier: tierOf(c.vid, ctx), related };
  });
  return scored.sort(
    (a, b) =>
      a.tier - b.tier ||
      Number(b.related) - Number(a.related) ||
      b.score - a.score ||
      (a.candidate.vid < b.candidate.vid ? -1 : 1),
  );
}

/**
 * Picks `count` from the ranked list: unseen before seen; within each, at most AUTHOR_CAP per
 * author first, and more of one author only when nobody else is left. `preCounted` are authors of
 * videos already placed (the shared video). The result keeps the ranked order.
 */
export function selectList(ranked: Scored[], count: number, preCounted: string[] = [], cap = AUTHOR_CAP): Scored[] {
  const perAuthor = new Map<string, number>();
  for (const a of preCounted) perAuthor.set(a, (perAuthor.get(a) ?? 0) + 1);
  const chosen = new Set<number>();
  const groups = [ranked.map((s, i) => ({ s, i })).filter(({ s }) => s.tier < 2), ranked.map((s, i) => ({ s, i })).filter(({ s }) => s.tier === 2)];
  for (const group of groups) {
    for (const capped of [true, false]) {
      for (const { s, i } of group) {
        if (chosen.size >= count) break;
        if (chosen.has(i)) continue;
        const n = perAuthor.get(s.candidate.author_openid) ?? 0;
        if (capped && n >= cap) continue;
        chosen.add(i);
        perAuthor.set(s.candidate.author_openid, n + 1);
      }
    }
  }
  return [...chosen].sort((a, b) => a - b).map((i) => ranked[i]!);
}
