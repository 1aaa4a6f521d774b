import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../platform/db/client.js';
import { itemParser } from '../../platform/db/item-check.js';
import { timeKey } from '../../platform/db/keys.js';
import type { TransactItem } from '../../platform/db/transact.js';

/**
 * A person's likes and dislikes of videos (docs/data-model.md, "Access patterns"): their keys, items,
 * checked parse, reads and transaction items, read by every video view (the `liked`/`disliked`
 * marks) and composed into one transaction by lib/features/recommend/reactions.ts.
 */
export const reactionKeys = {
  /** openid liked vid. gsi1: LIKES#openid / liked_at#vid (my likes, newest first); gsi2: LIKERS#vid / liked_at#openid. */
  like: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `LIKE#${vid}` }),
  likesIndex: (openid: string, likedAt: string, vid: string) => ({ gsi1pk: `LIKES#${openid}`, gsi1sk: timeKey(likedAt, vid) }),
  likersIndex: (vid: string, likedAt: string, openid: string) => ({ gsi2pk: `LIKERS#${vid}`, gsi2sk: timeKey(likedAt, openid) }),
  /** The likers' partition of a video in gsi2 (the feed's model reads every video's). */
  likers: (vid: string) => reactionKeys.likersIndex(vid, '', '').gsi2pk,
  /** openid is not interested in vid. */
  dislike: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `DISLIKE#${vid}` }),
  /** The sort-key prefixes of an account's likes and dislikes in its partition (the data export reads each range). */
  likePrefix: 'LIKE#',
  dislikePrefix: 'DISLIKE#',
};

/**
 * A like item as the like operation writes it (lib/features/recommend/reactions.ts), with its index keys: my
 * likes (gsi1) and the video's likers (gsi2, which the feed's model reads). `trendAdd` is what the
 * like added to the video's trend (a dislike takes exactly this back); the video's author, tags and
 * creation are for the stream processor (whose liked_count, which tag rankings). `shownLikeCount`
 * is the like_count the like answered: the liker is shown no less while it is recent
 * (own-counts.ts).
 */
export function likeItem(openid: string, video: { vid: string; author_openid: string; tags?: string[]; created_at: string }, likedAt: string, trendAdd: number, shownLikeCount?: number) {
  return {
    ...reactionKeys.like(openid, video.vid),
    ...reactionKeys.likesIndex(openid, likedAt, video.vid),
    ...reactionKeys.likersIndex(video.vid, likedAt, openid),
    entity: 'like',
    openid,
    vid: video.vid,
    liked_at: likedAt,
    trend_add: trendAdd,
    author_openid: video.author_openid,
    tags: video.tags ?? [],
    video_created_at: video.created_at,
    ...(shownLikeCount === undefined ? {} : { shown_like_count: shownLikeCount }),
  };
}

/** A dislike item as the dislike operation writes it. `shownLikeCount`: the like_count it answered when it removed a like (own-counts.ts). */
export function dislikeItem(openid: string, vid: string, dislikedAt: string, shownLikeCount?: number) {
  return { ...reactionKeys.dislike(openid, vid), entity: 'dislike', openid, vid, disliked_at: dislikedAt, ...(shownLikeCount === undefined ? {} : { shown_like_count: shownLikeCount }) };
}

export type LikeItem = ReturnType<typeof likeItem>;
export type DislikeItem = ReturnType<typeof dislikeItem>;

/** The checked parse of a like item (what the stream processor and the own counts read). */
export const likeFromItem = itemParser<LikeItem>('like', {
  entity: 'like',
  required: { openid: 'string', vid: 'string', liked_at: 'string' },
  optional: { trend_add: 'number', author_openid: 'string', tags: 'list', shown_like_count: 'number' },
});

/** The checked parse of a dislike item. */
export const dislikeFromItem = itemParser<DislikeItem>('dislike', {
  entity: 'dislike',
  required: { openid: 'string', vid: 'string', disliked_at: 'string' },
  optional: { shown_like_count: 'number' },
});

const TABLE = () => tableNames.hub;
const read = async (key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item;

/** openid's like of vid, strongly consistent (the answer of a retry, the like a dislike removes). */
export const getOwnLike = async (openid: string, vid: string): Promise<LikeItem | undefined> => likeFromItem(await read(reactionKeys.like(openid, vid)));

/** openid's dislike of vid, strongly consistent (the answer of a retry, the dislike a like clears). */
export const getOwnDislike = async (openid: string, vid: string): Promise<DislikeItem | undefined> => dislikeFromItem(await read(reactionKeys.dislike(openid, vid)));

/** A new like or dislike, as a transaction item: its condition fails when the caller reacted so already. */
export const reactionPut = (item: LikeItem | DislikeItem): TransactItem => ({ Put: { TableName: TABLE(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } });

/** The like removed by a dislike, as a transaction item: its condition fails when the like is gone meanwhile. */
export const likeDelete = (openid: string, vid: string): TransactItem => ({ Delete: { TableName: TABLE(), Key: reactionKeys.like(openid, vid), ConditionExpression: 'attribute_exists(pk)' } });

/** A check that openid has not liked vid (a dislike of a video not liked), as a transaction item. */
export const noLikeCheck = (openid: string, vid: string): TransactItem => ({ ConditionCheck: { TableName: TABLE(), Key: reactionKeys.like(openid, vid), ConditionExpression: 'attribute_not_exists(pk)' } });

/** The dislike a like clears, as a transaction item. */
export const dislikeDelete = (openid: string, vid: string): TransactItem => ({ Delete: { TableName: TABLE(), Key: reactionKeys.dislike(openid, vid) } });
