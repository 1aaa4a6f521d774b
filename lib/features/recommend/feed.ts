import type { VideoItem } from '../../entities/catalog/video-items.js';
import { toVideoView } from '../../entities/catalog/video-view.js';
import type { VideoView } from '../../entities/catalog/video-view-schema.js';
import { clock } from '../../platform/clock.js';
import { batchGetHubItems, batchWriteHubItems, itemId, type BatchWrite } from '../../platform/db/batch.js';
import { shareExpired, type StoredShare } from '../share/shares.js';
import { accountIn, accountKeys } from '../../entities/accounts/accounts.js';
import { videoKeys } from '../../entities/catalog/video-items.js';
import { feedKeys } from './feed-state.js';
import { reactionKeys } from '../../entities/catalog/reaction-items.js';
import { commentKeys } from '../../entities/comments/comments.js';
import { shareKeys } from '../share/shares.js';
import { randomBase62 } from '../../platform/ids.js';
import { decodeCursor } from './cursor.js';
import { LIMITS, writesState, type Context, type FeedRequest, type Found, type Key, type Outcome } from './feed-context.js';
import { feedChunkAttributes, likedHash, parseFeedState, type FeedStateChange } from './feed-state.js';
import { moreLikeThis, recommend } from './rec.js';
import { deviceFeedState, feedStateWithFollows } from './sources.js';
import { walk } from './walks.js';

export interface FeedAnswer {
  list: VideoView[];
  fav_index: string;
}

/**
 * get_next_list (docs/feed.md). A call has a budget of MAX_REQUESTS DynamoDB requests, whatever
 * the catalog size or the caller's history, counting the token check (MAX_REQUESTS and the read
 * limits are in feed-context.ts, shared with rec.ts and walks.ts):
 *   authentication (1 for a JWT) + the caller's state (1: the state item, its call records and the
 *   followed accounts in one Query; +1 for a share or "more like this") + candidate reads (what is
 *   left) + the answer's read (1; 2 past 100 keys: answerReads) + the state write (1 BatchWrite;
 *   none when nothing changed).
 * Candidate sources are read in priority order while the budget lasts.
 */
