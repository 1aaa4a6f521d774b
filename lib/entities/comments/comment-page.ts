import { itemParser } from '../../platform/db/item-check.js';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getVideo } from '../catalog/videos.js';
import { db, tableNames } from '../../platform/db/client.js';
import { commentKeys } from './comments.js';
import { blockedBy } from '../social/block-items.js';
import { NotFoundError } from '../../platform/errors.js';
import { COMMENT_PAGE_SIZE, commentViews, type StoredComment } from './comments.js';

interface CommentSequence {
  n?: number;
  gaps?: Set<number>;
}

/** The checked parse of a video's comment sequence (written by updates alone: no `entity`; `gaps` may come first, from the stream). */
const sequenceFromItem = itemParser<CommentSequence>('comment sequence', { optional: { n: 'number', gaps: 'set' } });

/**
 * The number of the comment ranked `rank` (1 = newest) among numbers 1..n less the gaps (`gapsDown`:
 * the gaps up to n, highest first). Gaps are rare and bounded: only a comment whose write failed
 * after taking its number leaves one, and the sequence holds at most 1,000 (docs/data-model.md,
 * "Comment numbers").
 */
function numberOfRank(rank: number, n: number, gapsDown: number[]): number {
  let seq = n - rank + 1;
  for (const gap of gapsDown) {
    if (gap < seq) break;
    seq--;
  }
  return seq;
}

/**
 * comment_get: newest first, 20 per page. Comments are numbered by their video's comment sequence
 * (lib/transport/hub/comment-set.ts), so page N is the number range holding ranks 20(N-1)+1 .. 20N once the
 * sequence's gaps are skipped: one Query, whatever N. A video without a sequence has no comment.
 */

export async function commentPage({ vid, page, openid }: { vid: string; page: number; openid?: string }) {
  const TableName = tableNames.hub;
  const [read, blocked] = await Promise.all([
    db.send(new GetCommand({ TableName, Key: commentKeys.commentSequence(vid), ConsistentRead: true })),
    openid ? blockedBy(openid) : new Set<string>(),
  ]);
  const sequence = sequenceFromItem(read.Item);
  if (!sequence && !(await getVideo(vid, true))) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
  const n = sequence?.n ?? 0;
  const gapsDown = [...(sequence?.gaps ?? [])].filter((g) => g <= n).sort((a, b) => b - a);
  const total = n - gapsDown.length;
  const newest = COMMENT_PAGE_SIZE * (page - 1) + 1;
  const oldest = Math.min(total, COMMENT_PAGE_SIZE * page);
  let comments: StoredComment[] = [];
  if (newest <= total) {
    const [high, low] = [numberOfRank(newest, n, gapsDown), numberOfRank(oldest, n, gapsDown)];
    const out = await db.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':pk': commentKeys.comment(vid, low).pk, ':low': commentKeys.comment(vid, low).sk, ':high': commentKeys.comment(vid, high).sk },
        ScanIndexForward: false,
        ConsistentRead: true,
      }),
    );
    // Gap markers whose gap the stream has not recorded yet are not comments.
    // Comments of accounts the caller blocked are left out: the page keeps its numbers, so it may
    // hold fewer than COMMENT_PAGE_SIZE (docs/moderation.md, "Blocking").
    comments = ((out.Items ?? []) as (StoredComment & { entity: string })[]).filter((c) => c.entity === 'comment' && !blocked.has(c.openid));
  }
  return { list: await commentViews(comments), page, page_size: COMMENT_PAGE_SIZE, total, has_more: total > COMMENT_PAGE_SIZE * page };
}
