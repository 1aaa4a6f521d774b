import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { trendUnit } from '../catalog/trend.js';
import { COLIKES_CAP, type VideoItem } from '../catalog/video-items.js';
import { getVideo } from '../catalog/videos.js';
import { clock } from '../clock.js';
import { db, tableNames } from '../db/client.js';
import { afterCommit } from '../db/failures.js';
import { hubItems } from '../db/hub-items.js';
import { cancellationCode, transactWrite, type TransactItem } from '../db/transact.js';
import { UpdateBuilder } from '../db/update-builder.js';
import { NotFoundError, UnavailableError } from '../errors.js';
import { logger } from '../logger.js';
import { addTaste, LIKED_RECENT_CAP, mergeCoLiked, parseFeedState, TASTE, type CoLikedEntry, type LikedEntry } from './feed-state.js';
import { coLikeCandidates } from './sources.js';

/**
 * like and dislike. The reaction item and every number derived from it (the video's like_count
 * and trend, the trend on its tag ranking items, the liker's like_count, the author's liked_count,
 * the liker's taste and dislike set) change in ONE transaction whose first item is conditional on
 * the reaction not existing yet: a retry or a parallel duplicate changes nothing, parallel likes from
 * different accounts all count (transactions cancelled by a conflict are retried). A failure before
 * the commit is a 503 with nothing written; after it (co-likes, the count read for the answer) the
 * reaction stands and the answer is success.
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

/** like_count, the trend and the tag rankings of a video move by one like (delta +1 or -1). */
function videoCounterItems(video: VideoItem, likes: 1 | -1, trendDelta: number): TransactItem[] {
  return [
    {
      Update: {
        TableName: TABLE(),
        Key: hubItems.video(video.vid),
        UpdateExpression: 'ADD like_count :likes, gsi3sk :trend',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':likes': likes, ':trend': trendDelta },
      },
    },
    // Unconditional: a tag removed by a concurrent edit leaves at most an unindexed number behind.
    ...(video.tags ?? []).map((tag) => ({
      Update: {
        TableName: TABLE(),
        Key: hubItems.videoTag(video.vid, tag),
        UpdateExpression: 'ADD gsi3sk :trend',
        ExpressionAttributeValues: { ':trend': trendDelta },
      },
    })),
  ];
}

/**
 * The liker's like_count and the author's liked_count (one item when they are the same account).
 * Both must exist: an ADD would otherwise create a stub account. A video whose author has no account
 * (`withAuthor` false after such a failure) is liked without the author's count.
 */
function accountCounterItems(liker: string, author: string, delta: 1 | -1, withAuthor: boolean): TransactItem[] {
  const update = (openid: string, expression: string, values: Record<string, number>): TransactItem => ({
    Update: { TableName: TABLE(), Key: hubItems.account(openid), UpdateExpression: expression, ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: values },
  });
  if (liker === author) return [update(liker, 'ADD like_count :d, liked_count :d', { ':d': delta })];
  return [update(liker, 'ADD like_count :d', { ':d': delta }), ...(withAuthor ? [update(author, 'ADD liked_count :d', { ':d': delta })] : [])];
}

function feedStateItem(openid: string, update: UpdateBuilder): TransactItem {
  return { Update: { TableName: TABLE(), Key: hubItems.feedState(openid), ...update.params() } };
}

async function requireVideo(vid: string): Promise<VideoItem> {
  const video = await getVideo(vid, true);
  if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
  return video;
}

async function currentLikeCount(vid: string): Promise<number> {
  const video = await requireVideo(vid);
  return Math.max(0, video.like_count ?? 0);
}

class AuthorMissing extends Error {}

/** What a cancelled reaction transaction means, item by item. */
function explainCancellation(error: unknown, items: TransactItem[], openid: string, author: string): 'exists' | never {
  const code = (i: number) => cancellationCode(error, i);
  if (code(0) === 'ConditionalCheckFailed') return 'exists';
  const isAccount = (key: { pk?: string; sk?: string } | undefined, who: string) => key?.pk === hubItems.account(who).pk && key.sk === hubItems.account(who).sk;
  for (let i = 1; i < items.length; i++) {
    if (code(i) !== 'ConditionalCheckFailed') continue;
    const key = (items[i]!.Update?.Key ?? items[i]!.Delete?.Key ?? items[i]!.ConditionCheck?.Key) as { pk?: string; sk?: string } | undefined;
    if (isAccount(key, openid)) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
    if (isAccount(key, author)) throw new AuthorMissing();
    // The like state moved under us: read again.
    throw new Retry();
  }
  throw error;
}

/** Best effort: "people who liked A also liked B", both ways, for the caller's latest likes. */
async function recordCoLikes(video: VideoItem, recent: LikedEntry[]): Promise<void> {
  const meta = (v: { author_openid: string; tags: string[]; created_at: string }) => ({ a: v.author_openid, t: v.tags, c: v.created_at });
  const pairs: [string, string, ReturnType<typeof meta>][] = [];
  for (const other of recent.filter((e) => e.vid !== video.vid).slice(-3)) {
    pairs.push([other.vid, video.vid, meta(video)], [video.vid, other.vid, meta(other)]);
  }
  await Promise.all(
    pairs.map(([owner, liked, m]) =>
      db
        .send(
          new UpdateCommand({
            TableName: TABLE(),
            Key: hubItems.coLikes(owner),
            UpdateExpression: 'SET n.#v = if_not_exists(n.#v, :zero) + :one, m.#v = :meta',
            ConditionExpression: 'attribute_exists(n) AND (size(n) < :cap OR attribute_exists(n.#v))',
            ExpressionAttributeNames: { '#v': liked },
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':meta': m, ':cap': COLIKES_CAP },
          }),
        )
        .catch((error: Error) => {
          if (error.name !== 'ConditionalCheckFailedException') logger.warn('co-like update failed', { vid: owner, errorName: error.name });
        }),
    ),
  );
}

