import { storedCount } from '../db/attributes.js';
import { batchGetHubItems, itemId } from '../db/batch.js';
import { accountKeys, isDeleted } from '../accounts/accounts.js';
import { reactionKeys } from './reaction-items.js';
import type { VideoView } from './video-view-schema.js';
import type { VideoItem } from './video-items.js';

/**
 * The fields of a stored video (`videoKeys.video`, see videos.ts) that a response needs. Counters may be
 * absent on old items: read as 0. `author_nickname` is a denormalized name for videos whose author
 * has no account (e.g. a demo catalog).
 */
export type StoredVideo = Omit<VideoItem, 'updated_at' | 'gsi3sk' | 'like_count' | 'comment_count' | 'share_count'> &
  Partial<Pick<VideoItem, 'like_count' | 'comment_count' | 'share_count'>> & { author_nickname?: string; open_count?: number };

/** The one mapping from a stored video to its response shape. */
export function toVideoView(video: StoredVideo, authorNickname: string | undefined, reactions?: { liked: boolean; disliked: boolean }): VideoView {
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
    like_count: storedCount(video.like_count),
    comment_count: storedCount(video.comment_count),
    share_count: storedCount(video.share_count),
    open_count: storedCount(video.open_count),
    ...(reactions ? { liked: reactions.liked, disliked: reactions.disliked } : {}),
  };
}

/**
 * Response shapes for a list of videos, in order: the authors' current nicknames and, when `viewer`
 * is set, the viewer's like/dislike marks, all with one BatchGet (chunked past 100 keys).
 */
export async function videoViews(videos: StoredVideo[], viewer?: string): Promise<VideoView[]> {
  if (videos.length === 0) return [];
  const keys = videos.flatMap((v) => [
    accountKeys.account(v.author_openid),
    ...(viewer ? [reactionKeys.like(viewer, v.vid), reactionKeys.dislike(viewer, v.vid)] : []),
  ]);
  const found = await batchGetHubItems<{ nickname?: string; deleted_at?: string }>(keys);
  const authorName = (openid: string) => {
    const author = found.get(itemId(accountKeys.account(openid)));
    // A deleted author is shown without a name (docs/accounts.md, "What others see").
    return isDeleted(author) ? '' : author?.nickname;
  };
  return videos.map((v) =>
    toVideoView(
      v,
      authorName(v.author_openid),
      viewer ? { liked: found.has(itemId(reactionKeys.like(viewer, v.vid))), disliked: found.has(itemId(reactionKeys.dislike(viewer, v.vid))) } : undefined,
    ),
  );
}
