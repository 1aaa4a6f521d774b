import type { VideoItem } from '../../entities/catalog/video-items.js';
import type { Cursor } from './cursor.js';
import type { FeedState, FeedStateChange } from './feed-state.js';

/**
 * What the parts of one get_next_list call share: the request, its budget of DynamoDB requests and
 * the context that counts them. feed.ts runs the call; rec.ts and walks.ts gather its videos.
 */
export interface FeedRequest {
  /** The authenticated caller; undefined for the anonymous feed. */
  viewer?: string;
  /** Requests the authentication of this call made (1 for a JWT: the ended-session check). */
  authRequests: number;
  /** The device id `d` (anonymous de-duplication). */
  device: string;
  count: number;
  order: 'rec' | 'hot' | 'new';
  q: string;
  similarTo?: string;
  shareid?: string;
  viewed: string[];
  refresh: boolean;
  cursor: string;
}

/** The most DynamoDB requests one call makes, whatever the catalog size or the caller's history. */
export const MAX_REQUESTS = 8;

export const LIMITS = {
  trending: 60,
  explore: 100,
  /** Exploration page of a caller who has seen many videos: unseen ones are rarer. */
  exploreDeep: 500,
  /** A caller with more seen videos than this explores with deep pages, before trending. */
  heavyViewer: 200,
  tag: 50,
  followees: 25,
  similarTags: 3,
  similarTag: 30,
  author: 10,
  /** new/hot pages (ranking attributes only); search pages are read whole, so smaller. */
  walkPage: 300,
  searchPage: 100,
  /** Deferred videos read per call in phase 2 (one BatchGet). */
  phase2Window: 100,
};

export type Key = { pk: string; sk: string };
export type Found = Map<string, Record<string, unknown>>;

export interface Context {
  req: FeedRequest;
  nowMs: number;
  seed: string;
  stateKey?: Key;
  state: FeedState;
  /** Items of the first read (the "more like this" video and its neighbour list). */
  found: Found;
  followees: string[];
  /** Accounts the caller blocked, read with the state (sources.ts feedStateWithFollows): their videos are never served. */
  blocked: ReadonlySet<string>;
  /** Seen in the last 7 days, or viewed as reported by this call. */
  seen: Set<string>;
  /** Liked by the caller, ever (the state's liked chunks): never served while anything else is left. */
  liked: (vid: string) => boolean;
  sharedVid?: string;
  /** The caller's `fav_index`, authenticated and decoded (undefined when empty). */
  cursor?: Cursor;
  /** Requests made so far in this call, authentication included. */
  used: number;
}

export interface Outcome {
  videos: VideoItem[];
  fav_index: string;
  change: Omit<FeedStateChange, 'viewed' | 'refresh'>;
}

/** The video unless its author is one the caller blocked (docs/moderation.md, "Blocking"). */
export const visible = <V extends { author_openid: string }>(ctx: Pick<Context, 'blocked'>, video: V | undefined): V | undefined =>
  video && !ctx.blocked.has(video.author_openid) ? video : undefined;

/**
 * The requests of the answer's read (feed.ts): one BatchGet of at most 100 keys each. Per video
 * shown: its item (when known only by id), its author and, signed in, the caller's like and
 * "commented" items (the marks and the counts as the caller sees them: docs/data-model.md, "Read
 * your own writes"); plus the videos reported as viewed. One request up to 100 keys, so 20 videos
 * with up to 20 viewed ones; two past that.
 */
export const answerReads = (req: Pick<FeedRequest, 'count' | 'viewer' | 'viewed'>) => Math.max(1, Math.ceil((req.count * (req.viewer ? 4 : 2) + req.viewed.length) / 100));

/** Requests still free for candidates: the answer's read and the state write stay reserved. */
export const spare = (ctx: Context) => MAX_REQUESTS - ctx.used - answerReads(ctx.req) - (writesState(ctx) ? 1 : 0);

/**
 * Whether the call ends with the state write. "More like this" records only the views it reports:
 * without them it writes nothing, and its request goes to the candidates.
 */
export const writesState = (ctx: Context) => !!ctx.stateKey && !(ctx.req.similarTo && ctx.req.viewed.length === 0);
