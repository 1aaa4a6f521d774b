// Long by nature: one operation whose every failure path (a refused reservation, a lost answer, a
// number to give back or mark) must leave the numbering exact (docs/data-model.md, "Comment numbers").
import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getVideo } from '../catalog/videos.js';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { backoff, type Backoff } from '../../platform/db/backoff.js';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { isTransient, retryTransient, wasRefused } from '../../platform/db/failures.js';
import { commentKeys } from './comments.js';
import { itemParser } from '../../platform/db/item-check.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { ForbiddenError, NotFoundError, RateLimitedError, UnavailableError } from '../../platform/errors.js';
import { notBlockedByCheck } from '../social/block-items.js';
import { newCommentId } from '../../platform/ids.js';
import { logger } from '../../platform/logger.js';
import { contentMarkItem, getAccount, liveAccountCheck, personOf } from '../accounts/accounts.js';
import { commentFromItem, commentItem, commentLookupItem, commentViews, toCommentView, type CommentView, type StoredComment } from './comments.js';
import { ownCommentCount } from '../catalog/own-counts.js';
import { rateLimitedError, rateLimitItem, rateWindowFull, refundRateLimits, secondsUntilWindowEnds, type RateLimit } from '../../platform/limits/rate-windows.js';

/** How long a retry of the same (account, video, text) returns the first comment. */
const DEDUP_WINDOW_MS = 60_000;
/**
 * A reservation still without its comment after this long belongs to a request that has ended (the
 * hub function's timeout is 10 s, infra/constructs/expohub-function.ts): a retry may take it over.
 * Taking over a live one is safe too, only wasteful: the comment's write is conditional on the
 * reservation (docs/hub-api.md, comment_set).
 */
const STALE_RESERVATION_MS = 10_000;
/** A parallel retry waits for the reservation's holder: 50, 100, 200, 400, then 500 ms, about 3 s in all. */
const HOLDER_WAIT: Backoff = { firstMs: 50, capMs: 500, jitter: false };
const HOLDER_WAITS = 8;
/** Tries of the comment's write, in place, on a transient failure. */
const WRITE_TRIES = 3;
/** The longest comment, in characters (lib/platform/text.ts charLength). */
export const MAX_COMMENT_CHARS = 1000;



/**
 * The retry guard of (account, video, text): a reservation (`cid`, `reserved_at`: the comment's id
 * and time) until the comment is written, then also the comment's number `seq`.
 */
interface Guard {
  vid: string;
  cid: string;
  seq?: number;
  reserved_at: number;
  expires_at: number;
}

type Answer = { comment: CommentView; comment_count: number };

/** A number taken from the video's comment sequence. */
interface Taken {
  seq: number;
  /** The comments counted with it: numbers handed out minus the known gaps. */
  count: number;
  /** This take created the sequence item (a video never commented on since it exists). */
  created: boolean;
}

