import { hotness } from '../../entities/catalog/trend.js';
import { tagSimilarity, tasteScore } from './taste.js';

/**
 * Pure ranking of get_next_list (docs/feed.md, "rec: candidates, scores, the page"): candidates
 * from several sources are merged by vid, scored relevance first, put in tiers (unseen before
 * seen), and composed into a page with reserved places (new videos of followed authors,
 * exploration) and a per-author cap. No I/O here: the unit tests drive it directly.
 */
export type Source = 'trending' | 'fresh' | 'tag' | 'neighbour' | 'follow' | 'author';

export interface Candidate {
  vid: string;
  author_openid: string;
  tags: string[];
  created_at: string;
  /** Stored trend score (0 when the source does not carry it). */
  trend: number;
  sources: Set<Source>;
  /**
   * The learned model's score: the sum of its similarities to the caller's latest likes (to the
   * "more like this" video), from their neighbour lists (lib/features/recommend/neighbours.ts); 0 if none.
   */
  cf: number;
}

/** Merges candidates by vid: sources add up, the highest trend and model score win. */
export class CandidatePool {
  readonly byVid = new Map<string, Candidate>();

  add(candidate: Omit<Candidate, 'sources' | 'cf'> & { cf?: number }, source: Source): void {
    if (!candidate.vid || !candidate.author_openid) return;
    const existing = this.byVid.get(candidate.vid);
    if (existing) {
      existing.sources.add(source);
      existing.trend = Math.max(existing.trend, candidate.trend);
      existing.cf = Math.max(existing.cf, candidate.cf ?? 0);
      return;
    }
    this.byVid.set(candidate.vid, {
      vid: candidate.vid,
      author_openid: candidate.author_openid,
      tags: candidate.tags ?? [],
      created_at: candidate.created_at,
      trend: candidate.trend,
      sources: new Set([source]),
      cf: candidate.cf ?? 0,
    });
  }

  get size(): number {
    return this.byVid.size;
  }

  values(): Candidate[] {
    return [...this.byVid.values()];
  }
}

/** 0 = unseen and not yet handed out since the last refresh, 1 = handed out but not viewed, 2 = seen recently, 3 = liked (ever). */
export type Tier = 0 | 1 | 2 | 3;

export type RankMode = 'personal' | 'anonymous' | 'similar';

export interface RankContext {
  nowMs: number;
  /** Varies the exploration noise per call; the same seed ranks the same way. */
  seed: string;
  /** The caller's taste profile (taste.ts: idf-weighted, strongest tag 1; may hold negative weights). */
  profile: ReadonlyMap<string, number>;
  /** idf per tag ("more like this" similarity). */
  tagIdf: (tag: string) => number;
  followedAuthors: Set<string>;
  disliked: Set<string>;
  /** Authors the caller blocked: their videos are dropped (docs/moderation.md, "Blocking"). */
  blocked: ReadonlySet<string>;
  seen: Set<string>;
  /** Liked by the caller, ever (the liked chunks' hashes): the last tier. */
  liked: (vid: string) => boolean;
  served: Set<string>;
  /** Never returned (the "more like this" video, the shared video placed first). */
  exclude: Set<string>;
  /** "More like this": the video the list is about. */
  similarTo?: { vid: string; tags: string[]; author_openid: string };
  /**
   * How much the caller did that the model has lists for: 1 per latest like with a list, the view
   * weight per view with one (rec.ts). The model's share of relevance grows with it (modelWeight).
   */
  modelEvidence?: number;
}

export interface Scored {
  candidate: Candidate;
  /** What ranks the candidate: relevance plus the small tie-breakers. */
  score: number;
  /** Taste, the learned model and follows (personal) or tag similarity and the model (more like this); 0 for anonymous callers. */
  relevance: number;
  tier: Tier;
  /** Popularity: log(1 + decayed likes) relative to the most popular candidate, 0..1. */
  trend: number;
}

/**
 * Relevance comes first; popularity, freshness and noise only break near-ties (their weights add up
 * to less than the gap between a video of the caller's strongest tag and one that shares only a
 * generic tag with the taste).
 */
