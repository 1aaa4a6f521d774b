import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { bestGram, matchesTerm, normalizeSearchText, postingsPage } from '../catalog/search-index.js';
import type { VideoItem } from '../catalog/video-items.js';
import { toVideoView, type VideoView } from '../catalog/video-view.js';
import { clock } from '../clock.js';
import { batchGetHubItems, itemId } from '../db/batch.js';
import { db, tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { transactWrite, type TransactItem } from '../db/transact.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { randomBase62 } from '../ids.js';
import { decodeCursor, encodeCursor, termHash, type WalkCursor } from './cursor.js';
import { feedStateUpdate, parseFeedState, RESERVOIR_CAP, topTags, type FeedState, type FeedStateChange, type ReservoirEntry, type WalkOrder } from './feed-state.js';
import { CandidatePool, noise, rankCandidates, selectList, type RankContext, type Source } from './scoring.js';
import {
  authorVideos,
  coLikeCandidates,
  feedStateWithFollows,
  latestCandidates,
  newestPage,
  tagCandidates,
  trendingPage,
  trendingVideos,
  videoCandidate,
  type CandidateFields,
} from './sources.js';

/**
 * get_next_list (docs/feed.md). A call has a budget of MAX_REQUESTS DynamoDB requests, whatever
 * the catalog size or the caller's history, counting the token check:
 *   authentication (1 for a JWT) + the caller's state (1; with the followed accounts in the same
 *   Query; +1 for a share) + candidate reads (what is left) + the answer's read (1) + the state
 *   write (1).
 * Candidate sources are read in priority order while the budget lasts.
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

export interface FeedAnswer {
  list: VideoView[];
  fav_index: string;
}

/** The most DynamoDB requests one call makes, whatever the catalog size or the caller's history. */
export const MAX_REQUESTS = 8;

export const LIMITS = {
  trending: 60,
  explore: 100,
  /** Exploration page of a caller who has seen many videos: unseen ones are rarer. */
  exploreDeep: 300,
  /** A caller with more seen videos than this explores with deep pages, before trending. */
  heavyViewer: 200,
  tag: 40,
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
/** Anonymous device state is forgotten after 30 days without a call. */
const DEVICE_TTL_SECONDS = 30 * 86_400;
const TABLE = () => tableNames.hub;

type Key = { pk: string; sk: string };
type Found = Map<string, Record<string, unknown>>;

interface Context {
  req: FeedRequest;
  nowMs: number;
  seed: string;
  stateKey?: Key;
  state: FeedState;
  /** Items of the first read (the "more like this" video and its co-likes). */
  found: Found;
  followees: string[];
  /** Seen in the last 7 days, viewed as reported by this call, or liked recently. */
  seen: Set<string>;
  sharedVid?: string;
  /** Requests made so far in this call, authentication included. */
  used: number;
}

interface Outcome {
  videos: VideoItem[];
  fav_index: string;
  change: Omit<FeedStateChange, 'viewed' | 'refresh'>;
}

/** Requests still free for candidates: the answer's read and the state write stay reserved. */
const spare = (ctx: Context) => MAX_REQUESTS - ctx.used - 1 - (ctx.stateKey ? 1 : 0);

export async function nextList(req: FeedRequest): Promise<FeedAnswer> {
  const nowMs = clock.now();
  const stateKey = req.viewer ? hubItems.feedState(req.viewer) : req.device ? hubItems.deviceFeedState(req.device) : undefined;
  const personalRec = !!req.viewer && !req.q && !req.similarTo && req.order === 'rec';
  let used = req.authRequests;

  // The first read: the caller's state (signed-in rec: with the followed accounts, one Query), the
  // share, the "more like this" video and its co-likes.
  const keys: Key[] = [];
  if (stateKey && !personalRec) keys.push(stateKey);
  if (req.shareid) keys.push(hubItems.share(req.shareid));
  if (req.similarTo) keys.push(hubItems.video(req.similarTo), hubItems.coLikes(req.similarTo));
  const [found, withFollows] = await Promise.all([
    keys.length ? (batchGetHubItems(keys) as Promise<Found>) : Promise.resolve(new Map() as Found),
    personalRec ? feedStateWithFollows(req.viewer!, LIMITS.followees) : Promise.resolve(undefined),
  ]);
  used += (keys.length ? 1 : 0) + (personalRec ? 1 : 0);

  const state = parseFeedState(personalRec ? withFollows?.state : stateKey ? found.get(itemId(stateKey)) : undefined, nowMs);
  const seen = new Set([...state.seen, ...req.viewed, ...state.likedRecent.map((e) => e.vid)]);
  const share = req.shareid ? (found.get(itemId(hubItems.share(req.shareid))) as { vid?: string } | undefined) : undefined;
  const sharedVid = typeof share?.vid === 'string' && !state.disliked.has(share.vid) ? share.vid : undefined;
  const ctx: Context = { req, nowMs, seed: randomBase62(8), stateKey, state, found, followees: withFollows?.followees ?? [], seen, sharedVid, used };

  let outcome: Outcome;
  if (req.q) outcome = await walk(ctx, 'q');
  else if (req.similarTo) outcome = await moreLikeThis(ctx);
  else if (req.order === 'rec') outcome = await recommend(ctx);
  else outcome = await walk(ctx, req.order);

  // One BatchGet for the answer: videos known only by id, author nicknames, the caller's likes, and
  // the videos reported as viewed (their tags feed the taste; unknown vids are not recorded).
  const shown = outcome.videos;
  const missing = shown.filter((v) => !v.title).map((v) => hubItems.video(v.vid));
  const lookupKeys: Key[] = [...new Set(shown.map((v) => v.author_openid))].map((a) => hubItems.account(a));
  if (req.viewer) for (const v of shown) lookupKeys.push(hubItems.like(req.viewer, v.vid));
  const viewedKeys = req.viewed.map((vid) => hubItems.video(vid));
  const lookups = (await batchGetHubItems([...missing, ...lookupKeys, ...viewedKeys])) as Found;
  const list: VideoView[] = [];
  for (const item of shown) {
    const video = item.title ? item : (lookups.get(itemId(hubItems.video(item.vid))) as VideoItem | undefined);
    if (!video) continue;
    const nickname = (lookups.get(itemId(hubItems.account(video.author_openid))) as { nickname?: string } | undefined)?.nickname;
    const reactions = req.viewer ? { liked: lookups.has(itemId(hubItems.like(req.viewer, video.vid))), disliked: false } : undefined;
    list.push(toVideoView(video, nickname, reactions));
  }
  const viewed = req.viewed
    .map((vid) => lookups.get(itemId(hubItems.video(vid))) as VideoItem | undefined)
    .filter((v): v is VideoItem => !!v)
    .map((v) => ({ vid: v.vid, tags: v.tags ?? [] }));

  await saveState(ctx, { ...outcome.change, viewed, refresh: req.refresh });
  return { list, fav_index: outcome.fav_index };
}

/** The last request: the state update, with the seen-history items of a signed-in caller in the same transaction. */
async function saveState(ctx: Context, change: FeedStateChange): Promise<void> {
  if (!ctx.stateKey) return;
  const update = feedStateUpdate(ctx.state, { ...change, ttlSeconds: ctx.req.viewer ? undefined : DEVICE_TTL_SECONDS }, ctx.nowMs);
  const stateUpdate = { TableName: TABLE(), Key: ctx.stateKey, ...update.params() };
  if (!ctx.req.viewer || change.viewed.length === 0) {
    await db.send(new UpdateCommand(stateUpdate));
    return;
  }
  const nowIso = new Date(ctx.nowMs).toISOString();
  const viewer = ctx.req.viewer;
  const items: TransactItem[] = [
    { Update: stateUpdate },
    ...change.viewed.map(({ vid }) => ({
      Put: { TableName: TABLE(), Item: { ...hubItems.seen(viewer, vid), ...hubItems.historyIndex(viewer, nowIso, vid), entity: 'seen', openid: viewer, vid, seen_at: nowIso } },
    })),
  ];
  await transactWrite(items);
}

/** A stub carrying only what the final read needs to fetch the video. */
const stub = (vid: string, author: string) => ({ vid, author_openid: author }) as VideoItem;

/** Collects candidates and remembers the whole video items some sources return (no re-read needed). */
class Gatherer {
  readonly pool = new CandidatePool();
  readonly full = new Map<string, VideoItem>();
  videos(videos: VideoItem[], source: Source): void {
    for (const v of videos) {
      if (v.title) this.full.set(v.vid, v);
      this.pool.add(videoCandidate(v), source);
    }
  }
  candidates(candidates: CandidateFields[], source: Source): void {
    for (const c of candidates) this.pool.add(c, source);
  }
}

/** Runs the planned reads that fit the budget (in priority order), all in parallel. */
async function readWithin(ctx: Context, planned: (() => Promise<unknown>)[]): Promise<void> {
  const affordable = planned.slice(0, Math.max(0, spare(ctx)));
  ctx.used += affordable.length;
  await Promise.all(affordable.map((read) => read()));
}

function rankAndPick(ctx: Context, g: Gatherer, served: Set<string>, shared: VideoItem | undefined, similar?: VideoItem): { videos: VideoItem[]; reservoir: ReservoirEntry[] } {
  const { req, state } = ctx;
  const rankCtx: RankContext = {
    nowMs: ctx.nowMs,
    seed: ctx.seed,
    taste: state.tags,
    followedAuthors: new Set(ctx.followees),
    disliked: state.disliked,
    seen: ctx.seen,
    served,
    exclude: new Set([...(shared ? [shared.vid] : []), ...(similar ? [similar.vid] : [])]),
    ...(similar ? { similarTo: { vid: similar.vid, tags: similar.tags ?? [], author_openid: similar.author_openid } } : {}),
  };
  const ranked = rankCandidates(g.pool.values(), rankCtx, !!req.viewer);
  const picked = selectList(ranked, req.count - (shared ? 1 : 0), shared ? [shared.author_openid] : []);
  // The best unseen candidates (picked or not) stay candidates for the next calls until viewed.
  const reservoir = ranked
    .filter((s) => s.tier < 2)
    .slice(0, RESERVOIR_CAP)
    .map(({ candidate: c }) => ({ vid: c.vid, a: c.author_openid, t: c.tags, c: c.created_at, tr: c.trend }));
  return { videos: [...(shared ? [shared] : []), ...picked.map((s) => g.full.get(s.candidate.vid) ?? stub(s.candidate.vid, s.candidate.author_openid))], reservoir };
}

// rec ------------------------------------------------------------------------------------------------

async function recommend(ctx: Context): Promise<Outcome> {
  const { req, state } = ctx;
  const personal = !!req.viewer;
  const served = req.refresh ? new Set<string>() : state.served;
  const sharedVid = ctx.sharedVid && !served.has(ctx.sharedVid) ? ctx.sharedVid : undefined;
  const g = new Gatherer();

  // Free: the co-liked videos kept in the state by like, and the unseen candidates of earlier calls.
  if (personal) g.candidates(state.coLiked.map((e) => ({ ...e, trend: 0, colike: e.n })), 'colike');
  g.candidates(state.reservoir.map((e) => ({ vid: e.vid, author_openid: e.a, tags: e.t ?? [], created_at: e.c, trend: e.tr ?? 0 })), 'fresh');

  let batch: Found = new Map();
  const batchKeys: Key[] = [...(sharedVid ? [hubItems.video(sharedVid)] : []), ...ctx.followees.map((a) => hubItems.authorLatest(a))];
  // Exploration walks the whole catalog across calls (a refresh does not restart it).
  let explore: string | null | undefined = state.explore;
  const heavy = ctx.seen.size > LIMITS.heavyViewer;
  const explorePage = async () => {
    const { videos, done } = await newestPage(explore ?? undefined, heavy ? LIMITS.exploreDeep : LIMITS.explore);
    g.videos(videos, 'fresh');
    const last = videos[videos.length - 1];
    explore = done || !last ? null : `${last.created_at}#${last.vid}`;
  };
  // One tag per call, drawn among the three strongest by weight: the list follows the taste and
  // still varies between calls.
  const top = personal ? topTags(state, 3) : [];
  let r = noise(ctx.seed, 'tag') * top.reduce((s, [, w]) => s + w, 0);
  const tag = top.find(([, w]) => (r -= w) < 0)?.[0] ?? top[0]?.[0];

  const planned: (() => Promise<unknown>)[] = [];
  if (batchKeys.length) planned.push(async () => (batch = (await batchGetHubItems(batchKeys)) as Found));
  planned.push(explorePage);
  if (tag) planned.push(async () => g.candidates(await tagCandidates(tag, LIMITS.tag), 'tag'));
  // A heavy viewer has most likely seen the trending top: that request goes to deeper exploration.
  if (!heavy) planned.push(async () => g.videos(await trendingVideos(LIMITS.trending), 'trending'));
  await readWithin(ctx, planned);

  for (const author of ctx.followees) g.candidates(latestCandidates(author, batch.get(itemId(hubItems.authorLatest(author)))), 'follow');
  const shared = sharedVid ? (batch.get(itemId(hubItems.video(sharedVid))) as VideoItem | undefined) : undefined;

  // Too few unseen candidates: walk further into the catalog with what is left of the budget; the
  // next call resumes there.
  const unseen = (vid: string) => !state.disliked.has(vid) && !ctx.seen.has(vid) && !served.has(vid) && vid !== shared?.vid;
  while (explore !== null && spare(ctx) > 0 && g.pool.values().filter((c) => unseen(c.vid)).length < req.count) {
    ctx.used++;
    await explorePage();
  }

  const { videos, reservoir } = rankAndPick(ctx, g, served, shared);
  return {
    videos,
    fav_index: videos.length > 0 ? encodeCursor({ o: 'rec' }) : '',
    change: { served: videos.map((v) => v.vid), explore, reservoir },
  };
}

// more like this ---------------------------------------------------------------------------------

async function moreLikeThis(ctx: Context): Promise<Outcome> {
  const { req, state, found } = ctx;
  const similar = found.get(itemId(hubItems.video(req.similarTo!))) as VideoItem | undefined;
  if (!similar) throw new NotFoundError(`Video "${req.similarTo!.slice(0, 64)}" does not exist`);
  const served = req.refresh ? new Set<string>() : state.served;
  const sharedVid = ctx.sharedVid && !served.has(ctx.sharedVid) && ctx.sharedVid !== similar.vid ? ctx.sharedVid : undefined;
  const g = new Gatherer();
  g.candidates(coLikeCandidates(found.get(itemId(hubItems.coLikes(similar.vid)))), 'colike');

  let shared: VideoItem | undefined;
  const tags = (similar.tags ?? []).slice(0, LIMITS.similarTags);
  const tagRead = (t: string) => async () => g.candidates(await tagCandidates(t, LIMITS.similarTag), 'tag');
  const planned: (() => Promise<unknown>)[] = [];
  if (sharedVid) planned.push(async () => (shared = (await batchGetHubItems([hubItems.video(sharedVid)])).get(itemId(hubItems.video(sharedVid))) as VideoItem | undefined));
  if (tags[0]) planned.push(tagRead(tags[0]));
  planned.push(async () => g.videos(await authorVideos(similar.author_openid, LIMITS.author), 'author'));
  for (const t of tags.slice(1)) planned.push(tagRead(t));
  planned.push(async () => g.videos(await trendingVideos(LIMITS.trending), 'trending'));
  await readWithin(ctx, planned);

  const { videos } = rankAndPick(ctx, g, served, shared, similar);
  return { videos, fav_index: videos.length > 0 ? encodeCursor({ o: 'rec' }) : '', change: { served: videos.map((v) => v.vid) } };
}

// new, hot, q: walks with a cursor -------------------------------------------------------------------

interface WalkItem {
  /** The position right after this item. */
  pos: { p?: string; t?: number };
  video?: VideoItem;
}

async function walk(ctx: Context, order: WalkOrder): Promise<Outcome> {
  const { req, state } = ctx;
  const term = order === 'q' ? normalizeSearchText(req.q) : '';
  const hash = order === 'q' ? termHash(term) : undefined;
  let cursor = req.refresh ? undefined : decodeCursor(req.cursor);
  if (cursor?.o === 'rec') cursor = undefined;
  if (cursor && (cursor.o !== order || cursor.h !== hash)) {
    throw new ValidationError(`Invalid parameter "fav_index": this cursor continues another list (${cursor.o === 'q' ? 'another search' : `order=${cursor.o}`})`);
  }
  const c = cursor as WalkCursor | undefined;
  const fresh = !c;
  const walkId = c?.w ?? randomBase62(10);
  const prior = !fresh && state.walks[order]?.id === walkId ? state.walks[order]!.skipped : [];
  const gram = order === 'q' ? bestGram(term) : undefined;

  // The shared video leads the first page; its read takes one request of the walk's budget.
  const sharedVid = fresh ? ctx.sharedVid : undefined;
  // Phase 2's read stays reserved, like the answer's read and the state write.
  let budget = spare(ctx) - 1 - (sharedVid ? 1 : 0);
  const sharedRead = sharedVid ? (batchGetHubItems([hubItems.video(sharedVid)]) as Promise<Found>) : Promise.resolve(new Map() as Found);
  const room = req.count - (sharedVid ? 1 : 0);

  const list: VideoItem[] = [];
  const inList = new Set<string>();
  const skippedNow: string[] = [];
  const skippedVideos = new Map<string, VideoItem>();
  const take = (video: VideoItem) => {
    if (state.disliked.has(video.vid) || inList.has(video.vid) || video.vid === sharedVid) return;
    if (ctx.seen.has(video.vid)) {
      skippedNow.push(video.vid);
      skippedVideos.set(video.vid, video);
      return;
    }
    list.push(video);
    inList.add(video.vid);
  };

  // Phase 1: the list in order, videos seen in the last 7 days deferred.
  let phase: 1 | 2 = c?.ph ?? 1;
  let pos: { p?: string; t?: number } = { p: c?.p, t: c?.t };
  let index = c?.i ?? 0;
  const pageCost = order === 'q' && gram ? 2 : 1;
  while (phase === 1 && list.length < room && budget >= pageCost) {
    budget -= pageCost;
    const { items, next } = await walkPage(order, gram, term, pos);
    let stoppedEarly = false;
    for (const item of items) {
      if (list.length >= room) {
        stoppedEarly = true;
        break;
      }
      if (item.video) take(item.video);
      pos = item.pos;
    }
    if (!stoppedEarly) {
      if (next) pos = next;
      else {
        phase = 2;
        index = 0;
      }
    }
  }

  // Phase 2: nothing unseen is left; the deferred videos, in walk order.
  let done = false;
  if (phase === 2 && list.length < room) {
    const all = [...prior, ...skippedNow];
    const window = all.slice(index, index + LIMITS.phase2Window);
    const needed = window.filter((vid) => !skippedVideos.has(vid));
    const fetched = needed.length ? ((await batchGetHubItems(needed.map((vid) => hubItems.video(vid)))) as Found) : (new Map() as Found);
    for (const vid of window) {
      if (list.length >= room) break;
      index++;
      const video = skippedVideos.get(vid) ?? (fetched.get(itemId(hubItems.video(vid))) as VideoItem | undefined);
      if (!video || state.disliked.has(vid) || inList.has(vid) || vid === sharedVid) continue;
      list.push(video);
      inList.add(vid);
    }
    done = index >= all.length;
  }

  const sharedVideo = sharedVid ? ((await sharedRead).get(itemId(hubItems.video(sharedVid))) as VideoItem | undefined) : undefined;
  const next: WalkCursor | undefined = done
    ? undefined
    : phase === 1
      ? { o: order, w: walkId, ph: 1, ...(pos.p !== undefined ? { p: pos.p } : {}), ...(pos.t !== undefined ? { t: pos.t } : {}), ...(hash ? { h: hash } : {}) }
      : { o: order, w: walkId, ph: 2, i: index, ...(hash ? { h: hash } : {}) };
  return {
    videos: [...(sharedVideo ? [sharedVideo] : []), ...list],
    fav_index: next ? encodeCursor(next) : '',
    change: { served: [], walk: { order, id: walkId, skipped: skippedNow, fresh } },
  };
}

/** One page of a walk: ordered items with the position after each, and where the next page starts. */
async function walkPage(order: WalkOrder, gram: string | undefined, term: string, pos: { p?: string; t?: number }): Promise<{ items: WalkItem[]; next?: { p?: string; t?: number } }> {
  if (order === 'hot') {
    const after = pos.p !== undefined && pos.t !== undefined ? { t: pos.t, v: pos.p } : undefined;
    const { videos, done } = await trendingPage(after, LIMITS.walkPage);
    const items = videos.map((v) => ({ pos: { p: v.vid, t: v.gsi3sk }, video: v }));
    return { items, next: done || items.length === 0 ? undefined : items[items.length - 1]!.pos };
  }
  if (order === 'q' && gram) {
    const page = await postingsPage(gram, pos.p, LIMITS.searchPage);
    const vids = page.entries.map((e) => e.slice(e.lastIndexOf('#') + 1));
    const videos = vids.length ? ((await batchGetHubItems(vids.map((vid) => hubItems.video(vid)))) as Found) : new Map();
    const items = page.entries.map((entry, i) => {
      const video = videos.get(itemId(hubItems.video(vids[i]!))) as VideoItem | undefined;
      return { pos: { p: entry }, video: video && matchesTerm(video, term) ? video : undefined };
    });
    return { items, next: page.next !== undefined ? { p: page.next } : undefined };
  }
  // new, and q for a term without an indexable gram: the catalog newest first.
  const { videos, done } = await newestPage(pos.p, order === 'q' ? LIMITS.searchPage : LIMITS.walkPage, order === 'q');
  const items = videos.map((v) => ({ pos: { p: `${v.created_at}#${v.vid}` }, video: order === 'q' && !matchesTerm(v, term) ? undefined : v }));
  return { items, next: done || items.length === 0 ? undefined : items[items.length - 1]!.pos };
}
