import { growthUnit } from '../catalog/trend.js';
import { UpdateBuilder } from '../db/update-builder.js';

/**
 * The recommender's compact state, one item per account (`hubItems.feedState`) or anonymous device
 * (`hubItems.deviceFeedState`), read with the first request of every get_next_list and written with
 * its last. Its size depends on activity in the last 7 days, never on the catalog:
 *
 * - `t_<tag>`: taste weight per tag, a decayed sum (half-life TASTE_HALF_LIFE_DAYS) kept with ADD:
 *   +3 per like, -4 per dislike, +0.5 per view of a video with that tag. `tw`: the same decayed sum
 *   over the positive events themselves (+3 per like, +0.5 per view), whatever their tags: how
 *   much of the taste a tag holds is t_<tag> / tw (lib/recommend/taste.ts).
 * - `disliked`: string set of every vid the account disliked (exact: changed in the like/dislike
 *   transactions). `lr`: the latest likes `{vid, author_openid, tags, created_at}`, appended by like,
 *   trimmed to LIKED_RECENT_CAP by get_next_list. `cl`: the videos most often liked together with
 *   the account's likes (merged by like from the liked video's co-likes item, top COLIKED_CAP).
 * - `s_<epoch day>`: string sets of the vids viewed that day; days older than SEEN_DAYS are removed.
 * - `served`: vids handed out by rec since the last `cmd=refresh` (capped at SERVED_CAP).
 * - `explore`: where the exploration walk over the newest-first catalog continues (it wraps at the
 *   end). `rv`: the reservoir, the best unseen candidates of the last call (RESERVOIR_CAP), so
 *   unseen videos found once stay candidates until viewed.
 * - `wk_<order>` / `wks_<order>`: the current new/hot/q walk and the vids it deferred as seen.
 * - `fs`: when the previous rec call ran: followed authors' videos created after it are new to the
 *   caller and get reserved places. `fq`: reserved videos that did not fit yet (FOLLOW_QUEUE_CAP).
 */
export const TASTE_HALF_LIFE_DAYS = 14;
export const SEEN_DAYS = 7;
export const LIKED_RECENT_CAP = 20;
export const COLIKED_CAP = 30;
export const RESERVOIR_CAP = 100;
export const SERVED_CAP = 1000;
export const WALK_SKIP_CAP = 2000;
export const FOLLOW_QUEUE_CAP = 20;
/** "New" from a followed author: since the previous rec call, and at most this old (a caller back after weeks is not owed weeks of it). */
export const FOLLOW_NEW_MAX_AGE_MS = 3 * 86_400_000;
export const TASTE = { like: 3, dislike: -4, view: 0.5 };
const DAY_MS = 86_400_000;

export type WalkOrder = 'new' | 'hot' | 'q';

export interface LikedEntry {
  vid: string;
  author_openid: string;
  tags: string[];
  created_at: string;
}

/** A video liked together with the account's likes, `n` times. */
export interface CoLikedEntry extends LikedEntry {
  n: number;
}

/** A compact candidate kept in the reservoir. */
export interface ReservoirEntry {
  vid: string;
  a: string;
  t: string[];
  c: string;
  tr: number;
}

export interface FeedState {
  exists: boolean;
  /** Current (decayed) taste weight per tag. */
  tags: Map<string, number>;
  /** Current (decayed) weight of all positive events (likes, views): the tags' common denominator. */
  tasteTotal: number;
  disliked: Set<string>;
  likedRecent: LikedEntry[];
  coLiked: CoLikedEntry[];
  reservoir: ReservoirEntry[];
  /** Vids viewed in the last SEEN_DAYS days (whole days: a little more, never less). */
  seen: Set<string>;
  /** Day buckets present, to drop the expired ones. */
  seenDays: number[];
  served: Set<string>;
  explore?: string;
  walks: Partial<Record<WalkOrder, { id: string; skipped: string[] }>>;
  /** Followed authors' videos created after this (ISO) are new to the caller. */
  followSince?: string;
  followQueue: ReservoirEntry[];
}

export const tasteUnit = (atMs: number) => growthUnit(atMs, TASTE_HALF_LIFE_DAYS);
export const epochDay = (atMs: number) => Math.floor(atMs / DAY_MS);
const TAG_PREFIX = 't_';
const TASTE_TOTAL = 'tw';
const SEEN_PREFIX = 's_';

export const tagAttribute = (tag: string) => `${TAG_PREFIX}${tag}`;

const asSet = (v: unknown): Set<string> => (v instanceof Set ? new Set([...v].map(String)) : new Set());