const WEIGHTS = {
  personal: { follow: 0.2, trend: 0.3, fresh: 0.05, noise: 0.03 },
  /** Anonymous callers: what is hot, what is new, and some exploration. */
  anonymous: { trend: 0.55, fresh: 0.3, noise: 0.15 },
  similar: { cf: 0.5, sameAuthor: 0.1, trend: 0.1, fresh: 0.05, noise: 0.02 },
  /** Exploration places go to the unseen candidates that score best on this, among the non-relevant. */
  explore: { trend: 0.6, fresh: 0.3, noise: 0.1 },
};
/**
 * The blend of taste and the learned model (docs/feed.md, "The blend"): the model's weight grows from
 * `min` towards `max` with the caller's evidence e (modelEvidence) as e / (e + half); tags weigh 1
 * (the strongest tag of the taste), so with little evidence tags and follows carry the page.
 */
export const BLEND = { min: 0.5, max: 6, half: 3 };
export const modelWeight = (evidence: number) => BLEND.min + ((BLEND.max - BLEND.min) * evidence) / (evidence + BLEND.half);
const FRESH_HALF_LIFE_DAYS = 7;
const FOLLOW_HALF_LIFE_DAYS = 14;
const AUTHOR_CAP = 2;
export const PAGE = {
  /** Share of a personalised page reserved for exploration (half a place of 10: one place every other call), and the relevance below which a candidate explores. */
  exploreShare: 0.05,
  exploreMaxRelevance: 0.25,
  /** Share of a page reserved for new videos of followed authors. */
  followShare: 0.3,
};
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

export function tierOf(vid: string, ctx: Pick<RankContext, 'seen' | 'served' | 'liked'>): Tier {
  if (ctx.liked(vid)) return 3;
  if (ctx.seen.has(vid)) return 2;
  if (ctx.served.has(vid)) return 1;
  return 0;
}

/** Scores and orders the candidates: by tier, then score. Disliked and excluded videos, and blocked authors' videos, are dropped. */
export function rankCandidates(candidates: Candidate[], ctx: RankContext, mode: RankMode): Scored[] {
  const pool = candidates.filter((c) => !ctx.disliked.has(c.vid) && !ctx.exclude.has(c.vid) && !ctx.blocked.has(c.author_openid));
  let maxHot = 0;
  let maxCf = 0;
  for (const c of pool) {
    maxHot = Math.max(maxHot, hotness(c.trend, ctx.nowMs));
    maxCf = Math.max(maxCf, c.cf);
  }
  const trendNorm = (c: Candidate) => (maxHot > 0 ? Math.log1p(hotness(c.trend, ctx.nowMs)) / Math.log1p(maxHot) : 0);
  const cfNorm = (c: Candidate) => (maxCf > 0 ? c.cf / maxCf : 0);
  const similar = ctx.similarTo;
  const cfWeight = modelWeight(ctx.modelEvidence ?? 0);

  const scored = pool.map((c): Scored => {
    const age = ageDays(c.created_at, ctx.nowMs);
    const fresh = decay(age, FRESH_HALF_LIFE_DAYS);
    const n = noise(ctx.seed, c.vid);
    let relevance = 0;
    let score: number;
    if (mode === 'similar' && similar) {
      const w = WEIGHTS.similar;
      relevance = tagSimilarity(c.tags, similar.tags, ctx.tagIdf) + w.cf * cfNorm(c) + w.sameAuthor * (c.author_openid === similar.author_openid ? 1 : 0);
      score = relevance + w.trend * trendNorm(c) + w.fresh * fresh + w.noise * n;
    } else if (mode === 'personal') {
      const w = WEIGHTS.personal;
      const follow = ctx.followedAuthors.has(c.author_openid) ? decay(age, FOLLOW_HALF_LIFE_DAYS) : 0;
      relevance = tasteScore(c.tags, ctx.profile) + cfWeight * cfNorm(c) + w.follow * follow;
      score = relevance + w.trend * trendNorm(c) + w.fresh * fresh + w.noise * n;
    } else {
      const w = WEIGHTS.anonymous;
      score = w.trend * trendNorm(c) + w.fresh * fresh + w.noise * n;
    }
    return { candidate: c, score, relevance, tier: tierOf(c.vid, ctx), trend: trendNorm(c) };
  });
  return scored.sort((a, b) => a.tier - b.tier || b.score - a.score || (a.candidate.vid < b.candidate.vid ? -1 : 1));
}

export interface PageRules {
  count: number;
  /** Reserved: unseen videos of followed authors that are new to the caller, placed first, newest first. */
  followNew?: ReadonlySet<string>;
  /** Places for exploration (the best unseen non-relevant candidates by WEIGHTS.explore), placed last. */
  explore?: number;
  /** Authors of videos already placed before this page (the shared video). */
  preCounted?: string[];
  cap?: number;
  nowMs: number;
  seed: string;
}