export async function nextList(req: FeedRequest): Promise<FeedAnswer> {
  const nowMs = clock.now();
  // Checked in every mode, before any read: a cursor the server did not issue is 400 even where it is not used.
  const cursor = await decodeCursor(req.cursor);
  const stateKey = req.viewer ? feedKeys.feedState(req.viewer) : req.device ? feedKeys.deviceFeedState(req.device) : undefined;
  let used = req.authRequests;

  // The first read: the caller's state with its call records (signed in: and the followed
  // accounts), one Query; in parallel, when asked for, one BatchGet of the share, the "more like
  // this" video and its neighbour list.
  const keys: Key[] = [];
  if (req.shareid) keys.push(shareKeys.share(req.shareid));
  if (req.similarTo) keys.push(videoKeys.video(req.similarTo), videoKeys.neighbours(req.similarTo));
  const [found, stateRead] = await Promise.all([
    keys.length ? (batchGetHubItems(keys) as Promise<Found>) : Promise.resolve(new Map() as Found),
    req.viewer ? feedStateWithFollows(req.viewer, LIMITS.followees) : req.device ? deviceFeedState(req.device) : Promise.resolve(undefined),
  ]);
  used += (keys.length ? 1 : 0) + (stateRead ? 1 : 0);

  const state = parseFeedState(stateRead?.state, nowMs, stateRead?.chunks, stateRead?.likedChunks);
  const seen = new Set([...state.seen, ...req.viewed]);
  const liked = (vid: string) => state.liked.has(likedHash(vid));
  const share = req.shareid ? (found.get(itemId(shareKeys.share(req.shareid))) as StoredShare | undefined) : undefined;
  // An expired share is gone (lib/features/share/shares.ts): DynamoDB's TTL removes it only later.
  const sharedVid = share && typeof share.vid === 'string' && !shareExpired(share, nowMs) && !state.disliked.has(share.vid) ? share.vid : undefined;
  const ctx: Context = { req, nowMs, seed: randomBase62(8), stateKey, state, found, followees: req.viewer && !req.q && !req.similarTo && req.order === 'rec' ? (stateRead?.followees ?? []) : [], blocked: stateRead?.blocked ?? new Set(), seen, liked, sharedVid, cursor, used };

  let outcome: Outcome;
  if (req.q) outcome = await walk(ctx, 'q');
  else if (req.similarTo) outcome = await moreLikeThis(ctx);
  else if (req.order === 'rec') outcome = await recommend(ctx);
  else outcome = await walk(ctx, req.order);

  // One BatchGet for the answer: videos known only by id, author nicknames, the caller's likes and
  // "commented" items (the marks, and the counts as the caller sees them: docs/data-model.md, "Read
  // your own writes"; the feed never shows a video the caller disliked), and the videos reported
  // as viewed (their tags feed the taste; unknown vids are not recorded).
  const shown = outcome.videos;
  const missing = shown.filter((v) => !v.title).map((v) => videoKeys.video(v.vid));
  const lookupKeys: Key[] = [...new Set(shown.map((v) => v.author_openid))].map((a) => accountKeys.account(a));
  if (req.viewer) for (const v of shown) lookupKeys.push(reactionKeys.like(req.viewer, v.vid), commentKeys.commented(req.viewer, v.vid));
  const viewedKeys = req.viewed.map((vid) => videoKeys.video(vid));
  const lookups = (await batchGetHubItems([...missing, ...lookupKeys, ...viewedKeys])) as Found;
  const list: VideoView[] = [];
  for (const item of shown) {
    const video = item.title ? item : (lookups.get(itemId(videoKeys.video(item.vid))) as VideoItem | undefined);
    if (!video) continue;
    const nickname = accountIn(lookups, video.author_openid)?.nickname;
    if (!req.viewer) {
      list.push(toVideoView(video, nickname));
      continue;
    }
    const like = lookups.get(itemId(reactionKeys.like(req.viewer, video.vid)));
    const commented = lookups.get(itemId(commentKeys.commented(req.viewer, video.vid)));
    list.push(toVideoView(video, nickname, { liked: !!like, disliked: false }, { like, commented }));
  }
  const viewed = req.viewed
    .map((vid) => lookups.get(itemId(videoKeys.video(vid))) as VideoItem | undefined)
    .filter((v): v is VideoItem => !!v)
    .map((v) => ({ vid: v.vid, tags: v.tags ?? [] }));

  await saveState(ctx, { ...outcome.change, viewed, refresh: req.refresh });
  return { list, fav_index: outcome.fav_index };
}

/** The longest list of vids one history item carries in its gsi1 sort key (DynamoDB allows 1,024 bytes). */
const HISTORY_KEY_BYTES = 900;

/**
 * The last request: one BatchWrite of this call's record and, for a signed-in caller who reported
 * views, its history item(s): plain puts of new small items, none rewritten (docs/feed.md, "Feed
 * state"). Each stands alone: a record without its history item (or the reverse) is a consistent
 * state, and a put sent again writes the same item.
 */
async function saveState(ctx: Context, change: FeedStateChange): Promise<void> {
  if (!ctx.stateKey) return;
  if (!writesState(ctx)) return;
  const writes: BatchWrite[] = [];
  const attributes = feedChunkAttributes(ctx.state, change, ctx.nowMs);
  const viewer = ctx.req.viewer;
  if (attributes) {
    const key = viewer ? feedKeys.feedChunk(viewer, ctx.nowMs, ctx.seed) : feedKeys.deviceFeedChunk(ctx.req.device, ctx.nowMs, ctx.seed);
    writes.push({ put: { ...key, ...attributes } });
  }
  if (viewer && change.viewed.length > 0) {
    const seenAt = new Date(ctx.nowMs).toISOString();
    const groups: string[][] = [[]];
    let bytes = 0;
    for (const { vid } of change.viewed) {
      if (bytes + vid.length + 1 > HISTORY_KEY_BYTES) {
        groups.push([]);
        bytes = 0;
      }
      groups[groups.length - 1]!.push(vid);
      bytes += vid.length + 1;
    }
    groups.forEach((vids, i) =>
      writes.push({ put: { ...feedKeys.viewHistory(viewer, seenAt, `${ctx.seed}${i}`), ...feedKeys.viewHistoryIndex(viewer, seenAt, vids), entity: 'history', openid: viewer, seen_at: seenAt } }),
    );
  }
  if (writes.length) await batchWriteHubItems(writes);
}
