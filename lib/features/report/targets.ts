import { getAccount, isDeleted } from '../../entities/accounts/accounts.js';
import { getVideo } from '../../entities/catalog/videos.js';
import { findComment } from '../../entities/comments/comments.js';
import { NotFoundError } from '../../platform/errors.js';

/** What can be reported and moderated (docs/moderation.md, "Reports"): a video by `vid`, a comment by `cid`, a user by `openid`. */
export const TARGET_TYPES = ['video', 'comment', 'user'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export interface Target {
  type: TargetType;
  id: string;
}

/** A target as it is now: its author (the account a suspension would hit), and where a comment lives. */
export interface LiveTarget extends Target {
  /** The account whose content it is: a video's author, a comment's author, the user itself. */
  owner: string;
  /** A comment's place (comments are stored under their video: lib/entities/comments/comments.ts). */
  vid?: string;
  seq?: number;
  /** What a moderator reads in the queue: a comment's text, a video's title, a user's nickname. */
  preview: string;
}

const notFound = (target: Target) => new NotFoundError(`No ${target.type} "${target.id.slice(0, 64)}" exists`);

/**
 * The target, read consistently, or 404: an unknown id, a removed comment (a tombstone), a removed
 * video, a deleted account (and a comment or video whose author is gone counts as the content, so it
 * can still be reported and removed).
 */
export async function liveTarget(target: Target): Promise<LiveTarget> {
  switch (target.type) {
    case 'video': {
      const video = await getVideo(target.id, true);
      if (!video) throw notFound(target);
      return { ...target, owner: video.author_openid, preview: video.title };
    }
    case 'comment': {
      const comment = await findComment(target.id);
      if (!comment || !comment.openid) throw notFound(target);
      return { ...target, owner: comment.openid, vid: comment.vid, seq: comment.seq, preview: comment.content };
    }
    case 'user': {
      const account = await getAccount(target.id, true);
      if (!account || isDeleted(account)) throw notFound(target);
      return { ...target, owner: account.openid, preview: account.nickname };
    }
  }
}