/** The liker's latest likes and co-liked list, and the co-likes of the video being liked. */
async function readLikeContext(openid: string, vid: string): Promise<{ recent: LikedEntry[]; coLiked: CoLikedEntry[] }> {
  const [state, coLikes] = await Promise.all([
    db.send(new GetCommand({ TableName: TABLE(), Key: hubItems.feedState(openid), ProjectionExpression: 'lr, cl' })),
    db.send(new GetCommand({ TableName: TABLE(), Key: hubItems.coLikes(vid) })),
  ]);
  const parsed = parseFeedState(state.Item, clock.now());
  const recent = parsed.likedRecent.slice(-LIKED_RECENT_CAP);
  const added = coLikeCandidates(coLikes.Item).map((c) => ({ vid: c.vid, author_openid: c.author_openid, tags: c.tags, created_at: c.created_at, n: c.colike ?? 1 }));
  return { recent, coLiked: mergeCoLiked(parsed.coLiked, added, new Set([vid, ...recent.map((e) => e.vid)])) };
}

export async function likeVideo(openid: string, vid: string): Promise<LikeResult> {
  let withAuthor = true;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [video, { recent, coLiked }] = await Promise.all([requireVideo(vid), readLikeContext(openid, vid)]);
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    const trendDelta = trendUnit(now);
    const feed = new UpdateBuilder()
      .setValue('updated_at', nowIso)
      .setValue('entity', 'feed_state')
      .deleteFromSet('disliked', [vid])
      .appendToList('lr', [{ vid, author_openid: video.author_openid, tags: video.tags ?? [], created_at: video.created_at } satisfies LikedEntry])
      .setValue('cl', coLiked);
    addTaste(feed, video.tags ?? [], TASTE.like, now);
    const items: TransactItem[] = [
      {
        Put: {
          TableName: TABLE(),
          Item: {
            ...hubItems.like(openid, vid),
            ...hubItems.likesIndex(openid, nowIso, vid),
            ...hubItems.likersIndex(vid, nowIso, openid),
            entity: 'like',
            openid,
            vid,
            liked_at: nowIso,
            // What this like added to the trend: a dislike takes exactly this back.
            trend_add: trendDelta,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...videoCounterItems(video, 1, trendDelta),
      ...accountCounterItems(openid, video.author_openid, 1, withAuthor),
      { Delete: { TableName: TABLE(), Key: hubItems.dislike(openid, vid) } },
      feedStateItem(openid, feed),
    ];
    try {
      await transactWrite(items);
    } catch (error) {
      try {
        if (explainCancellation(error, items, openid, video.author_openid) === 'exists') return { vid, liked: true, like_count: await currentLikeCount(vid) };
      } catch (reason) {
        if (reason instanceof AuthorMissing) withAuthor = false;
        if (reason instanceof Retry || reason instanceof AuthorMissing) continue;
        throw reason;
      }
    }
    await recordCoLikes(video, recent);
    const counted = Math.max(0, video.like_count ?? 0) + 1;
    return { vid, liked: true, like_count: await afterCommit('like_count', () => currentLikeCount(vid), () => counted) };
  }
  throw new UnavailableError('The video is changing; retry shortly');
}

export async function dislikeVideo(openid: string, vid: string): Promise<DislikeResult> {
  let withAuthor = true;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [video, likeItem] = await Promise.all([
      requireVideo(vid),
      db.send(new GetCommand({ TableName: TABLE(), Key: hubItems.like(openid, vid), ConsistentRead: true })).then((o) => o.Item as { trend_add?: number } | undefined),
    ]);
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    const feed = new UpdateBuilder().setValue('updated_at', nowIso).setValue('entity', 'feed_state').addToSet('disliked', [vid]);
    addTaste(feed, video.tags ?? [], TASTE.dislike, now);
    const items: TransactItem[] = [
      {
        Put: {
          TableName: TABLE(),
          Item: { ...hubItems.dislike(openid, vid), entity: 'dislike', openid, vid, disliked_at: nowIso },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    if (likeItem) {
      items.push(
        { Delete: { TableName: TABLE(), Key: hubItems.like(openid, vid), ConditionExpression: 'attribute_exists(pk)' } },
        ...videoCounterItems(video, -1, -(likeItem.trend_add ?? 0)),
        ...accountCounterItems(openid, video.author_openid, -1, withAuthor),
      );
    } else {
      // A like landing between our read and this write would survive the dislike: refuse and re-read.
      items.push({ ConditionCheck: { TableName: TABLE(), Key: hubItems.like(openid, vid), ConditionExpression: 'attribute_not_exists(pk)' } });
    }
    items.push(feedStateItem(openid, feed));
    try {
      await transactWrite(items);
    } catch (error) {
      try {
        explainCancellation(error, items, openid, video.author_openid); // 'exists': already disliked, nothing to change
        return { vid, disliked: true, like_count: await currentLikeCount(vid) };
      } catch (reason) {
        if (reason instanceof AuthorMissing) withAuthor = false;
        if (reason instanceof Retry || reason instanceof AuthorMissing) continue;
        throw reason;
      }
    }
    const counted = Math.max(0, (video.like_count ?? 0) - (likeItem ? 1 : 0));
    return { vid, disliked: true, like_count: await afterCommit('like_count', () => currentLikeCount(vid), () => counted) };
  }
  throw new UnavailableError('The video is changing; retry shortly');
}
