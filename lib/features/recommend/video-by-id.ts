import { videoViews } from '../../entities/catalog/video-view.js';
import type { VideoView } from '../../entities/catalog/video-view-schema.js';
import { getVideo } from '../../entities/catalog/videos.js';
import { commentKeys } from '../../entities/comments/comments.js';
import { blockedBy } from '../../entities/social/block-items.js';
import { NotFoundError } from '../../platform/errors.js';
import { visible } from './feed-context.js';

/**
 * get_video (docs/hub-feed-api.md, "get_video"): one video by its vid, as a feed item shows it
 * (lib/entities/catalog/video-view.ts: the same fields; for a signed-in `viewer`, `liked`,
 * `disliked` and the counts as the viewer sees them). 404 for a vid no live video has: unknown, a
 * video a moderator removed (its item is gone), a publish the filter holds (no item until approved).
 * The feed's blocked-author rule (feed-context.ts `visible`): a video whose author the viewer blocked
 * is not served, answered as unknown (blocking is private, docs/moderation.md "Blocking").
 * Requests: the video (a strongly consistent GetItem: a removal's answer is final) and, signed in,
 * the viewer's block list, in parallel; then one BatchGet (the author, the viewer's like, dislike
 * and "commented" items).
 */
export async function videoById(vid: string, viewer?: string): Promise<VideoView> {
  const [video, blocked] = await Promise.all([getVideo(vid, true), viewer ? blockedBy(viewer) : new Set<string>()]);
  const shown = visible({ blocked }, video);
  if (!shown) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
  const [view] = await videoViews([shown], viewer, commentKeys.commented);
  return view!;
}
