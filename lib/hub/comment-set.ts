import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod.js';
import { getVideo } from '../catalog/videos.js';
import { clock } from '../clock.js';
import { config } from '../config.js';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { retryTransient } from '../db/failures.js';
import { hubItems } from '../db/hub-items.js';
import { cancellationCode, transactWrite, type TransactItem } from '../db/transact.js';
import { NotFoundError, RateLimitedError, UnavailableError } from '../errors.js';
import { newCommentId } from '../ids.js';
import { getAccount } from './accounts.js';
import { commentItem, commentViews, toCommentView, type CommentView, type StoredComment } from './comments.js';
import { defineOperation } from './operation.js';
import { textIssues } from '../text.js';
import { identifier } from './params.js';
import { charLength } from './profile-edit.js';
import { rateLimitedError, rateLimitItem, rateWindowFull, secondsUntilWindowEnds, type RateLimit } from './rate-limit.js';

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
 * A number for a new comment of `vid`: one atomic ADD on the video's comment sequence, outside any
 * transaction, so parallel comments of one video never conflict (DynamoDB applies them one after
 * the other). The first number of a video commented on before the sequence existed follows its
 * comments 1..comment_count. Returns the number and the comments counted with it (numbers handed out
 * minus the known gaps).
 */
async function takeNumber(vid: string, legacyCount: number): Promise<{ seq: number; count: number }> {
  const out = await db.send(
    new UpdateCommand({
      TableName: TABLE(),
      Key: hubItems.commentSequence(vid),
      UpdateExpression: 'SET n = if_not_exists(n, :base) + :one, entity = :entity, vid = :vid',
      ExpressionAttributeValues: { ':base': legacyCount, ':one': 1, ':entity': 'comment_sequence', ':vid': vid },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const seq = out.Attributes!.n as number;
  return { seq, count: seq - ((out.Attributes!.gaps as Set<number> | undefined)?.size ?? 0) };
}

/**
 * The number `seq` will hold no comment (its transaction was refused or failed): a gap marker takes
 * it, conditional on the place being free, so the comment can never land there later; the stream
 * processor adds it to the sequence's gaps (lib/streams/counters.ts), which comment_get skips.
 * Returns 'written' when the place is taken by this very comment: a transaction whose answer was
 * lost had committed.
 */
async function abandonNumber(vid: string, seq: number, cid: string): Promise<'abandoned' | 'written'> {
  try {
    await retryTransient(() =>
      db.send(
        new PutCommand({
          TableName: TABLE(),
          Item: { ...hubItems.comment(vid, seq), entity: 'comment_gap', vid, seq },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    return 'abandoned';
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const there = await get<StoredComment>(hubItems.comment(vid, seq));
    return there?.cid === cid ? 'written' : 'abandoned';
  }
}

/**
 * comment_set. The comment takes the next number of its video (takeNumber), then commits in one
 * transaction with its retry guard, the author's per-minute window and the "commented" item: no
 * item of the video itself, so 50 people commenting at once do not conflict. A retry within 60 s
 * finds the guard and gets the first comment back; a comment refused or failed after taking its
 * number leaves a gap that pages skip, and changes nothing else. The video's comment_count follows
 * from the stream.
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
      const [dedup, video, author, full] = await Promise.all([get<DedupItem>(dedupKey), getVideo(vid, true), getAccount(openid, true), rateWindowFull(limit, now)]);
      if (dedup && dedup.expires_at > now) {
        const first = await firstComment(dedup);
        if (first) return first;
      }
      if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
      if (!author) throw new NotFoundError('Your account does not exist');
      // Refused before taking a number: a caller over the limit leaves no gaps behind.
      if (full) throw new RateLimitedError(limit.message, secondsUntilWindowEnds(limit, now));

      const { seq, count } = await takeNumber(vid, video.comment_count ?? 0);
      const nowIso = new Date(now).toISOString();
      const comment: StoredComment = { cid: newCommentId(), vid, seq, openid, nickname: author.nickname, content, created_at: nowIso };
      const items: TransactItem[] = [
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
        // The number is already someone's (a sequence started behind older comments): take another.
        if (cancellationCode(error, 0) === 'ConditionalCheckFailed') continue;
        if ((await abandonNumber(vid, seq, comment.cid)) === 'written') return { comment: toCommentView(comment), comment_count: count };
        // A parallel retry of this very comment won: go back and return it.
        if (cancellationCode(error, 1) === 'ConditionalCheckFailed') continue;
        throw rateLimitedError(error, [limit], 2, now) ?? error;
      }
      // The author was read just before: no request after the commit, which could only fail it.
      return { comment: toCommentView(comment), comment_count: count };
    }
    throw new UnavailableError('Too many comments are being written on this video; retry shortly');
  },
});
