import { timeKey } from '../../platform/db/keys.js';

/**
 * A person's likes and dislikes of videos (docs/data-model.md, "Access patterns"): their keys, read by every
 * video view (the `liked`/`disliked` marks) and written by lib/features/recommend/reactions.ts.
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