const TABLE = () => tableNames.hub;
const read = async (key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item;

/** The checked parse of a comment's retry guard (comment_dedup): the vid and cid it reserved, its number once taken. */
const guardFromItem = itemParser<Guard>('comment guard', { entity: 'comment_dedup', required: { vid: 'string', cid: 'string' }, optional: { seq: 'number', reserved_at: 'number', expires_at: 'number' } });
const getComment = async (key: { pk: string; sk: string }) => commentFromItem(await read(key));
const getGuard = async (key: { pk: string; sk: string }) => guardFromItem(await read(key));

/**
 * The answer to a retry: the first comment, with the count as its author sees it (at least the
 * answer kept on the "commented" item, docs/data-model.md "Read your own writes").
 */
async function firstComment(openid: string, guard: Guard): Promise<Answer | undefined> {
  const [stored, video, commented] = await Promise.all([
    getComment(commentKeys.comment(guard.vid, guard.seq!)),
    getVideo(guard.vid, true),
    read(commentKeys.commented(openid, guard.vid)),
  ]);
  if (!stored) return undefined;
  const [comment] = await commentViews([stored]);
  return { comment: comment!, comment_count: video ? ownCommentCount(video.comment_count, commented, clock.now()) : guard.seq! };
}

/**
 * A number for a comment of `vid`: one atomic update of the video's comment sequence, outside any
 * transaction, so parallel comments of one video never conflict (DynamoDB applies them one after
 * the other); a video's first comment creates the sequence, numbered from 1. `claim` names the take
 * that got the latest number: a try repeated after a lost answer finds its own claim (the condition
 * fails, with the item) instead of taking a second number, as long as no other comment took one
 * meanwhile.
 */
async function takeNumber(vid: string, claim: string): Promise<Taken> {
  const gapsOf = (item: Record<string, unknown> | undefined) => (item?.gaps as Set<number> | undefined)?.size ?? 0;
  return retryTransient(async () => {
    try {
      const out = await db.send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: commentKeys.commentSequence(vid),
          UpdateExpression: 'SET n = if_not_exists(n, :zero) + :one, claim = :claim, entity = :entity, vid = :vid',
          ConditionExpression: 'attribute_not_exists(claim) OR claim <> :claim',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':claim': claim, ':entity': 'comment_sequence', ':vid': vid },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const old = out.Attributes;
      const seq = ((old?.n as number | undefined) ?? 0) + 1;
      return { seq, count: seq - gapsOf(old), created: !old };
    } catch (error) {
      // The item comes as DynamoDB sent it: the document client does not convert an error's item.
      const raw = isConditionalCheckFailed(error) ? (error as { Item?: Record<string, AttributeValue> }).Item : undefined;
      if (!raw) throw error;
      const mine = unmarshall(raw);
      // An earlier try was applied and its answer lost: its number is still the latest.
      return { seq: mine.n as number, count: (mine.n as number) - gapsOf(mine), created: false };
    }
  });
}

/**
 * Gives back a number whose comment was not written and never will be (DynamoDB refused every try):
 * when it is still the latest, the sequence goes back by one (or is removed, when this comment
 * created it), so the next comment takes it and nothing is left behind. Returns false when a later
 * number was taken meanwhile.
 */
