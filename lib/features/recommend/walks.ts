import { bestGram, matchesTerm, normalizeSearchText, postingsPage } from '../../entities/catalog/search-index.js';
import type { VideoItem } from '../../entities/catalog/video-items.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { videoKeys, videoPartitions } from '../../entities/catalog/video-items.js';
import { ValidationError } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import { encodeCursor, termHash, type WalkCursor } from './cursor.js';
import { LIMITS, spare, visible, type Context, type Found, type Outcome } from './feed-context.js';
import { WALK_SKIP_PER_CALL, type WalkOrder } from './feed-state.js';
import { catalogPage, trendingPage } from './sources.js';

// new, hot, q: walks with a cursor -------------------------------------------------------------------

interface WalkItem {
  /** The position right after this item. */
  pos: { p?: string; t?: number };
  video?: VideoItem;
}

export async function walk(ctx: Context, order: WalkOrder): Promise<Outcome> {
  const { req, state } = ctx;
  const term = order === 'q' ? normalizeSearchText(req.q) : '';
  const hash = order === 'q' ? termHash(term) : undefined;
  let cursor = req.refresh ? undefined : ctx.cursor;
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
  // Phase 1 pages first; phase 2's read, when phase 1 ends in this call, takes a request left over,
  // or waits for the next call (a page of new or hot reads every shard of its list: a budget of 2,
  // as an access key's call has, must still fit one).
  let budget = spare(ctx) - (sharedVid ? 1 : 0);
  const sharedRead = sharedVid ? (batchGetHubItems([videoKeys.video(sharedVid)]) as Promise<Found>) : Promise.resolve(new Map() as Found);
  const room = req.count - (sharedVid ? 1 : 0);

  const list: VideoItem[] = [];
  const inList = new Set<string>();
  const skippedNow: string[] = [];
  const skippedVideos = new Map<string, VideoItem>();
  const take = (video: VideoItem) => {
    if (state.disliked.has(video.vid) || inList.has(video.vid) || video.vid === sharedVid || !visible(ctx, video)) return;
    if (ctx.seen.has(video.vid) || ctx.liked(video.vid)) {
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
  const pageCost = pageRequests(order, gram);
  while (phase === 1 && list.length < room && skippedNow.length < WALK_SKIP_PER_CALL && budget >= pageCost) {
    budget -= pageCost;
    const { items, next } = await walkPage(order, gram, term, pos);
    let stoppedEarly = false;
    for (const item of items) {
      // A full page, or as many deferred videos as one call records: the next call continues here.
      if (list.length >= room || skippedNow.length >= WALK_SKIP_PER_CALL) {
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
    if (needed.length === 0 || budget >= 1) {
      const fetched = needed.length ? ((await batchGetHubItems(needed.map((vid) => videoKeys.video(vid)))) as Found) : (new Map() as Found);
      for (const vid of window) {
        if (list.length >= room) break;
        index++;
        const video = visible(ctx, skippedVideos.get(vid) ?? (fetched.get(itemId(videoKeys.video(vid))) as VideoItem | undefined));
        if (!video || state.disliked.has(vid) || inList.has(vid) || vid === sharedVid) continue;
        list.push(video);
        inList.add(vid);
      }
      done = index >= all.length;
    }
  }

  const sharedVideo = sharedVid ? visible(ctx, (await sharedRead).get(itemId(videoKeys.video(sharedVid))) as VideoItem | undefined) : undefined;
  const next: WalkCursor | undefined = done
    ? undefined
    : phase === 1
      ? { o: order, w: walkId, ph: 1, ...(pos.p !== undefined ? { p: pos.p } : {}), ...(pos.t !== undefined ? { t: pos.t } : {}), ...(hash ? { h: hash } : {}) }
      : { o: order, w: walkId, ph: 2, i: index, ...(hash ? { h: hash } : {}) };
  return {
    videos: [...(sharedVideo ? [sharedVideo] : []), ...list],
    fav_index: next ? await encodeCursor(next) : '',
    change: { served: [], walk: { order, id: walkId, skipped: skippedNow, fresh } },
  };
}

/** The requests of one phase 1 page: new and hot read every shard of their list; q its postings and their videos. */
function pageRequests(order: WalkOrder, gram: string | undefined): number {
  if (order === 'hot') return videoPartitions.trending.length;
  if (order === 'new') return videoPartitions.videos.length;
  return gram ? 2 : videoPartitions.videos.length + 1;
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
    const videos = vids.length ? ((await batchGetHubItems(vids.map((vid) => videoKeys.video(vid)))) as Found) : new Map();
    const items = page.entries.map((entry, i) => {
      const video = videos.get(itemId(videoKeys.video(vids[i]!))) as VideoItem | undefined;
      return { pos: { p: entry }, video: video && matchesTerm(video, term) ? video : undefined };
    });
    return { items, next: page.next !== undefined ? { p: page.next } : undefined };
  }
  // new, and q for a term without an indexable gram: the catalog newest first (q reads the videos'
  // text, which the index does not hold).
  const { videos, done } = await catalogPage(pos.p, order === 'q' ? LIMITS.searchPage : LIMITS.walkPage);
  const whole = order === 'q' && videos.length ? ((await batchGetHubItems(videos.map((v) => videoKeys.video(v.vid)))) as Found) : undefined;
  const items = videos.map((v) => {
    const video = whole ? (whole.get(itemId(videoKeys.video(v.vid))) as VideoItem | undefined) : v;
    return { pos: { p: `${v.created_at}#${v.vid}` }, video: video && (order !== 'q' || matchesTerm(video, term)) ? video : undefined };
  });
  return { items, next: done || items.length === 0 ? undefined : items[items.length - 1]!.pos };
}