export function parseFeedState(item: Record<string, unknown> | undefined, nowMs: number): FeedState {
  const state: FeedState = { exists: !!item, tags: new Map(), tasteTotal: 0, disliked: new Set(), likedRecent: [], coLiked: [], reservoir: [], seen: new Set(), seenDays: [], served: new Set(), walks: {}, followQueue: [] };
  if (!item) return state;
  const unit = tasteUnit(nowMs);
  const oldestDay = epochDay(nowMs) - SEEN_DAYS;
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(TAG_PREFIX) && typeof value === 'number') state.tags.set(name.slice(TAG_PREFIX.length), value / unit);
    else if (name.startsWith(SEEN_PREFIX)) {
      const day = Number(name.slice(SEEN_PREFIX.length));
      if (!Number.isInteger(day)) continue;
      state.seenDays.push(day);
      if (day >= oldestDay) for (const vid of asSet(value)) state.seen.add(vid);
    }
  }
  if (typeof item[TASTE_TOTAL] === 'number') state.tasteTotal = item[TASTE_TOTAL] / unit;
  state.disliked = asSet(item.disliked);
  state.served = asSet(item.served);
  state.likedRecent = Array.isArray(item.lr) ? (item.lr as LikedEntry[]) : [];
  state.coLiked = Array.isArray(item.cl) ? (item.cl as CoLikedEntry[]) : [];
  state.reservoir = Array.isArray(item.rv) ? (item.rv as ReservoirEntry[]) : [];
  if (typeof item.explore === 'string') state.explore = item.explore;
  if (typeof item.fs === 'string') state.followSince = item.fs;
  state.followQueue = Array.isArray(item.fq) ? (item.fq as ReservoirEntry[]) : [];
  for (const order of ['new', 'hot', 'q'] as const) {
    const id = item[`wk_${order}`];
    if (typeof id === 'string') state.walks[order] = { id, skipped: Array.isArray(item[`wks_${order}`]) ? (item[`wks_${order}`] as string[]) : [] };
  }
  return state;
}

/**
 * Folds the co-likes of a just-liked video into the account's list: counts add up per vid, the
 * liked videos themselves are left out, the COLIKED_CAP most frequent stay.
 */
export function mergeCoLiked(current: CoLikedEntry[], added: CoLikedEntry[], liked: Set<string>): CoLikedEntry[] {
  const byVid = new Map<string, CoLikedEntry>();
  for (const e of [...current, ...added]) {
    if (liked.has(e.vid)) continue;
    const prior = byVid.get(e.vid);
    byVid.set(e.vid, prior ? { ...e, n: prior.n + e.n } : e);
  }
  return [...byVid.values()].sort((a, b) => b.n - a.n || (a.created_at < b.created_at ? 1 : -1)).slice(0, COLIKED_CAP);
}

/** Taste changes of one reaction: weight `delta` on each tag of the video, in today's units. */
export function addTaste(update: UpdateBuilder, tags: string[], delta: number, nowMs: number): void {
  const amount = delta * tasteUnit(nowMs);
  for (const tag of new Set(tags)) update.addNumber(tagAttribute(tag), amount);
  if (delta > 0) update.addNumber(TASTE_TOTAL, amount);
}

/** What a get_next_list call changes in the state. */
export interface FeedStateChange {
  viewed: { vid: string; tags: string[] }[];
  served: string[];
  refresh: boolean;
  explore?: string | null;
  reservoir?: ReservoirEntry[];
  /** rec: this call's time (the next call's boundary of "new") and the reserved videos left over. */
  follow?: { since: string; queue: ReservoirEntry[] };
  walk?: { order: WalkOrder; id: string; skipped: string[]; fresh: boolean };
  ttlSeconds?: number;
}

export function feedStateUpdate(state: FeedState, change: FeedStateChange, nowMs: number): UpdateBuilder {
  const u = new UpdateBuilder();
  u.setValue('updated_at', new Date(nowMs).toISOString()).setValue('entity', 'feed_state');
  if (change.ttlSeconds) u.setValue('ttl', Math.floor(nowMs / 1000) + change.ttlSeconds);
  const today = epochDay(nowMs);
  u.addToSet(`${SEEN_PREFIX}${today}`, change.viewed.map((v) => v.vid));
  for (const day of state.seenDays) if (day < today - SEEN_DAYS) u.removeAttribute(`${SEEN_PREFIX}${day}`);
  const tagDeltas = new Map<string, number>();
  for (const v of change.viewed) for (const tag of new Set(v.tags)) tagDeltas.set(tag, (tagDeltas.get(tag) ?? 0) + TASTE.view);
  const unit = tasteUnit(nowMs);
  for (const [tag, delta] of tagDeltas) u.addNumber(tagAttribute(tag), delta * unit);
  if (change.viewed.length > 0) u.addNumber(TASTE_TOTAL, change.viewed.length * TASTE.view * unit);

  if (change.refresh || state.served.size + change.served.length > SERVED_CAP) {
    if (change.served.length > 0) u.setValue('served', new Set(change.served));
    else if (state.served.size > 0) u.removeAttribute('served');
  } else u.addToSet('served', change.served);

  if (change.explore === null) {
    if (state.explore !== undefined) u.removeAttribute('explore');
  } else if (change.explore !== undefined) u.setValue('explore', change.explore);

  if (change.reservoir) u.setValue('rv', change.reservoir.slice(0, RESERVOIR_CAP));
  if (change.follow) {
    u.setValue('fs', change.follow.since);
    if (change.follow.queue.length > 0) u.setValue('fq', change.follow.queue.slice(0, FOLLOW_QUEUE_CAP));
    else if (state.followQueue.length > 0) u.removeAttribute('fq');
  }

  const overflow = state.likedRecent.length - LIKED_RECENT_CAP;
  for (let i = 0; i < overflow; i++) u.removeAttribute('lr', i);

  if (change.walk) {
    const { order, id, skipped, fresh } = change.walk;
    if (fresh) u.setValue(`wk_${order}`, id).setValue(`wks_${order}`, skipped.slice(0, WALK_SKIP_CAP));
    else if (state.walks[order]?.id === id && skipped.length > 0) {
      const room = WALK_SKIP_CAP - (state.walks[order]?.skipped.length ?? 0);
      if (room > 0) u.appendToList(`wks_${order}`, skipped.slice(0, room));
    }
  }
  return u;
}
