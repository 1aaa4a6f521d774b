import { storedCount } from '../../platform/db/attributes.js';

/**
 * A person's own view of a video's counts (docs/data-model.md, "Read your own writes"). The video's
 * `like_count` and `comment_count` follow from the stream, so for a moment they may not hold the
 * person's own like, dislike or comment yet. The person's own item of that action (the like, the
 * dislike, the "commented" item, all in the person's partition and written in the action's
 * transaction) keeps the count the action answered: while it is younger than OWN_COUNT_HOLD_MS,
 * what that person is shown is never below a like's or a comment's answer and never above a
 * dislike's. Every reader that shows the person a video's counts already reads those items (the
 * `liked`/`disliked` marks) or reads them in the same request.
 */

/**
 * How long an action's answer bounds what its author is shown: as long as the stream processor
 * retries a record (infra/constructs/stream-consumer.ts, STREAM_MAX_RECORD_AGE), so the person's own
 * action is never shown undone while its record is still on its way. Normally the stream has applied
 * it within a second, and the bound then changes nothing, except where others' removals (a dislike,
 * an erased account) took the count below this person's answer: that person sees them at the latest
 * when the hold ends.
 */
export const OWN_COUNT_HOLD_MS = 3_600_000;

/** The answered count as stored on the action's item, and when the action was made. */
export interface OwnMark {
  shown?: unknown;
  at?: unknown;
}

/** The stored count when the mark is from the last OWN_COUNT_HOLD_MS (a mark without both reads as none). */
function held(mark: OwnMark | undefined, nowMs: number): number | undefined {
  if (!mark || typeof mark.shown !== 'number' || typeof mark.at !== 'string') return undefined;
  const at = Date.parse(mark.at);
  return Number.isFinite(at) && nowMs - at < OWN_COUNT_HOLD_MS ? mark.shown : undefined;
}

/** The like_count a person is shown: the applied count, at least their like's answer, at most their dislike's. */
export function ownLikeCount(applied: unknown, own: { like?: { shown_like_count?: unknown; liked_at?: unknown }; dislike?: { shown_like_count?: unknown; disliked_at?: unknown } }, nowMs: number): number {
  let count = storedCount(applied);
  const floor = held(own.like && { shown: own.like.shown_like_count, at: own.like.liked_at }, nowMs);
  if (floor !== undefined) count = Math.max(count, floor);
  const ceiling = held(own.dislike && { shown: own.dislike.shown_like_count, at: own.dislike.disliked_at }, nowMs);
  if (ceiling !== undefined) count = Math.min(count, ceiling);
  return count;
}

/** The comment_count a person is shown: the applied count, at least the answer of their latest comment on the video. */
export function ownCommentCount(applied: unknown, commented: { shown_comment_count?: unknown; commented_at?: unknown } | undefined, nowMs: number): number {
  const floor = held(commented && { shown: commented.shown_comment_count, at: commented.commented_at }, nowMs);
  return Math.max(storedCount(applied), floor ?? 0);
}
