// The moderation side of held content (docs/moderation.md, "Filter"): the queue of held items,
// oldest first (listHeld), and its actions (approveHeld, discardHeld). The items themselves:
// lib/filter/held-items.ts.
import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { accountKeys, getAccount, isDeleted } from '../accounts/accounts.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../audit/trail.js';
import { putVideo } from '../catalog/videos.js';
import { clock } from '../clock.js';
import { postComment } from '../comments/post-comment.js';
import { batchGetHubItems, itemId } from '../db/batch.js';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { cancellationCode, transactWrite } from '../db/transact.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { heldKeys, heldView, isHeldItemKey, parseHeldId, type HeldItem, type HeldTargetType, type HeldView, type ProfileField } from './held-items.js';

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
  const found = await batchGetHubItems<HeldItem>(keys);
  const items = keys.flatMap((k) => {
    const item = found.get(itemId(k));
    return item ? [item] : [];
  });
  const next = out.LastEvaluatedKey as Record<string, string> | undefined;
  return { items: items.map(heldView), next_cursor: next ? Buffer.from(JSON.stringify([next.pk, next.sk, next.gsi1sk]), 'utf8').toString('base64url') : null };
}

async function getHeld(key: { pk: string; sk: string }): Promise<HeldItem | undefined> {
  return (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item as HeldItem | undefined;
}

async function requireHeld(heldId: string): Promise<HeldItem> {
  const { key, nonce } = parseHeldId(heldId);
  const item = await getHeld(key);
  if (!item || item.nonce !== nonce) throw new NotFoundError('No such held item (approved or discarded already?)');
  return item;
}

export interface HeldOutcome {
  held_id: string;
  target_type: HeldTargetType;
  /** The id the content has now: the posted comment's cid, the vid, the openid. */
  target_id: string;
}

const deleteHeld = (item: HeldItem) =>
  db.send(new DeleteCommand({ TableName: TABLE(), Key: { pk: item.pk, sk: item.sk }, ConditionExpression: 'nonce = :n', ExpressionAttributeValues: { ':n': item.nonce } })).catch((error: unknown) => {
    if (!isConditionalCheckFailed(error)) throw error;
  });

/**
 * Approves a held item: it becomes what it would have been without the filter. A profile field is one
 * transaction (the account's field, the held item's removal, the audit event). A comment or a video
 * goes through its normal write (the comment takes its number then): one transaction marks the item
 * `approving` with the audit event, then the write, then the item is removed; a repeat of an approval
 * that stopped half-way repeats the write (the comment's 60-second retry guard, the video's fixed
 * vid) and stores no second event. 404 when the item is gone (approved or discarded).
 */
export async function approveHeld(heldId: string, moderator: { user_id: string; auth_type: string }): Promise<HeldOutcome> {
  const item = await requireHeld(heldId);
  // A deleted account's held items go with its erasure: nothing of it is published meanwhile.
  const author = await getAccount(item.author, true);
  if (!author || isDeleted(author)) throw new NotFoundError(`User "${item.author.slice(0, 64)}" does not exist`);
  const event: AuditEvent = { action: 'filter.held_approved', actor: moderator.user_id, subject: item.author, via: moderator.auth_type, held_id: heldId };
  const heldKey = { pk: item.pk, sk: item.sk };
  if (item.target_type === 'user') {
    const field = item.fields[0] as ProfileField;
    try {
      await transactWrite([
        {
          Update: {
            TableName: TABLE(),
            Key: accountKeys.account(item.author),
            UpdateExpression: 'SET #field = :value, updated_at = :now',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
            ExpressionAttributeNames: { '#field': field },
            ExpressionAttributeValues: { ':value': item.text[field], ':now': clock.nowIso() },
          },
        },
        { Delete: { TableName: TABLE(), Key: heldKey, ConditionExpression: 'nonce = :n', ExpressionAttributeValues: { ':n': item.nonce } } },
        auditItem(event),
      ]);
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new NotFoundError(`User "${item.author.slice(0, 64)}" does not exist`);
      if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new NotFoundError('No such held item (approved or discarded already?)');
      throw error;
    }
    writeAuditLine(event);
    return { held_id: heldId, target_type: 'user', target_id: item.author };
  }
  if (item.state === 'pending') {
    try {
      await transactWrite([
        {
          Update: {
            TableName: TABLE(),
            Key: heldKey,
            UpdateExpression: 'SET #state = :approving',
            ConditionExpression: 'nonce = :n AND #state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':n': item.nonce, ':approving': 'approving', ':pending': 'pending' },
          },
        },
        auditItem(event),
      ]);
      writeAuditLine(event);
    } catch (error) {
      // Another approval began meanwhile (it wrote the event): go on with the write, or it is gone.
      if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
      await requireHeld(heldId);
    }
  }
  let targetId = item.target_id;
  if (item.target_type === 'comment') {
    targetId = (await postComment({ openid: item.author, vid: item.vid!, content: item.text.content! })).comment.cid;
  } else {
    await putVideo(item.video!);
  }
  await deleteHeld(item);
  return { held_id: heldId, target_type: item.target_type, target_id: targetId };
}

/** Discards a held item: gone, with its audit event, in one transaction. 404 when it is gone already. */
export async function discardHeld(heldId: string, moderator: { user_id: string; auth_type: string }): Promise<HeldOutcome> {
  const { key, nonce } = parseHeldId(heldId);
  const item = await requireHeld(heldId);
  const event: AuditEvent = { action: 'filter.held_discarded', actor: moderator.user_id, subject: item.author, via: moderator.auth_type, held_id: heldId };
  try {
    await transactWrite([
      { Delete: { TableName: TABLE(), Key: key, ConditionExpression: 'nonce = :n AND #state = :pending', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':n': nonce, ':pending': 'pending' } } },
      auditItem(event),
    ]);
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new NotFoundError('No such held item (approved or discarded already?)');
    throw error;
  }
  writeAuditLine(event);
  return { held_id: heldId, target_type: item.target_type, target_id: item.target_id };
}
