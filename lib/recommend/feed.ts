import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../clock.js';
import { db, tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { NotFoundError, ValidationError } from '../http/errors.js';
import { batchGetHubItems, itemId } from '../hub/batch-get.js';
import { randomBase62 } from '../hub/ids.js';
import { transactWrite, type TransactItem } from '../hub/transact.js';
import { toVideoView, type VideoView } from '../hub/video-view.js';
import type { VideoItem } from '../hub/videos.js';
import { decodeCursor, encodeCursor, termHash, type WalkCursor } from './cursor.js';
import { feedStateUpdate, parseFeedState, topTags, type FeedState, type FeedStateChange, type WalkOrder } from './feed-state.js';
import { CandidatePool, noise, rankCandidates, selectList, type RankContext } from './scoring.js';
import { bestGram, matchesTerm, normalizeSearchText } from './search-text.js';
import {
  authorVideos,
  coLikeCandidates,
  followedAuthors,
  latestCandidates,
  newestPage,
  postingsPage,
  tagCandidates,
  trendingPage,
  trendingVideos,
  videoCandidate,
} from './sources.js';

/**
 * get_next_list (docs/feed.md). Every call is: one BatchGet of the caller's state (plus the shared
 * item, the viewed videos, the "more like this" video), a few bounded candidate reads in parallel,
 * one BatchGet of what the answer shows, and one write of the new state: at most 8 requests.
 */
export interface FeedRequest {
  /** The authenticated caller; undefined for the anonymous feed. */
  viewer?: string;
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
  tag: 40,
  followees: 25,
  coLikeSeeds: 3,
  similarTags: 3,
  similarTag: 30,
  author: 10,
  walkPage: 100,
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
  found: Found;
  viewedVideos: VideoItem[];
  /** Seen in the last 7 days, viewed in this call, or liked recently. */
  seen: Set<string>;
  sharedVid?: string;
  /** Requests made so far in this call. */
  used: number;
}

interface Outcome {
  videos: VideoItem[];
  fav_index: string;
  change: Omit<FeedStateChange, 'viewed' | 'refresh'>;
}

export async function nextList(req: FeedRequest): Promise<FeedAnswer> {
  const nowMs = clock.now();
  const stateKey = req.viewer ? hubItems.feedState(req.viewer) : req.device ? hubItems.deviceFeedState(req.device) : undefined;
  const personalRec = !!req.viewer && !req.q && !req.similarTo && req.order === 'rec';

  // Request 1 (+1 in parallel for signed-in rec: whom the caller follows).
  const keys: Key[] = [];
  if (stateKey) keys.push(stateKey);
  if (req.shareid) keys.push(hubItems.share(req.shareid));
  for (const vid of req.viewed) keys.push(hubItems.video(vid));
  if (req.similarTo) keys.push(hubItems.video(req.similarTo), hubItems.coLikes(req.similarTo));
  const [found, followees] = await Promise.all([
    keys.length ? (batchGetHubItems(keys) as Promise<Found>) : Promise.resolve(new Map() as Found),
    personalRec ? followedAuthors(req.viewer!, LIMITS.followees) : Promise.resolve([] as string[]),
  ]);

  const state = parseFeedState(stateKey ? found.get(itemId(stateKey)) : undefined, nowMs);
  const viewedVideos = req.viewed.map((vid) => found.get(itemId(hubItems.video(vid))) as VideoItem | undefined).filter((v): v is VideoItem => !!v);
  const seen = new Set([...state.seen, ...viewedVideos.map((v) => v.vid), ...state.likedRecent.map((e) => e.vid)]);
  const share = req.shareid ? (found.get(itemId(hubItems.share(req.shareid))) as { vid?: string } | undefined) : undefined;
  const sharedVid = typeof share?.vid === 'string' && !state.disliked.has(share.vid) ? share.vid : undefined;
  const used = (keys.length ? 1 : 0) + (personalRec ? 1 : 0);
  const ctx: Context = { req, nowMs, seed: randomBase62(8), stateKey, state, found, viewedVideos, seen, sharedVid, used };

  let outcome: Outcome;
  if (req.q) outcome = await walk(ctx, 'q');
  else if (req.similarTo) outcome = await recommend(ctx, []);
  else if (req.order === 'rec') outcome = await recommend(ctx, followees);
  else outcome = await walk(ctx, req.order);

  // One BatchGet for what the answer shows: missing video items, author nicknames, the caller's likes.
  const shown = outcome.videos;
  const lookupKeys: Key[] = [...new Set(shown.map((v) => v.author_openid))].map((a) => hubItems.account(a));
  if (req.viewer) for (const v of shown) lookupKeys.push(hubItems.like(req.viewer, v.vid));
  const missing = shown.filter((v) => !v.title).map((v) => hubItems.video(v.vid));
  const lookups = (await batchGetHubItems([...missing, ...lookupKeys])) as Found;
  const list: VideoView[] = [];
  for (const stub of shown) {
    const video = stub.title ? stub : (lookups.get(itemId(hubItems.video(stub.vid))) as VideoItem | undefined);
    if (!video) continue;
    const nickname = (lookups.get(itemId(hubItems.account(video.author_openid))) as { nickname?: string } | undefined)?.nickname;
    const reactions = req.viewer ? { liked: lookups.has(itemId(hubItems.like(req.viewer, video.vid))), disliked: false } : undefined;
    list.push(toVideoView(video, nickname, reactions));
  }

  await saveState(ctx, { ...outcome.change, viewed: viewedVideos.map((v) => ({ vid: v.vid, tags: v.tags ?? [] })), refresh: req.refresh });
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

/** A stub carrying only what the final BatchGet needs to fetch the video. */
const stub = (vid: string, author: string) => ({ vid, author_openid: author }) as VideoItem;

// rec and "more like this" -------------------------------------------------------------------------

async function recommend(ctx: Context, followees: string[]): Promise<Outcome> {
  const { req, state, found } = ctx;
  const personal = !!req.viewer;
  const similar = req.similarTo ? (found.get(itemId(hubItems.video(req.similarTo))) as VideoItem | undefined) : undefined;
  if (req.similarTo && !similar) throw new NotFoundError(`Video "${req.similarTo.slice(0, 64)}" does not exist`);

  const served = req.refresh ? new Set<string>() : state.served;
  const sharedVid = ctx.sharedVid && !served.has(ctx.sharedVid) && ctx.sharedVid !== req.similarTo ? ctx.sharedVid : undefined;

  // Requests 2-6, in parallel, each bounded.
  const pool = new CandidatePool();
  // Sources that return whole video items spare the final read of those videos.
  const full = new Map<string, VideoItem>();
  const addVideos = (videos: VideoItem[], source: 'trending' | 'fresh' | 'author') =>
    videos.forEach((v) => {
      full.set(v.vid, v);
      pool.add(videoCandidate(v), source);
    });
  const batchKeys: Key[] = [];
  if (sharedVid) batchKeys.push(hubItems.video(sharedVid));
  const reads: Promise<unknown>[] = [];
  let explore: string | null | undefined;

  if (similar) {
    const tags = (similar.tags ?? []).slice(0, LIMITS.similarTags);
    for (const tag of tags) reads.push(tagCandidates(tag, LIMITS.similarTag).then((cs) => cs.forEach((c) => pool.add(c, 'tag'))));
    reads.push(authorVideos(similar.author_openid, LIMITS.author).then((vs) => addVideos(vs, 'author')));
    if (tags.length < LIMITS.similarTags) reads.push(trendingVideos(LIMITS.trending).then((vs) => addVideos(vs, 'trending')));
    for (const c of coLikeCandidates(found.get(itemId(hubItems.coLikes(similar.vid))))) pool.add(c, 'colike');
  } else {
    reads.push(trendingVideos(LIMITS.trending).then((vs) => addVideos(vs, 'trending')));
    const from = req.refresh ? undefined : state.explore;
    reads.push(
      newestPage(from, LIMITS.explore).then(({ videos, done }) => {
        addVideos(videos, 'fresh');
        explore = done || videos.length === 0 ? null : `${videos[videos.length - 1]!.created_at}#${videos[videos.length - 1]!.vid}`;
      }),
    );
    if (personal) {
      // One tag per call, drawn among the three strongest by weight: the list follows the taste
      // and still varies between calls.
      const top = topTags(state, 3);
      const total = top.reduce((s, [, w]) => s + w, 0);
      let r = noise(ctx.seed, 'tag') * total;
      const tag = top.find(([, w]) => (r -= w) < 0)?.[0] ?? top[0]?.[0];
      if (tag) reads.push(tagCandidates(tag, LIMITS.tag).then((cs) => cs.forEach((c) => pool.add(c, 'tag'))));
      for (const e of state.likedRecent.slice(-LIMITS.coLikeSeeds)) batchKeys.push(hubItems.coLikes(e.vid));
      for (const author of followees) batchKeys.push(hubItems.authorLatest(author));
    }
  }
  let batch: Found = new Map();
  if (batchKeys.length) reads.push((batchGetHubItems(batchKeys) as Promise<Found>).then((b) => (batch = b)));
  await Promise.all(reads);
  ctx.used += reads.length;
  if (!similar && personal) {
    for (const e of state.likedRecent.slice(-LIMITS.coLikeSeeds)) for (const c of coLikeCandidates(batch.get(itemId(hubItems.coLikes(e.vid))))) pool.add(c, 'colike');
    for (const author of followees) for (const c of latestCandidates(author, batch.get(itemId(hubItems.authorLatest(author))))) pool.add(c, 'follow');
  }

  const shared = sharedVid ? (batch.get(itemId(hubItems.video(sharedVid))) as VideoItem | undefined) : undefined;
  const excluded = new Set([...(shared ? [shared.vid] : []), ...(similar ? [similar.vid] : [])]);

  // Too few unseen candidates: spend what is left of the budget (two requests stay reserved for the
  // final read and the state write) walking further into the catalog, where the next call resumes.
  const fresh = (c: { vid: string }) => !state.disliked.has(c.vid) && !ctx.seen.has(c.vid) && !served.has(c.vid) && !excluded.has(c.vid);
  while (!similar && explore !== null && ctx.used + 2 < MAX_REQUESTS && pool.values().filter(fresh).length < req.count) {
    ctx.used++;
    const { videos, done } = await newestPage(explore ?? (req.refresh ? undefined : state.explore), LIMITS.explore);
    addVideos(videos, 'fresh');
    explore = done || videos.length === 0 ? null : `${videos[videos.length - 1]!.created_at}#${videos[videos.length - 1]!.vid}`;
  }

  const rankCtx: RankContext = {
    nowMs: ctx.nowMs,
    seed: ctx.seed,
    taste: state.tags,
    followedAuthors: new Set(followees),
    disliked: state.disliked,
    seen: ctx.seen,
    served,
    exclude: excluded,
    ...(similar ? { similarTo: { vid: similar.vid, tags: similar.tags ?? [], author_openid: similar.author_openid } } : {}),
  };
  const ranked = rankCandidates(pool.values(), rankCtx, personal);
  const slots = req.count - (shared ? 1 : 0);
  const picked = selectList(ranked, slots, shared ? [shared.author_openid] : []);
  const videos = [...(shared ? [shared] : []), ...picked.map((s) => full.get(s.candidate.vid) ?? stub(s.candidate.vid, s.candidate.author_openid))];
  return {
    videos,
    fav_index: videos.length > 0 ? encodeCursor({ o: 'rec' }) : '',
    change: { served: videos.map((v) => v.vid), explore },
  };
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
  // Reserved: phase 2's read, the final read and the state write.
  let budget = MAX_REQUESTS - ctx.used - 3 - (sharedVid ? 1 : 0);
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
    const window = all.slice(index, index + LIMITS.walkPage);
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
    const page = await postingsPage(gram, pos.p, LIMITS.walkPage);
    const vids = page.entries.map((e) => e.slice(e.lastIndexOf('#') + 1));
    const videos = vids.length ? ((await batchGetHubItems(vids.map((vid) => hubItems.video(vid)))) as Found) : new Map();
    const items = page.entries.map((entry, i) => {
      const video = videos.get(itemId(hubItems.video(vids[i]!))) as VideoItem | undefined;
      return { pos: { p: entry }, video: video && matchesTerm(video, term) ? video : undefined };
    });
    return { items, next: page.next !== undefined ? { p: page.next } : undefined };
  }
  // new, and q for a term without an indexable gram: the catalog newest first.
  const { videos, done } = await newestPage(pos.p, LIMITS.walkPage);
  const items = videos.map((v) => ({ pos: { p: `${v.created_at}#${v.vid}` }, video: order === 'q' && !matchesTerm(v, term) ? undefined : v }));
  return { items, next: done || items.length === 0 ? undefined : items[items.length - 1]!.pos };
}
