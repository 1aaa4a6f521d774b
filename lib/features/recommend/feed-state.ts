// Long by nature: the recommender's per-person state, parsed, trimmed and written back within one
// call's budget (docs/feed.md, "Feed state").
import { growthUnit } from '../../entities/catalog/trend.js';
import { UpdateBuilder } from '../../platform/db/update-builder.js';
import { followKeys } from '../../entities/social/follows.js';
import { blockKeys } from '../../entities/social/block-items.js';
import { fnv1a, timeKey, newestFirst } from '../../platform/db/keys.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const feedKeys = {
  /**
   * The recommender's state of an account / of an anonymous device: taste, dislikes, seen, served.
   * An account's state sorts right before its FOLLOWS# items ('!' < '#', and after FOLLOWER#), so
   * get_next_list reads the state and the followed accounts with ONE Query (feedStateAndFollows).
   */
  feedState: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'FOLLOWS!FEED' }),
  deviceFeedState: (deviceId: string) => ({ pk: `DEVICE#${deviceId}`, sk: 'FEED' }),
  /**
   * Every video the account liked, as 32-bit hashes, LIKED_CHUNK to an item (`h`, a number set),
   * newest chunk first: written by like (the chunk the state's `lc` points to), read with the
   * state by get_next_list ('!' sorts after the state and before its call records '#').
   */
  likedChunk: (openid: string, index: number) => ({ pk: `ACCOUNT#${openid}`, sk: `FOLLOWS!FEED!L#${String(LIKED_CHUNK_KEYS - index).padStart(5, '0')}` }),
  /**
   * One get_next_list call's record (what it viewed, served, deferred; where rec stands), written
   * once with a plain Put and never rewritten, with a TTL (docs/feed.md, "Feed state"). It sorts right
   * after the state, newest first, and before the FOLLOWS# items: the state's Query reads them all.
   */
  feedChunk: (openid: string, atMs: number, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `FOLLOWS!FEED#${newestFirst(atMs)}#${id}` }),
  deviceFeedChunk: (deviceId: string, atMs: number, id: string) => ({ pk: `DEVICE#${deviceId}`, sk: `FEED#${newestFirst(atMs)}#${id}` }),
  /**
   * The videos one get_next_list call reported as viewed (history list): the vids ride in the
   * gsi1 sort key, `seen_at#vid,vid,...`, so get_fav reads them from the index keys alone.
   * gsi1: HISTORY#openid (get_fav's history list).
   */
  viewHistory: (openid: string, seenAt: string, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `HISTORY#${seenAt}#${id}` }),
  viewHistoryIndex: (openid: string, seenAt: string, vids: string[]) => ({ gsi1pk: `HISTORY#${openid}`, gsi1sk: timeKey(seenAt, vids.join(',')) }),
  /** The sort-key prefix of an account's view history in its partition (the data export reads the range). */
  historyPrefix: 'HISTORY#',
};

/** Sort-key range of an account's block list (lib/entities/social/blocks.ts), feed state, call records (feedChunk) and FOLLOWS# items (see feedState). */
export const feedStateAndFollows = (openid: string) => ({
  pk: feedKeys.feedState(openid).pk,
  from: blockKeys.blockList(openid).sk,
  state: feedKeys.feedState(openid).sk,
  to: `${followKeys.follows(openid, '').sk}\uffff`,
  chunkPrefix: `${feedKeys.feedState(openid).sk}#`,
  likedPrefix: `${feedKeys.feedState(openid).sk}!L#`,
});

/** Sort-key range of a device's feed state and its call records (deviceFeedChunk). */
export const deviceFeedStateAndChunks = (deviceId: string) => ({
  pk: feedKeys.deviceFeedState(deviceId).pk,
  from: feedKeys.deviceFeedState(deviceId).sk,
  to: `${feedKeys.deviceFeedState(deviceId).sk}#\uffff`,
  chunkPrefix: `${feedKeys.deviceFeedState(deviceId).sk}#`,
});


