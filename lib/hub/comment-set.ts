import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod.js';
import { getVideo } from '../catalog/videos.js';
import { clock } from '../clock.js';
import { config } from '../config.js';
import { backoff } from '../db/backoff.js';
import { db, tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { cancellationCode, transactWrite, type TransactItem } from '../db/transact.js';
import { NotFoundError, UnavailableError } from '../errors.js';
import { newCommentId } from '../ids.js';
import { getAccount } from './accounts.js';
import { commentItem, commentViews, toCommentView, type CommentView, type StoredComment } from './comments.js';
import { defineOperation } from './operation.js';
import { textIssues } from '../text.js';
import { identifier } from './params.js';
import { charLength } from './profile-edit.js';
import { rateLimitedError, rateLimitItem, type RateLimit } from './rate-limit.js';

/** How long a retry of the same (account, video, text) returns the first comment. */
const DEDUP_WINDOW_MS = 60_000;
const MAX_CONTENT = 1000;

const query = z.object({
  openid: identifier(),
  vid: identifier(),
  content: z
    .pipe(
      z.string({ error: 'is required' }),
      z.transform((v: string) => v.replace(/\r\n?/g, '\n').trim()),
    )
    .check(
      z.refine((v) => v.length > 0, 'must not be empty'),
      z.refine((v) => charLength(v) <= MAX_CONTENT, `must be at most ${MAX_CONTENT} characters`),
      z.superRefine(textIssues(true)),
    ),
});

interface DedupItem {
  vid: string;
  seq: number;
  expires_at: number;
}

const TABLE = () => tableNames.hub;
const get = async <T>(key: { pk: string; sk: string }) =>
  (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item as T | undefined;

async function firstComment(dedup: DedupItem): Promise<{ comment: CommentView; comment_count: number } | undefined> {
  const [stored, video] = await Promise.all([get<StoredComment>(hubItems.comment(dedup.vid, dedup.seq)), getVideo(dedup.vid, true)]);
  if (!stored) return undefined;
  const [comment] = await commentViews([stored]);
  return { comment: comment!, comment_count: video?.comment_count ?? dedup.seq };
}

/**
 * comment_set. The comment takes number `comment_count + 1` of its video: the counter moves from N
 * to N+1 under a condition, in the same transaction as the comment, its retry guard, the author's
 * per-minute window and the "commented" item; so numbers have no gaps, the counter is exact, a retry
 * within 60 s finds the guard and gets the first comment back, and a refused comment changes nothing.
 */
export const commentSet = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query,
  async run({ openid, vid, content }) {
    const digest = createHash('sha256').update(`${vid}\n${content}`).digest('hex');
    const dedupKey = hubItems.commentDedup(openid, digest);
    const limit: RateLimit = {
      name: 'comments-minute',
      subject: openid,
      windowSeconds: 60,
      max: config.RATE_COMMENTS_PER_MINUTE,
      message: `At most ${config.RATE_COMMENTS_PER_MINUTE} comments per minute; wait a moment`,
    };

    for (let attempt = 0; attempt < 8; attempt++) {
      const now = clock.now();
      const dedup = await get<DedupItem>(dedupKey);
      if (dedup && dedup.expires_at > now) {
        const first = await firstComment(dedup);
        if (first) return first;
      }
      const [video, author] = await Promise.all([getVideo(vid, true), getAccount(openid, true)]);
      if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
      if (!author) throw new NotFoundError('Your account does not exist');

      const previous = video.comment_count ?? 0;
      const seq = previous + 1;
      const nowIso = new Date(now).toISOString();
      const comment: StoredComment = { cid: newCommentId(), vid, seq, openid, nickname: author.nickname, content, created_at: nowIso };
      const items: TransactItem[] = [
        {
          Update: {
            TableName: TABLE(),
            Key: hubItems.video(vid),
            UpdateExpression: 'SET comment_count = :seq',
            ConditionExpression: previous === 0 ? 'attribute_exists(pk) AND (attribute_not_exists(comment_count) OR comment_count = :previous)' : 'comment_count = :previous',
            ExpressionAttributeValues: { ':seq': seq, ':previous': previous },
          },
        },
        {
          Put: {
            TableName: TABLE(),
            Item: commentItem(comment),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: TABLE(),
            Item: { ...dedupKey, entity: 'comment_dedup', vid, seq, cid: comment.cid, expires_at: now + DEDUP_WINDOW_MS, ttl: Math.ceil((now + DEDUP_WINDOW_MS) / 1000) + 60 },
            ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
            ExpressionAttributeValues: { ':now': now },
          },
        },
        rateLimitItem(limit, now),
        {
          Put: {
            TableName: TABLE(),
            Item: { ...hubItems.commented(openid, vid), ...hubItems.commentedIndex(openid, nowIso, vid), entity: 'commented', openid, vid, commented_at: nowIso },
          },
        },
      ];
      try {
        await transactWrite(items);
      } catch (error) {
        // A parallel retry of this very comment won: go back and return it.
        if (cancellationCode(error, 2) === 'ConditionalCheckFailed') continue;
        const limited = rateLimitedError(error, [limit], 3, now);
        if (limited) throw limited;
        // Another comment took this number first: read the counter again.
        if (cancellationCode(error, 0) === 'ConditionalCheckFailed' || cancellationCode(error, 1) === 'ConditionalCheckFailed') {
          await backoff(attempt + 1, { firstMs: 10, growth: 'linear' });
          continue;
        }
        throw error;
      }
      // The author was read just before: no request after the commit, which could only fail it.
      return { comment: toCommentView(comment), comment_count: seq };
    }
    throw new UnavailableError('Too many comments are being written on this video; retry shortly');
  },
});
