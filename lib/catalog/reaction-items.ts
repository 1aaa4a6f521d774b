import { timeKey } from '../db/keys.js';

/**
 * A person's likes and dislikes of videos (docs/data-model.md, "Access patterns"): their keys, read by every
 * video view (the `liked`/`disliked` marks) and written by lib/recommend/reactions.ts.
 */
export const reactionKeys = {
  /** openid liked vid. gsi1: LIKES#openid / liked_at#vid (my likes, newest first); gsi2: LIKERS#vid / liked_at#openid. */
  like: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `LIKE#${vid}` }),
  likesIndex: (openid: string, likedAt: string, vid: string) => ({ gsi1pk: `LIKES#${openid}`, gsi1sk: timeKey(likedAt, vid) }),
  likersIndex: (vid: string, likedAt: string, openid: string) => ({ gsi2pk: `LIKERS#${vid}`, gsi2sk: timeKey(likedAt, openid) }),
  /** openid is not interested in vid. */
  dislike: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `DISLIKE#${vid}` }),
  /** The sort-key prefixes of an account's likes and dislikes in its partition (the data export reads each range). */
  likePrefix: 'LIKE#',
  dislikePrefix: 'DISLIKE#',
};
