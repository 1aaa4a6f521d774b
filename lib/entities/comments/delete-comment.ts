import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { db, isConditionalCheckFailed } from '../../platform/db/client.js';
import { retryOnConflict } from '../../platform/db/transact.js';
import { ForbiddenError, NotFoundError } from '../../platform/errors.js';
import { findComment, tombstoneUpdate, tombstoneView, type CommentView, type StoredComment } from './comments.js';

/** What comment_delete answers, the first time and every time after (docs/hub-api.md, "comment_delete"). */
export interface CommentDeleted {
  comment: CommentView;
  deleted: true;
}

/** The comment `cid` of video `vid`, or 404 (an unknown cid, or one of another video). */
export async function commentOfVideo(vid: string, cid: string): Promise<StoredComment & { deleted_at?: string }> {
  const comment = await findComment(cid);
  if (!comment || comment.vid !== vid) throw new NotFoundError(`Comment "${cid.slice(0, 64)}" does not exist on video "${vid.slice(0, 64)}"`);
  return comment;
}

/**
 * comment_delete by the comment's author (docs/moderation.md, "Deleting a comment"): the comment
 * becomes a tombstone in place (comments.ts tombstoneUpdate: one conditional update), so its number,
 * its video's comment_count and every page stay. A comment that is already a tombstone answers the
 * same 200 to whoever asks (comment_get shows it removed to everyone anyway); a live comment of
 * someone else is 403. Not audited: the author acts on their own content (a moderator's removal is,
 * lib/features/moderation/actions.ts).
 */
export async function deleteOwnComment({ openid, vid, cid }: { openid: string; vid: string; cid: string }): Promise<CommentDeleted> {
  const comment = await commentOfVideo(vid, cid);
  if (comment.openid && comment.openid !== openid) throw new ForbiddenError('Only its author can delete this comment');
  if (comment.openid) {
    try {
      await retryOnConflict(() => db.send(new UpdateCommand(tombstoneUpdate(comment, openid, 'author', clock.nowIso()))));
    } catch (error) {
      // Removed meanwhile (a repeat, a moderator, the account's erasure): a tombstone all the same.
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
  return { comment: tombstoneView(comment), deleted: true };
}