async function giveBack(vid: string, taken: Taken): Promise<boolean> {
  const Key = commentKeys.commentSequence(vid);
  try {
    await retryTransient(() =>
      db.send(
        taken.created
          ? new DeleteCommand({ TableName: TABLE(), Key, ConditionExpression: 'n = :seq AND attribute_not_exists(gaps)', ExpressionAttributeValues: { ':seq': taken.seq } })
          : new UpdateCommand({ TableName: TABLE(), Key, UpdateExpression: 'SET n = n - :one', ConditionExpression: 'n = :seq', ExpressionAttributeValues: { ':seq': taken.seq, ':one': 1 } }),
      ),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/**
 * The number `seq` will hold no comment: a gap marker takes it, conditional on the place being
 * free, so the comment can never land there later; the stream processor adds it to the sequence's
 * gaps (lib/features/streams/counters.ts), which comment_get skips. Returns 'written' when the place is taken
 * by this very comment: a write whose answer was lost had committed.
 */
async function abandonNumber(vid: string, seq: number, cid: string): Promise<'abandoned' | 'written'> {
  try {
    await retryTransient(() =>
      db.send(
        new PutCommand({
          TableName: TABLE(),
          Item: { ...commentKeys.comment(vid, seq), entity: 'comment_gap', vid, seq },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    return 'abandoned';
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const there = await getComment(commentKeys.comment(vid, seq));
    return there?.cid === cid ? 'written' : 'abandoned';
  }
}

/**
 * A number taken for a comment that was not written: given back when no write of it can have been
 * applied and it is still the latest, otherwise abandoned as a gap. Never throws: a number that can
 * be neither given back nor marked stays counted and unwritten (logged; docs/data-model.md, "Comment
 * numbers"). Returns 'written' when the comment turns out written after all.
 */
async function releaseNumber(vid: string, taken: Taken, cid: string, maybeWritten: boolean): Promise<'released' | 'written'> {
  try {
    if (!maybeWritten && (await giveBack(vid, taken))) return 'released';
    return (await abandonNumber(vid, taken.seq, cid)) === 'written' ? 'written' : 'released';
  } catch (error) {
    logger.error('comment number neither given back nor marked as a gap', { vid, seq: taken.seq, errorName: (error as Error)?.name });
    return 'released';
  }
}

interface Reservation {
  /** The commenter. */
  openid: string;
  guardKey: { pk: string; sk: string };
  cid: string;
  limit: RateLimit;
  /** When it was made: its window of the rate limit, the comment's created_at. */
  now: number;
}

/**
 * Undoes a reservation whose comment was not written: the guard removed (only while it is still
 * this reservation's and without a comment) and, when it was, the window slot given back. Best
 * effort after a failure: what cannot be undone is logged, and a retry takes the guard over once it
 * is stale.
 */
async function releaseReservation(r: Reservation): Promise<void> {
  try {
    await retryTransient(() =>
      db.send(
        new DeleteCommand({
          TableName: TABLE(),
          Key: r.guardKey,
          ConditionExpression: 'cid = :cid AND attribute_not_exists(seq)',
          ExpressionAttributeValues: { ':cid': r.cid },
        }),
      ),
    );
  } catch (error) {
    // Not there: the reservation was never made (its transaction was refused or not applied), or
    // was taken over by a retry, which holds its own window slot.
    if (!isConditionalCheckFailed(error)) logger.warn('comment reservation not released', { errorName: (error as Error)?.name });
    return;
  }
  await refundRateLimits([r.limit], r.now);
}

type WriteOutcome = { outcome: 'written' } | { outcome: 'taken' } | { outcome: 'lost' } | { outcome: 'failed'; error: unknown; maybeWritten: boolean };

/**
 * Writes the comment at its number, with the guard's number, the "commented" item and the lookup
 * of the comment by its cid, in one
 * transaction: conditional on the place being free and on the guard still being this reservation,
 * so a try repeated after a lost answer finds its own comment and writes nothing twice. Transient
 * failures are tried again in place.
 * - 'taken': the number's place holds another comment (the comment's condition keeps it);
 * - 'lost': a retry took the reservation over (it was stale) and writes the comment itself.
 * The "commented" item keeps `count`, the comment_count answered: its author is shown no less while
 * it is recent (lib/entities/catalog/own-counts.ts).
 */
async function writeComment(comment: StoredComment, count: number, r: Reservation): Promise<WriteOutcome> {
  const items: TransactItem[] = [
    { Put: { TableName: TABLE(), Item: commentItem(comment), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Update: {
        TableName: TABLE(),
        Key: r.guardKey,
        UpdateExpression: 'SET seq = :seq',
        ConditionExpression: 'cid = :cid',
        ExpressionAttributeValues: { ':seq': comment.seq, ':cid': comment.cid },
      },
    },
    {
      Put: {
        TableName: TABLE(),
        Item: { ...commentKeys.commented(comment.openid, comment.vid), ...commentKeys.commentedIndex(comment.openid, comment.created_at, comment.vid), entity: 'commented', openid: comment.openid, vid: comment.vid, commented_at: comment.created_at, shown_comment_count: count },
      },
    },
    // The comment by its cid (comments.ts commentKeys.commentById): comment_delete and moderation.
    { Put: { TableName: TABLE(), Item: commentLookupItem(comment) } },
    // The author's mark of it, which the erasure reads where the author index may lag (docs/accounts.md,
    // "Erasure"). No account check here: the guard's condition is one, as the erasure deletes the guard.
    contentMarkItem(comment.openid, 'comment', `${comment.vid}#${comment.seq}`, { vid: comment.vid, seq: comment.seq }, r.now),
  ];
  let maybeWritten = false;
  for (let attempt = 1; ; attempt++) {
    try {
      await transactWrite(items);
      return { outcome: 'written' };
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') {
        try {
          const there = await getComment(commentKeys.comment(comment.vid, comment.seq));
          return there?.cid === comment.cid ? { outcome: 'written' } : { outcome: 'taken' };
        } catch (readError) {
          return { outcome: 'failed', error: readError, maybeWritten: true };
        }
      }
      if (cancellationCode(error, 1) === 'ConditionalCheckFailed') return { outcome: 'lost' };
      if (!wasRefused(error)) maybeWritten = true;
      if (!isTransient(error) || attempt >= WRITE_TRIES) return { outcome: 'failed', error, maybeWritten };
      await backoff(attempt, { firstMs: 50 });
    }
  }
}

/**
 * A parallel retry holds the reservation and is writing the comment: waits for it (polling the guard
 * alone) and answers its comment. Undefined when the reservation went away, was replaced or became
 * stale (the caller starts over); 503 when it is still being written after the waits.
 */
async function awaitHolder(openid: string, guardKey: { pk: string; sk: string }, held: Guard): Promise<Answer | undefined> {
  for (let wait = 1; wait <= HOLDER_WAITS; wait++) {
    await backoff(wait, HOLDER_WAIT);
    const now = clock.now();
    const guard = await getGuard(guardKey);
    if (!guard || guard.cid !== held.cid || guard.expires_at <= now || now - guard.reserved_at >= STALE_RESERVATION_MS) return undefined;
    if (guard.seq !== undefined) return firstComment(openid, guard);
  }
  throw new UnavailableError('This comment is still being written; retry shortly', (held.reserved_at + STALE_RESERVATION_MS - clock.now()) / 1000);
}

/**
 * Takes the window slot and the retry guard in one transaction, checking that the video's author
 * has not blocked the commenter (`notBlocked`). False when another request holds the guard; 429
 * when the window is full, 403 when blocked (then nothing is taken).
 */
async function reserve(r: Reservation, vid: string, replaces: Guard | undefined, notBlocked: TransactItem): Promise<boolean> {
  const expiresAt = r.now + DEDUP_WINDOW_MS;
  const values: Record<string, unknown> = { ':now': r.now };
  let replaceable = '';
  if (replaces) {
    // A stale reservation, or a guard whose comment is gone: replaced only as it was read.
    replaceable = ` OR (cid = :old AND ${replaces.seq === undefined ? 'attribute_not_exists(seq)' : 'seq = :oldseq'})`;
    values[':old'] = replaces.cid;
    if (replaces.seq !== undefined) values[':oldseq'] = replaces.seq;
  }
  try {
    await transactWrite([
      {
        Put: {
          TableName: TABLE(),
          Item: {
            ...r.guardKey,
            entity: 'comment_dedup',
            vid,
            cid: r.cid,
            reserved_at: r.now,
            expires_at: expiresAt,
            ttl: Math.ceil(expiresAt / 1000) + 60,
          },
          ConditionExpression: `attribute_not_exists(pk) OR expires_at <= :now${replaceable}`,
          ExpressionAttributeValues: values,
        },
      },
      rateLimitItem(r.limit, r.now),
      notBlocked,
      // Refused once the account is deleted (docs/accounts.md, "Erasure").
      liveAccountCheck(r.openid),
    ]);
    return true;
  } catch (error) {
    if (cancellationCode(error, 3) === 'ConditionalCheckFailed') throw new NotFoundError('Your account does not exist');
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') return false;
    // Blocked by the video's author (docs/moderation.md, "Blocking"): the message does not say why.
    if (cancellationCode(error, 2) === 'ConditionalCheckFailed') throw new ForbiddenError('You cannot comment on this video');
    const limited = rateLimitedError(error, [r.limit], 1, r.now);
    if (limited) throw limited;
    // A reservation whose answer was lost may have been made: undo it if it was.
    if (!wasRefused(error)) await releaseReservation(r);
    throw error;
  }
}

/**
 * The reserved comment, numbered and written; undefined when a retry took the reservation over.
 * Throws (503) with the reservation undone when the comment could not be written.
 */
async function commentWithin(
  r: Reservation,
  c: { openid: string; vid: string; content: string; nickname: string },
): Promise<Answer | undefined> {
  // A number whose place already holds another comment is skipped, never overwritten (the
  // comment's condition): a few tries.
  for (let tries = 0; tries < 4; tries++) {
    let taken: Taken;
    try {
      taken = await takeNumber(c.vid, `${r.cid}#${tries}`);
    } catch (error) {
      await releaseReservation(r);
      throw error;
    }
    const comment: StoredComment = { cid: r.cid, vid: c.vid, seq: taken.seq, openid: c.openid, nickname: c.nickname, content: c.content, created_at: new Date(r.now).toISOString() };
    const written = await writeComment(comment, taken.count, r);
    const answer = { comment: toCommentView(comment), comment_count: taken.count };
    switch (written.outcome) {
      case 'written':
        // Nothing after the commit, which could only fail it.
        return answer;
      case 'taken':
        continue;
      case 'lost':
        await releaseNumber(c.vid, taken, r.cid, false);
        // The slot is the retry's now (it took its own): give this one back.
        await refundRateLimits([r.limit], r.now);
        return undefined;
      case 'failed':
        if ((await releaseNumber(c.vid, taken, r.cid, written.maybeWritten)) === 'written') return answer;
        await releaseReservation(r);
        throw written.error;
    }
  }
  await releaseReservation(r);
  throw new UnavailableError('Too many comments are being written on this video; retry shortly');
}

/**
 * comment_set (docs/hub-api.md, comment_set), `content` already checked. In order:
 * 1. reads: the retry guard, the video, the author, the person's minute window (a read ahead; after
 *    the author's account when the caller's person id did not come with its token);
 * 2. the reservation: one transaction taking the window slot and the retry guard, checking that the
 *    author has not blocked the commenter (the reverse index item, in the commenter's partition:
 *    lib/entities/social/blocks.ts, notBlockedByCheck). A request refused here (limit, a block, a parallel retry holding the
 *    guard) has taken no number and written nothing;
 * 3. the number: an atomic update of the video's comment sequence (takeNumber);
 * 4. the comment, its guard's number, the "commented" item and the author's mark of the comment in
 *    one transaction (writeComment), no item of the video itself, so 50 people commenting at once do
 *    not conflict.
 * The reservation checks that the account is not deleted (accounts.ts liveAccountCheck): one made
 * after the deletion is refused (404). The comment's transaction is conditional on the guard, which
 * is in the account's partition: a comment reserved before the deletion commits, with its mark,
 * before the erasure deletes the guard, or not at all (docs/accounts.md, "Erasure").
 * A failure after 2 undoes the reservation (the slot given back, the guard removed) and gives the
 * number back, or leaves a gap when it cannot (docs/data-model.md, "Comment numbers"). The video's
 * comment_count follows from the stream.
 */
export async function postComment({ openid, vid, content, person }: { openid: string; vid: string; content: string; person?: string }): Promise<Answer> {
  const digest = createHash('sha256').update(`${vid}\n${content}`).digest('hex');
  const guardKey = commentKeys.commentDedup(openid, digest);
  // The minute window of the person (docs/accounts.md, "The person id"): a new account of the same phone inherits it.
  const limitOf = (subject: string): RateLimit => ({
    name: 'comments-minute',
    subject,
    windowSeconds: 60,
    max: config.RATE_COMMENTS_PER_MINUTE,
    message: `At most ${config.RATE_COMMENTS_PER_MINUTE} comments per minute; wait a moment`,
  });

  for (let round = 0; round < 8; round++) {
    const now = clock.now();
    // A login token's check brought the person id: the window is read with the rest. An access
    // key's caller: after the account, which names the person.
    const [guard, video, author, early] = await Promise.all([
      getGuard(guardKey),
      getVideo(vid, true),
      getAccount(openid, true),
      person === undefined ? undefined : rateWindowFull(limitOf(person), now),
    ]);
    const limit = limitOf(person ?? personOf(author) ?? openid);
    const full = early ?? (author ? await rateWindowFull(limit, now) : false);
    let replaces: Guard | undefined;
    if (guard && guard.expires_at > now) {
      if (guard.seq !== undefined) {
        const first = await firstComment(openid, guard);
        if (first) return first;
        replaces = guard;
      } else if (now - guard.reserved_at < STALE_RESERVATION_MS) {
        const first = await awaitHolder(openid, guardKey, guard);
        if (first) return first;
        continue;
      } else {
        replaces = guard;
      }
    }
    if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
    if (!author) throw new NotFoundError('Your account does not exist');
    if (full) throw new RateLimitedError(limit.message, secondsUntilWindowEnds(limit, now));

    const r: Reservation = { openid, guardKey, cid: newCommentId(), limit, now };
    if (!(await reserve(r, vid, replaces, notBlockedByCheck(video.author_openid, openid)))) continue;
    const answer = await commentWithin(r, { openid, vid, content, nickname: author.nickname });
    if (answer) return answer;
    // A retry took the reservation over: its comment is the one to answer.
  }
  throw new UnavailableError('Too many comments are being written on this video; retry shortly');
}
