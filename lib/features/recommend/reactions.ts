import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { trendUnit } from '../../entities/catalog/trend.js';
import type { VideoItem } from '../../entities/catalog/video-items.js';
import { getVideo } from '../../entities/catalog/videos.js';
import { clock } from '../../platform/clock.js';
import { db, tableNames } from '../../platform/db/client.js';
import { accountCounterUpdate, accountKeys, liveAccountCheck } from '../../entities/accounts/accounts.js';
import { feedKeys } from './feed-state.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { UpdateBuilder } from '../../platform/db/update-builder.js';
import { NotFoundError, UnavailableError } from '../../platform/errors.js';
import { addTaste, LIKED_CHUNK, LIKED_RECENT_CAP, likedHash, parseFeedState, TASTE } from './feed-state.js';
import { dislikeDelete, dislikeItem, getOwnDislike, getOwnLike, likeDelete, likeItem, noLikeCheck, reactionPut } from '../../entities/catalog/reaction-items.js';
import { ownLikeCount } from '../../entities/catalog/own-counts.js';



/**
 * like and dislike. The reaction item and what must be exact at once and belongs to the caller alone
 * (the liker's like_count, taste and dislike set) change in ONE transaction whose first item is
 * conditional on the reaction not existing yet: a retry or a parallel duplicate changes nothing. No
 * item another account's reaction also writes is in it, so parallel likes of one video, or of one
 * author's videos, never conflict. The numbers every liker moves (the video's like_count and trend,
 * the trend on its tag ranking items, the author's liked_count) follow from the table's
 * stream (lib/features/streams/counters.ts), applied exactly once, within seconds; the like item carries what
 * they need (author, tags, the trend it added, the liker's latest likes). A failure before the commit
 * is a 503 with nothing written.
 *
 * The like_count they answer is the caller's own view (docs/data-model.md, "Read your own writes"):
 * what the caller was shown before, plus the like or less the removed like, kept on the like or
 * dislike item so that what the caller reads next is never on the other side of it.
 */
const TABLE = () => tableNames.hub;
const ATTEMPTS = 4;

export interface LikeResult {
  vid: string;
  liked: true;
  like_count: number;
}
export interface DislikeResult {
  vid: string;
  disliked: true;
  like_count: number;
}

class Retry extends Error {}

/**
 * The liker's own like_count (must exist: an ADD would otherwise create a stub account), which also
 * refuses the reaction of a deleted account (docs/accounts.md, "Erasure").
 */
const likerCountItem = (openid: string, delta: 1 | -1): TransactItem => accountCounterUpdate(openid, { like_count: delta });

function feedStateItem(openid: string, update: UpdateBuilder): TransactItem {
  return { Update: { TableName: TABLE(), Key: feedKeys.feedState(openid), ...update.params() } };
}

async function requireVideo(vid: string): Promise<VideoItem> {
  const video = await getVideo(vid, true);
  if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
  return video;
}

/** What a cancelled reaction transaction means, item by item. */
function explainCancellation(error: unknown, items: TransactItem[], openid: string): 'exists' | never {
  const code = (i: number) => cancellationCode(error, i);
  if (code(0) === 'ConditionalCheckFailed') return 'exists';
  const account = accountKeys.account(openid);
  for (let i = 1; i < items.length; i++) {
    if (code(i) !== 'ConditionalCheckFailed') continue;
    const key = (items[i]!.Update?.Key ?? items[i]!.Delete?.Key ?? items[i]!.ConditionCheck?.Key) as { pk?: string; sk?: string } | undefined;
    if (key?.pk === account.pk && key.sk === account.sk) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
    // The like state moved under us: read again.
    throw new Retry();
  }
  throw error;
}

/** The liker's latest likes (vids, oldest first) and how many likes the liked chunks hold. */
async function readLikeContext(openid: string): Promise<{ recent: string[]; likes: number }> {
  const state = await db.send(new GetCommand({ TableName: TABLE(), Key: feedKeys.feedState(openid), ProjectionExpression: 'lr, lc' }));
  const parsed = parseFeedState(state.Item, clock.now());
  return { recent: parsed.likedRecent, likes: parsed.likes };
}

/**
 * The like's hash joins the liked chunk the state's count points to (docs/feed.md, "Feed state"):
 * an ADD to a number set, so a retry that got this far adds nothing twice. Two likes at the same
 * moment may both write the same chunk: it then holds a little more than LIKED_CHUNK.
 */
function likedChunkItem(openid: string, vid: string, likes: number): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: feedKeys.likedChunk(openid, Math.floor(likes / LIKED_CHUNK)),
      UpdateExpression: 'ADD h :h SET entity = :e',
      ExpressionAttributeValues: { ':h': new Set([likedHash(vid)]), ':e': 'liked_hashes' },
    },
  };
}

/**
 * The feed state's update in a like. The state's `disliked` set holds exactly the caller's dislike
 * items (both change in the same transactions), so unless `clearDislike`, the like skips deleting a
 * dislike item and instead requires the vid not to be in the set: a like of a video never disliked,
 * the usual case, writes one item less.
 */