/**
 * The recommender's state of an account or an anonymous device (docs/feed.md, "Feed state"), read
 * with the first request of every get_next_list (one Query) and written with its last (one
 * BatchWrite of small items, never a rewrite of an item that grows with the caller's history):
 *
 * The state item of an account (`feedKeys.feedState`), written by like and dislike only (an
 * anonymous device has none: its call records are its whole state):
 * - `t_<tag>`: taste weight per tag, a decayed sum (half-life TASTE_HALF_LIFE_DAYS) kept with ADD:
 *   +3 per like, -4 per dislike. `tw`: the same decayed sum over the positive events themselves,
 *   whatever their tags: how much of the taste a tag holds is t_<tag> / tw (lib/features/recommend/taste.ts).
 * - `disliked`: string set of every vid the account disliked (exact: changed in the like/dislike
 *   transactions). `lr`: the vids of the latest LIKED_RECENT_CAP likes, oldest first, written anew
 *   by each like (lib/features/recommend/reactions.ts); their neighbour lists are the learned model's
 *   candidates. `lc`: how many likes the liked chunks hold (feedKeys.likedChunk).
 *
 * One call record per get_next_list call (`feedKeys.feedChunk` / `deviceFeedChunk`), put once and
 * kept CHUNK_TTL_DAYS; those of the last VIEW_TASTE_DAYS days (at most CHUNK_READ_CAP, newest
 * first) are read back with the state:
 * - `v`: the vids the call reported as viewed (seen for SEEN_DAYS whole days), `vt`: how many of
 *   them carry each tag (+0.5 taste per view, decayed from the call's time, for VIEW_TASTE_DAYS;
 *   `vn`: their number).
 * - `sv`: the vids rec handed out; `rf`: the call was a `cmd=refresh` (served counts from there).
 * - `wo`/`wi`/`wk`: the new/hot/q walk (order, id) and the vids this call deferred as seen.
 * - rec's position, carried by every rec call's record (the newest one counts): `ex` where the
 *   exploration walk continues ('' = from the top), `rv` the reservoir (RESERVOIR_CAP best unseen
 *   candidates not handed out), `fs` the call's time (followed authors' videos created after it are
 *   new to the caller), `fq` reserved videos that did not fit yet (FOLLOW_QUEUE_CAP).
 */
const TASTE_HALF_LIFE_DAYS = 14;
export const SEEN_DAYS = 7;
export const LIKED_RECENT_CAP = 30;
/** Liked-video hashes per chunk item (about 1 KB), and the most chunks get_next_list reads (newest first). */
export const LIKED_CHUNK = 150;
export const LIKED_CHUNKS_READ = 200;
const LIKED_CHUNK_KEYS = 99_999;
export const RESERVOIR_CAP = 12;
const SERVED_CAP = 1000;
/** Call records are kept this long (two days more than they count), then DynamoDB's TTL removes them. */
export const CHUNK_TTL_DAYS = 16;
/** A view counts in the taste while its call record is this recent (its seen mark: SEEN_DAYS). */
export const VIEW_TASTE_DAYS = 14;
/** At most this many call records are read (newest first): a caller past it forgets its oldest seen days. */
export const CHUNK_READ_CAP = 400;
export const WALK_SKIP_CAP = 2000;
/**
 * A walk page stops once it has deferred this many seen videos (the next call continues there), so
 * that one call record stays small whatever the caller's history (about 1.3 KB of vids at most).
 */
export const WALK_SKIP_PER_CALL = 120;
const FOLLOW_QUEUE_CAP = 20;
/** "New" from a followed author: since the previous rec call, and at most this old (a caller back after weeks is not owed weeks of it). */
export const FOLLOW_NEW_MAX_AGE_MS = 3 * 86_400_000;
export const TASTE = { like: 3, dislike: -4, view: 0.5 };
const DAY_MS = 86_400_000;

export type WalkOrder = 'new' | 'hot' | 'q';


/** What the liked chunks store of a vid: 32 bits, so that a heavy liker's set stays small (two vids share one about once in 4 billion). */
export const likedHash = (vid: string) => fnv1a(vid);

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
  /** The vids of the latest likes, oldest first (at most LIKED_RECENT_CAP). */
  likedRecent: string[];
  /** Hashes of every video liked (likedHash), from the liked chunks; `likes`: how many were stored. */
  liked: Set<number>;
  likes: number;
  reservoir: ReservoirEntry[];
  /** Vids viewed in the last SEEN_DAYS days (whole days: a little more, never less). */
  seen: Set<string>;
  served: Set<string>;
  explore?: string;
  walks: Partial<Record<WalkOrder, { id: string; skipped: string[] }>>;
  /** Followed authors' videos created after this (ISO) are new to the caller. */
  followSince?: string;
  followQueue: ReservoirEntry[];
  /** Call records read (in the window). */
  records: number;
  /** The highest `n` among them (feedChunkAttributes). */
  seq: number;
}

