// The moderation side of held content (docs/moderation.md, "Filter"): the queue of held items,
// oldest first (listHeld), and its actions (approveHeld, discardHeld). The items themselves:
// lib/features/filter/held-items.ts.
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getAccount, isDeleted, profileFieldUpdate } from '../../entities/accounts/accounts.js';
import { PUBLISHING_ROLES } from '../../entities/accounts/roles.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { putVideo, removalOf, VideoRemovedError, type VideoRemoval } from '../../entities/catalog/videos.js';
import { clock } from '../../platform/clock.js';
import { postComment } from '../../entities/comments/post-comment.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { cancellationCode, transactWrite } from '../../platform/db/transact.js';
import { AppError, ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { heldFromItem, heldKeys, heldView, isHeldItemKey, parseHeldId, type HeldItem, type HeldTargetType, type HeldView, type ProfileField } from './held-items.js';

export type { HeldView, HeldTargetType };

const TABLE = () => tableNames.hub;
/**
 * The queue's cursor: the last key of the page (base64url JSON), valid even when that item has been
 * acted on since. A forged one can only start the Query elsewhere in the queue's own partition.
 */
function openQueueCursor(cursor: string): Record<string, string> {
  let key: unknown;
  try {
    key = /^[A-Za-z0-9_-]{1,1400}$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    key = undefined;
  }
  const ok = Array.isArray(key) && key.length === 3 && typeof key[2] === 'string' && isHeldItemKey(key[0], key[1]);
  if (!ok) throw new ValidationError('Invalid parameter "cursor": not a cursor of this list');
  const [pk, sk, gsi1sk] = key as [string, string, string];
  return { pk, sk, gsi1pk: heldKeys.queuePartition, gsi1sk };
}

/** The queue's page size, at most. */
export const HELD_PAGE_MAX = 100;

/**
 * The held items, oldest first: one Query of the queue index, then the items (one BatchGet). `cursor`
 * is the previous page's `next_cursor` (opaque; it names the last item of that page).
 */
export async function listHeld(options: { limit?: number; cursor?: string } = {}): Promise<{ items: HeldView[]; next_cursor: string | null }> {
  const limit = Math.min(Math.max(1, options.limit ?? 20), HELD_PAGE_MAX);
  const start = options.cursor === undefined ? undefined : openQueueCursor(options.cursor);
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': heldKeys.queuePartition },
      ScanIndexForward: true,
      Limit: limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const keys = (out.Items ?? []).map((i) => ({ pk: i.pk as string, sk: i.sk as string }));
  const found = await batchGetHubItems(keys);
  const items = keys.flatMap((k) => {
    const item = heldFromItem(found.get(itemId(k)));
    return item ? [item] : [];
  });
  const next = out.LastEvaluatedKey as Record<string, string> | undefined;
  return { items: items.map(heldView), next_cursor: next ? Buffer.from(JSON.stringify([next.pk, next.sk, next.gsi1sk]), 'utf8').toString('base64url') : null };
}

async function getHeld(key: { pk: string; sk: string }): Promise<HeldItem | undefined> {
  return heldFromItem((await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item);
}

async function requireHeld(heldId: string): Promise<HeldItem> {
  const { key, nonce } = parseHeldId(heldId);
  const item = await getHeld(key);
  if (!item || item.nonce !== nonce) throw new NotFoundError('No such held item (approved, discarded or withdrawn by its author already?)');
  return item;
}

export interface HeldOutcome {
  held_id: string;
  target_type: HeldTargetType;
  /** The id the content has now: the posted comment's cid, the vid, the openid. */
  target_id: string;
}

/** Who decides on held content: a moderator's or an administrator's account, never its author (docs/moderation.md, "Moderation"). */
type Decider = { user_id: string; auth_type: string };

function notOwn(item: HeldItem, moderator: Decider) {
  if (item.author === moderator.user_id) throw new ForbiddenError('This is your own content: another moderator or an administrator decides on it');
}

const PENDING_AGAIN = 'the item is pending again: remove it, or approve it once that changes';

/**
 * Why the author's content cannot be published now, checked at every approval (docs/moderation.md,
 * "Held content"): a deleted account (404), a suspended one, a video's author without a publishing
 * role (403). Undefined when nothing stands in the way.
 */
function standingRefusal(item: HeldItem, author: Awaited<ReturnType<typeof getAccount>>) {
  const who = `User "${item.author.slice(0, 64)}"`;
  if (!author || isDeleted(author)) return new NotFoundError(`${who} does not exist`);
  if ((author as { suspended_at?: string }).suspended_at) return new ForbiddenError(`${who} is suspended: nothing of theirs is published while suspended; ${PENDING_AGAIN}`);
  if (item.target_type === 'video' && !(author.roles ?? []).some((role) => (PUBLISHING_ROLES as readonly string[]).includes(role))) {
    return new ForbiddenError(`${who} no longer has the editor or admin role that publishing needs; ${PENDING_AGAIN}`);
  }
  return undefined;
}

/** A failure of the approval's write that a repeat cannot overcome (not a 429 or a 503): the item goes back to pending. */
const isPermanent = (error: unknown) => error instanceof AppError && error.status >= 400 && error.status < 500 && error.status !== 429;

/** The moderator's answer for a permanent failure of the write: its status and code, what it means for the item. */
function refusalOf(item: HeldItem, error: AppError): AppError {
  const what = item.target_type === 'comment' ? 'the held comment cannot be posted' : 'the held video cannot be published';
  const Refusal = error instanceof NotFoundError ? NotFoundError : error instanceof ForbiddenError ? ForbiddenError : ValidationError;
  // A block is told to the moderator as such (the author is told only "You cannot comment").
  const reason = item.target_type === 'comment' && error instanceof ForbiddenError ? "the video's author has blocked the comment's author" : error.message;
  return new Refusal(`${reason.replace(/\.$/, '')}: ${what}; ${PENDING_AGAIN}`);
}

/**
 * An approval that stopped for a permanent reason returns the item to pending, so that it stays
 * decidable (remove discards it; an approval later may succeed). A held video whose vid a moderator
 * removed meanwhile keeps that removal on the item for the queue. Nothing when the item is gone.
 */
async function backToPending(item: HeldItem, removed?: VideoRemoval): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: `SET #state = :pending${removed ? ', removed = :removed' : ''}`,
        ConditionExpression: 'nonce = :n',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':n': item.nonce, ':pending': 'pending', ...(removed ? { ':removed': removed } : {}) },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/**
 * Approves a held item: it becomes what it would have been without the filter, if its author could
 * publish it now. First the checks (never one's own content; the author's standing and, for a
 * video, role: refused with the item pending). A profile field is then one transaction (the
 * account's field, the held item's removal, the audit event). A comment or a video goes through its
 * normal write (the comment takes its number then): the item is marked `approving`, the write
 * follows, then the item's removal and the audit event in one transaction. A repeat of an approval
 * that stopped half-way (a 503, a 429) repeats the write (the comment's 60-second retry guard, the
 * video's fixed vid); one that fails for good (the video removed, the author blocked) returns the
 * item to pending and answers why. 404 when the item is gone (approved, discarded, withdrawn).
 */
export async function approveHeld(heldId: string, moderator: Decider): Promise<HeldOutcome> {
  const item = await requireHeld(heldId);
  notOwn(item, moderator);
  const refusal = standingRefusal(item, await getAccount(item.author, true));
  if (refusal) {
    // Nothing is published meanwhile (a deleted account's held items go with its erasure).
    if (item.state === 'approving') await backToPending(item);
    throw refusal;
  }
  const event: AuditEvent = { action: 'filter.held_approved', actor: moderator.user_id, subject: item.author, via: moderator.auth_type, held_id: heldId };
  const heldKey = { pk: item.pk, sk: item.sk };
  if (item.target_type === 'user') {
    const field = item.fields[0] as ProfileField;
    try {
      await transactWrite([
        profileFieldUpdate(item.author, field, item.text[field]!, clock.nowIso()),
        { Delete: { TableName: TABLE(), Key: heldKey, ConditionExpression: 'nonce = :n', ExpressionAttributeValues: { ':n': item.nonce } } },
        auditItem(event),
      ]);
    } catch (error) {
      // Deleted or suspended since the read: the next approval says which.
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new NotFoundError(`User "${item.author.slice(0, 64)}" is deleted or suspended: the held value is not applied; ${PENDING_AGAIN}`);
      if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new NotFoundError('No such held item (approved, discarded or withdrawn by its author already?)');
      throw error;
    }
    writeAuditLine(event);
    return { held_id: heldId, target_type: 'user', target_id: item.author };
  }
  if (item.state === 'pending') {
    try {
      await db.send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: heldKey,
          UpdateExpression: 'SET #state = :approving',
          ConditionExpression: 'nonce = :n AND #state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':n': item.nonce, ':approving': 'approving', ':pending': 'pending' },
        }),
      );
    } catch (error) {
      // Another approval began meanwhile: go on with the write, or it is gone.
      if (!isConditionalCheckFailed(error)) throw error;
      await requireHeld(heldId);
    }
  }
  let targetId = item.target_id;
  try {
    if (item.target_type === 'comment') {
      targetId = (await postComment({ openid: item.author, vid: item.vid!, content: item.text.content! })).comment.cid;
    } else {
      await putVideo(item.video!);
    }
  } catch (error) {
    if (!isPermanent(error)) throw error;
    await backToPending(item, error instanceof VideoRemovedError ? await removalOf(error.vid) : undefined);
    throw refusalOf(item, error as AppError);
  }
  try {
    await transactWrite([
      { Delete: { TableName: TABLE(), Key: heldKey, ConditionExpression: 'nonce = :n AND #state = :approving', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':n': item.nonce, ':approving': 'approving' } } },
      auditItem(event),
    ]);
    writeAuditLine(event);
  } catch (error) {
    // Completed by a parallel approval (which stored the event): done all the same.
    if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
  }
  return { held_id: heldId, target_type: item.target_type, target_id: targetId };
}

