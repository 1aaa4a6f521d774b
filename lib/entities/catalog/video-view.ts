import { storedCount } from '../../platform/db/attributes.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { accountIn, accountKeys, isDeleted } from '../accounts/accounts.js';
import { reactionKeys } from './reaction-items.js';
import { ownCommentCount, ownLikeCount } from './own-counts.js';
import { clock } from '../../platform/clock.js';
import type { VideoView } from './video-view-schema.js';
import type { VideoItem } from './video-items.js';

/**
 * The fields of a stored video (`videoKeys.video`, see videos.ts) that a response needs. Counters may be
 * absent on old items: read as 0. `author_nickname` is a denormalized name for videos whose author
 * has no account (e.g. a demo catalog).
 */
export type StoredVideo = Omit<VideoItem, 'updated_at' | 'gsi3sk' | 'like_count' | 'comment_count' | 'share_count'> &
  Partial<Pick<VideoItem, 'like_count' | 'comment_count' | 'share_count'>> & { author_nickname?: string; open_count?: number };

/**
 * A viewer's own items of a video, as read with it: the like, the dislike, the "commented" item
 * (own-counts.ts: the counts the viewer is shown hold the viewer's own actions).
 */
export interface OwnItems {
  like?: Record<string, unknown>;
  dislike?: Record<string, unknown>;
  commented?: Record<string, unknown>;
}

/** The one mapping from a stored video to its response shape; with `own`, the counts as that viewer sees them. */
export function toVideoView(video: StoredVideo, authorNickname: string | undefined, reactions?: { liked: boolean; disliked: boolean }, own?: OwnItems): VideoView {
  const now = own ? clock.now() : 0;
  return {
    vid: video.vid,
    title: video.title,
    description: video.description ?? '',
    cover_url: video.cover_url,
    video_url: video.video_url,
    duration_s: video.duration_s,
    tags: video.tags ?? [],
    author: { openid: video.author_openid, nickname: authorNickname ?? video.author_nickname ?? '' },
    created_at: video.created_at,
    like_count: own ? ownLikeCount(video.like_count, own, now) : storedCount(video.like_count),
    comment_count: own ? ownCommentCount(video.comment_count, own.commented, now) : storedCount(video.comment_count),
    share_count: storedCount(video.share_count),
    open_count: storedCount(video.open_count),
    ...(reactions ? { liked: reactions.liked, disliked: reactions.disliked } : {}),
  };
}

/**
 * Response shapes for a list of videos, in order: the authors' current nicknames and, when `viewer`
 * is set, the viewer's like/dislike marks and the counts as the viewer sees them (`commentedKey`:
 * the key of the viewer's "commented" item of a video, lib/entities/comments/comments.ts, which this layer
 * does not spell), all with one BatchGet (chunked past 100 keys).
 */
export async function videoViews(videos: StoredVideo[], viewer?: string, commentedKey?: (viewer: string, vid: string) => { pk: string; sk: string }): Promise<VideoView[]> {
  if (videos.length === 0) return [];
  const keys = videos.flatMap((v) => [
    accountKeys.account(v.author_openid),
    ...(viewer ? [reactionKeys.like(viewer, v.vid), reactionKeys.dislike(viewer, v.vid)] : []),
    ...(viewer && commentedKey ? [commentedKey(viewer, v.vid)] : []),
  ]);
  const found = await batchGetHubItems(keys);
  const authorName = (openid: string) => {
    const author = accountIn(found, openid);
    // A deleted author is shown without a name (docs/accounts.md, "What others see").
    return isDeleted(author) ? '' : author?.nickname;
  };
  return videos.map((v) => {
    if (!viewer) return toVideoView(v, authorName(v.author_openid));
    const own: OwnItems = {
      like: found.get(itemId(reactionKeys.like(viewer, v.vid))),
      dislike: found.get(itemId(reactionKeys.dislike(viewer, v.vid))),
      commented: commentedKey ? found.get(itemId(commentedKey(viewer, v.vid))) : undefined,
    };
    return toVideoView(v, authorName(v.author_openid), { liked: !!own.like, disliked: !!own.dislike }, own);
  });
}