export const tasteUnit = (atMs: number) => growthUnit(atMs, TASTE_HALF_LIFE_DAYS);
const epochDay = (atMs: number) => Math.floor(atMs / DAY_MS);
const TAG_PREFIX = 't_';
const TASTE_TOTAL = 'tw';

export const tagAttribute = (tag: string) => `${TAG_PREFIX}${tag}`;

const asSet = (v: unknown): Set<string> => (v instanceof Set ? new Set([...v].map(String)) : new Set());
const asStrings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : v instanceof Set ? [...v].map(String) : []);

/**
 * A reservoir entry as a call record stores it: a list `[vid, author, created (epoch s), trend, ...tags]`
 * (no attribute names, the time as a number): about half the bytes of a map of the same fields.
 */
export const toStoredEntry = (e: ReservoirEntry): unknown[] => [e.vid, e.a, Math.floor(Date.parse(e.c) / 1000), Number((e.tr ?? 0).toPrecision(4)), ...(e.t ?? [])];
export function fromStoredEntry(v: unknown): ReservoirEntry | undefined {
  if (!Array.isArray(v)) return undefined;
  const [vid, a, c, tr, ...t] = v as unknown[];
  if (typeof vid !== 'string' || typeof a !== 'string' || typeof c !== 'number') return undefined;
  return { vid, a, c: new Date(c * 1000).toISOString(), tr: typeof tr === 'number' ? tr : 0, t: t.filter((x): x is string => typeof x === 'string') };
}
/** The vids of a stored `lr`: strings, or `{vid, ...}` entries as stores before this kept them. */
export const likedVids = (lr: unknown): string[] =>
  Array.isArray(lr) ? lr.flatMap((e: unknown) => (typeof e === 'string' ? [e] : e && typeof (e as { vid?: unknown }).vid === 'string' ? [(e as { vid: string }).vid] : [])) : [];
const entries = (v: unknown): ReservoirEntry[] => (Array.isArray(v) ? v.map(fromStoredEntry).filter((e): e is ReservoirEntry => !!e) : []);

/** A record's `n`: one more than the newest record its call had read, so that calls at the same time keep their order. */
const seqOf = (r: Record<string, unknown>) => (typeof r.n === 'number' ? r.n : 0);

const emptyState = (): FeedState => ({ exists: false, tags: new Map(), tasteTotal: 0, disliked: new Set(), likedRecent: [], liked: new Set(), likes: 0, reservoir: [], seen: new Set(), served: new Set(), walks: {}, followQueue: [], records: 0, seq: 0 });

/**
 * The state of a caller: the state item (`item`) and the call records read with it (`chunks`, any
 * order; those older than VIEW_TASTE_DAYS are ignored).
 */