export interface Page {
  picked: Scored[];
  /** Reserved follow videos that did not fit (page full or author cap): reserved again next call. */
  followLeft: Scored[];
}

/** How many places of a page of `count` the reserved follows and exploration may take. */
export const followPlaces = (count: number) => Math.max(1, Math.round(count * PAGE.followShare));
/** Exploration places of a page: the share of `count`, its fraction drawn per call (0.5 of a place: every other call). */
export function explorePlaces(count: number, seed: string): number {
  const places = count * PAGE.exploreShare;
  return Math.floor(places) + (noise(seed, 'explore') < places - Math.floor(places) ? 1 : 0);
}

/**
 * Composes the page from the ranked candidates:
 * 1. reserved follows (newest first when more than followPlaces wait, within the author cap);
 * 2. exploration picks, kept for the end of the page;
 * 3. the rest by score, tier by tier (never handed out, then handed out but not viewed, then seen,
 *    then liked);
 *    within a tier at most `cap` per author first, more of one author only when nobody else is left
 *    in it: a video the caller was already given comes again only once nothing new is left, whatever
 *    its author.
 * The page: the reserved follows and the other unseen picks by score, the exploration, then seen
 * and liked ones.
 */
export function composePage(ranked: Scored[], rules: PageRules): Page {
  const cap = rules.cap ?? AUTHOR_CAP;
  const perAuthor = new Map<string, number>();
  for (const a of rules.preCounted ?? []) perAuthor.set(a, (perAuthor.get(a) ?? 0) + 1);
  const taken = new Set<string>();
  const authorOf = (s: Scored) => s.candidate.author_openid;
  const room = (s: Scored, limit: number) => (perAuthor.get(authorOf(s)) ?? 0) < limit;
  const take = (s: Scored) => {
    taken.add(s.candidate.vid);
    perAuthor.set(authorOf(s), (perAuthor.get(authorOf(s)) ?? 0) + 1);
  };

  const follows: Scored[] = [];
  const followLeft: Scored[] = [];
  const reserved = ranked.filter((s) => s.tier === 0 && rules.followNew?.has(s.candidate.vid)).sort((a, b) => (a.candidate.created_at < b.candidate.created_at ? 1 : a.candidate.created_at > b.candidate.created_at ? -1 : 0));
  const followLimit = Math.min(rules.count, followPlaces(rules.count));
  for (const s of reserved) {
    if (follows.length < followLimit && room(s, cap)) {
      follows.push(s);
      take(s);
    } else followLeft.push(s);
  }

  const exploring: Scored[] = [];
  const wanted = Math.min(rules.explore ?? 0, rules.count - follows.length);
  if (wanted > 0) {
    const w = WEIGHTS.explore;
    const exploreScore = (s: Scored) => w.trend * s.trend + w.fresh * decay(ageDays(s.candidate.created_at, rules.nowMs), FRESH_HALF_LIFE_DAYS) + w.noise * noise(rules.seed, `x${s.candidate.vid}`);
    const options = ranked.filter((s) => s.tier === 0 && !taken.has(s.candidate.vid) && s.relevance <= PAGE.exploreMaxRelevance).sort((a, b) => exploreScore(b) - exploreScore(a));
    for (const s of options) {
      if (exploring.length >= wanted) break;
      if (!room(s, cap)) continue;
      exploring.push(s);
      take(s);
    }
  }

  const main: Scored[] = [];
  const slots = rules.count - follows.length - exploring.length;
  const tiers = [0, 1, 2, 3];
  const byTier = tiers.map((tier) => ranked.filter((s) => s.tier === tier));
  // Tier by tier; within each, everyone within the cap first, then more of one author.
  for (const tier of tiers) {
    for (const limit of [cap, Infinity]) {
      while (main.length < slots) {
        // Ranked order: the first that fits is the best.
        const best = byTier[tier]!.find((s) => !taken.has(s.candidate.vid) && room(s, limit));
        if (!best) break;
        main.push(best);
        take(best);
      }
    }
  }
  // The page in order of expected relevance: the reserved follows take their places among the other
  // unseen picks by score (their place on the page is kept, not its top); the exploration picks
  // after them (they are there for what the taste does not explain), then seen and liked videos.
  // A page short of unseen candidates gives the unused exploration places back to nobody.
  const unseen = [...follows, ...main.filter((s) => s.tier < 2)].sort((a, b) => a.tier - b.tier || b.score - a.score);
  return { picked: [...unseen, ...exploring, ...main.filter((s) => s.tier >= 2)], followLeft };
}