/**
 * Discards a held item: gone, with its audit event, in one transaction. 404 when it is gone already;
 * 403 for one's own content and while an approval of it is under way (repeat the approval: it
 * completes, or returns the item to pending when it cannot).
 */
export async function discardHeld(heldId: string, moderator: Decider): Promise<HeldOutcome> {
  const { key, nonce } = parseHeldId(heldId);
  const item = await requireHeld(heldId);
  notOwn(item, moderator);
  const event: AuditEvent = { action: 'filter.held_discarded', actor: moderator.user_id, subject: item.author, via: moderator.auth_type, held_id: heldId };
  try {
    await transactWrite([
      { Delete: { TableName: TABLE(), Key: key, ConditionExpression: 'nonce = :n AND #state = :pending', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':n': nonce, ':pending': 'pending' } } },
      auditItem(event),
    ]);
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') {
      const now = await getHeld(key);
      if (now?.nonce === nonce && now.state === 'approving') {
        throw new ForbiddenError('An approval of this held item is under way and may have published it: approve it again, which completes it or returns the item to pending');
      }
      throw new NotFoundError('No such held item (approved, discarded or withdrawn by its author already?)');
    }
    throw error;
  }
  writeAuditLine(event);
  return { held_id: heldId, target_type: item.target_type, target_id: item.target_id };
}