export function parseFeedState(item: Record<string, unknown> | undefined, nowMs: number, chunks: Record<string, unknown>[] = [], likedChunks: Record<string, unknown>[] = []): FeedState {
  const state = emptyState();
  const unit = tasteUnit(nowMs);
  const oldestDay = epochDay(nowMs) - SEEN_DAYS;
  const records = chunks
    .filter((c) => typeof c.at === 'number' && c.at >= nowMs - VIEW_TASTE_DAYS * DAY_MS && c.at <= nowMs + DAY_MS)
    // Newest first; calls at the same millisecond (a pinned clock, a burst) in the order they were made.
    .sort((a, b) => (b.at as number) - (a.at as number) || seqOf(b) - seqOf(a));
  state.exists = !!item || records.length > 0;
  state.records = records.length;
  state.seq = Math.max(0, ...records.map(seqOf));
  if (item) {
    for (const [name, value] of Object.entries(item)) {
      if (name.startsWith(TAG_PREFIX) && typeof value === 'number') state.tags.set(name.slice(TAG_PREFIX.length), value / unit);
    }
    if (typeof item[TASTE_TOTAL] === 'number') state.tasteTotal = item[TASTE_TOTAL] / unit;
    state.disliked = asSet(item.disliked);
    state.likedRecent = likedVids(item.lr).slice(-LIKED_RECENT_CAP);
    if (typeof item.lc === 'number') state.likes = item.lc;
  }
  for (const c of likedChunks) if (c.h instanceof Set) for (const h of c.h) state.liked.add(Number(h));
  for (const vid of state.likedRecent) state.liked.add(likedHash(vid));
  // Newest first: views (and their taste), served since the latest refresh, walks, rec's position.
  let servedOpen = true;
  const walkOrders = new Set<WalkOrder>();
  const walkParts: Partial<Record<WalkOrder, string[][]>> = {};
  let position: Record<string, unknown> | undefined;
  for (const r of records) {
    if (epochDay(r.at as number) >= oldestDay) for (const vid of asStrings(r.v)) state.seen.add(vid);
    const atUnit = tasteUnit(r.at as number) / unit;
    if (r.vt && typeof r.vt === 'object') {
      for (const [tag, n] of Object.entries(r.vt as Record<string, unknown>)) {
        if (typeof n === 'number') state.tags.set(tag, (state.tags.get(tag) ?? 0) + n * TASTE.view * atUnit);
      }
    }
    if (typeof r.vn === 'number') state.tasteTotal += r.vn * TASTE.view * atUnit;
    if (servedOpen) {
      for (const vid of asStrings(r.sv)) state.served.add(vid);
      if (r.rf === true) servedOpen = false;
    }
    const order = r.wo as WalkOrder | undefined;
    if ((order === 'new' || order === 'hot' || order === 'q') && typeof r.wi === 'string') {
      if (!walkOrders.has(order)) {
        walkOrders.add(order);
        state.walks[order] = { id: r.wi, skipped: [] };
      }
      if (state.walks[order]!.id === r.wi) (walkParts[order] ??= []).push(asStrings(r.wk));
    }
    if (!position && typeof r.ex === 'string') position = r;
  }
  for (const order of walkOrders) state.walks[order]!.skipped = (walkParts[order] ?? []).reverse().flat().slice(0, WALK_SKIP_CAP);
  if (position) {
    if (position.ex) state.explore = position.ex as string;
    state.reservoir = entries(position.rv);
    if (typeof position.fs === 'string') state.followSince = position.fs;
    state.followQueue = entries(position.fq);
  }
  return state;
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
}

/**
 * The attributes of this call's record (no keys), or undefined when the call changed nothing worth
 * recording (a walk page that deferred nothing, with nothing viewed). Its size is bounded by one
 * call (what it viewed, served and deferred; rec's position), never by the caller's history.
 */
export function feedChunkAttributes(state: FeedState, change: FeedStateChange, nowMs: number): Record<string, unknown> | undefined {
  const a: Record<string, unknown> = {};
  if (change.viewed.length > 0) {
    a.v = change.viewed.map((v) => v.vid);
    const vt: Record<string, number> = {};
    for (const v of change.viewed) for (const tag of new Set(v.tags)) vt[tag] = (vt[tag] ?? 0) + 1;
    if (Object.keys(vt).length > 0) a.vt = vt;
    a.vn = change.viewed.length;
  }
  if (change.served.length > 0) a.sv = change.served;
  // Served counts from the refresh; past SERVED_CAP since then, from this call (as a refresh).
  if (change.refresh || state.served.size + change.served.length > SERVED_CAP) a.rf = true;
  if (change.walk) {
    const { order, id, skipped, fresh } = change.walk;
    const room = WALK_SKIP_CAP - (fresh ? 0 : (state.walks[order]?.id === id ? state.walks[order]!.skipped.length : 0));
    if (fresh || (skipped.length > 0 && room > 0)) Object.assign(a, { wo: order, wi: id, wk: skipped.slice(0, Math.max(0, room)) });
  }
  if (change.explore !== undefined || change.reservoir || change.follow) {
    a.ex = change.explore ?? '';
    if (change.reservoir?.length) a.rv = change.reservoir.slice(0, RESERVOIR_CAP).map(toStoredEntry);
    if (change.follow) {
      a.fs = change.follow.since;
      if (change.follow.queue.length > 0) a.fq = change.follow.queue.slice(0, FOLLOW_QUEUE_CAP).map(toStoredEntry);
    } else {
      // "more like this" and anonymous rec keep the signed-in rec's follow position.
      if (state.followSince) a.fs = state.followSince;
      if (state.followQueue.length > 0) a.fq = state.followQueue.map(toStoredEntry);
    }
  }
  if (Object.keys(a).length === 0) return undefined;
  return { ...a, entity: 'feed_chunk', at: nowMs, n: state.seq + 1, ttl: Math.floor(nowMs / 1000) + CHUNK_TTL_DAYS * 86_400 };
}
