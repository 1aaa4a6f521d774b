import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { VideoItem } from '../catalog/video-items.js';
import { toVideoView, type VideoView } from '../catalog/video-view.js';
import { clock } from '../clock.js';
import { batchGetHubItems, itemId } from '../db/batch.js';
import { db, tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { transactWrite, type TransactItem } from '../db/transact.js';
import { randomBase62 } from '../ids.js';
import { decodeCursor } from './cursor.js';
import { LIMITS, type Context, type FeedRequest, type Found, type Key, type Outcome } from './feed-context.js';
import { feedStateUpdate, parseFeedState, type FeedStateChange } from './feed-state.js';
import { moreLikeThis, recommend } from './rec.js';
import { feedStateWithFollows } from './sources.js';
import { walk } from './walks.js';

export interface FeedAnswer {
  list: VideoView[];
  fav_index: string;
}

/** Anonymous device state is forgotten after 30 days without a call. */
const DEVICE_TTL_SECONDS = 30 * 86_400;
const TABLE = () => tableNames.hub;

/**
 * get_next_list (docs/feed.md). A call has a budget of MAX_REQUESTS DynamoDB requests, whatever
 * the catalog size or the caller's history, counting the token check (MAX_REQUESTS and the read
 * limits are in feed-context.ts, shared with rec.ts and walks.ts):
 *   authentication (1 for a JWT) + the caller's state (1; with the followed accounts in the same
 *   Query; +1 for a share) + candidate reads (what is left) + the answer's read (1) + the state
 *   write (1).
 * Candidate sources are read in priority order while the budget lasts.
 */
export async function nextList(req: FeedRequest): Promise<FeedAnswer> {
  const nowMs = clock.now();
  // Checked in every mode, before any read: a cursor the server did not issue is 400 even where it is not used.
  const cursor = await decodeCursor(req.cursor);
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
  const ctx: Context = { req, nowMs, seed: randomBase62(8), stateKey, state, found, followees: withFollows?.followees ?? [], seen, sharedVid, cursor, used };

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