function likeFeedStateItem(openid: string, vid: string, update: UpdateBuilder, clearDislike: boolean): TransactItem {
  const item = feedStateItem(openid, update);
  if (clearDislike) return item;
  const params = update.params();
  return {
    Update: {
      ...item.Update!,
      ConditionExpression: 'NOT contains(#disliked, :vid)',
      ExpressionAttributeNames: { ...params.ExpressionAttributeNames, '#disliked': 'disliked' },
      ExpressionAttributeValues: { ...params.ExpressionAttributeValues, ':vid': vid },
    },
  };
}

export async function likeVideo(openid: string, vid: string): Promise<LikeResult> {
  let clearDislike = false;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [video, { recent, likes }, disliked] = await Promise.all([
      requireVideo(vid),
      readLikeContext(openid),
      clearDislike ? getOwnDislike(openid, vid) : undefined,
    ]);
    const now = clock.now();
    // What the caller was shown before (at most a recent dislike's answer), plus this like.
    const answer = ownLikeCount(video.like_count, { dislike: disliked }, now) + 1;
    const nowIso = new Date(now).toISOString();
    const trendDelta = trendUnit(now);
    const feed = new UpdateBuilder()
      .setValue('updated_at', nowIso)
      .setValue('entity', 'feed_state')
      .deleteFromSet('disliked', [vid])
      .addNumber('lc', 1);
    // The latest likes' vids, written anew (the like rewrites the state item anyway): bounded and
    // small whatever the account's history. Two likes of one account at the same moment may leave
    // one of them out of `lr`; the liked chunks count both.
    feed.setValue('lr', [...recent.filter((v) => v !== vid).slice(-(LIKED_RECENT_CAP - 1)), vid]);
    addTaste(feed, video.tags ?? [], TASTE.like, now);
    const items: TransactItem[] = [
      reactionPut(likeItem(openid, video, nowIso, trendDelta, answer)),
      likerCountItem(openid, 1),
      ...(clearDislike ? [dislikeDelete(openid, vid)] : []),
      likedChunkItem(openid, vid, likes),
      // Last: a failed condition here means the video was disliked (see below).
      likeFeedStateItem(openid, vid, feed, clearDislike),
    ];
    try {
      await transactWrite(items);
    } catch (error) {
      // The caller had disliked the video: like again, clearing the dislike.
      if (!clearDislike && cancellationCode(error, items.length - 1) === 'ConditionalCheckFailed' && cancellationCode(error, 0) !== 'ConditionalCheckFailed') {
        clearDislike = true;
        attempt--;
        continue;
      }
      try {
        if (explainCancellation(error, items, openid) === 'exists') {
          // Liked already (a retry, a parallel duplicate): that like's answer holds.
          return { vid, liked: true, like_count: ownLikeCount(video.like_count, { like: await getOwnLike(openid, vid) }, clock.now()) };
        }
      } catch (reason) {
        if (reason instanceof Retry) continue;
        throw reason;
      }
    }
    return { vid, liked: true, like_count: answer };
  }
  throw new UnavailableError('The video is changing; retry shortly');
}

export async function dislikeVideo(openid: string, vid: string): Promise<DislikeResult> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [video, like] = await Promise.all([requireVideo(vid), getOwnLike(openid, vid)]);
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    // What the caller was shown before (at least a recent like's answer), less the like it removes.
    const before = ownLikeCount(video.like_count, { like }, now);
    const answer = like ? Math.max(0, before - 1) : before;
    const feed = new UpdateBuilder().setValue('updated_at', nowIso).setValue('entity', 'feed_state').addToSet('disliked', [vid]);
    addTaste(feed, video.tags ?? [], TASTE.dislike, now);
    // A dislike that removed a like keeps its answer: the caller is shown no more while it is recent.
    const items: TransactItem[] = [reactionPut(dislikeItem(openid, vid, nowIso, like ? answer : undefined))];
    if (like) {
      // The removed like's stream record takes back its counts and trend on the video, its tags and its author.
      items.push(likeDelete(openid, vid), likerCountItem(openid, -1));
    } else {
      // A like landing between our read and this write would survive the dislike: refuse and re-read.
      // No update of the account item here: its own check refuses a deleted account.
      items.push(noLikeCheck(openid, vid), liveAccountCheck(openid));
    }
    items.push(feedStateItem(openid, feed));
    try {
      await transactWrite(items);
    } catch (error) {
      try {
        // 'exists': already disliked (by a parallel retry, if the like was still there when read).
        explainCancellation(error, items, openid);
        return { vid, disliked: true, like_count: ownLikeCount(video.like_count, { dislike: await getOwnDislike(openid, vid) }, clock.now()) };
      } catch (reason) {
        if (reason instanceof Retry) continue;
        throw reason;
      }
    }
    return { vid, disliked: true, like_count: answer };
  }
  throw new UnavailableError('The video is changing; retry shortly');
}
