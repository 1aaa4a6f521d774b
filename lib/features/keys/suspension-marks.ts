import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { retryOnConflict, type TransactItem } from '../../platform/db/transact.js';
import type { StoredKey } from './key-record.js';
import { keyRecordKeys, listKeysOfUser } from './key-records.js';

/**
 * Suspension marks: the `suspended` attribute on the hash guards of a suspended account's keys, so
 * verification learns of the suspension in the GetItem it makes anyway (lib/features/admin/suspension.ts).
 */

const TABLE = () => tableNames.apiKeys;

/**
 * Sets (true) or removes (false) the suspension marker on the hash guard of each of the account's
 * keys: verification reads it in the GetItem it makes anyway. Idempotent; a key deleted meanwhile is
 * skipped (the guard's condition). Returns how many guards it wrote.
 */
export async function markKeysSuspended(userId: string, suspended: boolean): Promise<number> {
  const keys = await listKeysOfUser(userId);
  let written = 0;
  const mark = async (key: StoredKey) => {
    try {
      await retryOnConflict(() =>
        db.send(
          new UpdateCommand({
            TableName: TABLE(),
            Key: keyRecordKeys.hashGuard(key.key_hash),
            UpdateExpression: suspended ? 'SET suspended = :true' : 'REMOVE suspended',
            ConditionExpression: 'attribute_exists(pk)',
            ...(suspended ? { ExpressionAttributeValues: { ':true': true } } : {}),
          }),
        ),
      );
      written++;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  };
  // Ten at a time: at most 100 keys per account (MAX_KEYS_PER_USER), so ten rounds at most.
  for (let i = 0; i < keys.length; i += 10) await Promise.all(keys.slice(i, i + 10).map(mark));
  return written;
}

/** How many guard updates a suspension may put in its own transaction (the account and its event take two more, the quota check one). */
const MAX_GUARDS_IN_TRANSACTION = 97;

/**
 * The items that set (or remove) the suspension marker on every guard of the account's keys, for the
 * suspension's own transaction: one Update per guard (conditioned on the guard existing) and a check
 * that the account's key count is still the one listed (a key created or deleted in between cancels
 * the transaction, which is then built again). Undefined when they would be more than `room` items
 * (the rest of the caller's transaction takes the others): the caller falls back to
 * markKeysSuspended after its own write.
 */
export async function suspensionMarkItems(userId: string, suspended: boolean, room = MAX_GUARDS_IN_TRANSACTION + 1): Promise<TransactItem[] | undefined> {
  const keys = await listKeysOfUser(userId);
  if (keys.length + 1 > room) return undefined;
  return [
    {
      ConditionCheck: {
        TableName: TABLE(),
        Key: keyRecordKeys.quota(userId),
        ConditionExpression: keys.length === 0 ? 'attribute_not_exists(n) OR n = :count' : 'n = :count',
        ExpressionAttributeValues: { ':count': keys.length },
      },
    },
    ...keys.map(
      (key): TransactItem => ({
        Update: {
          TableName: TABLE(),
          Key: keyRecordKeys.hashGuard(key.key_hash),
          UpdateExpression: suspended ? 'SET suspended = :true' : 'REMOVE suspended',
          ConditionExpression: 'attribute_exists(pk)',
          ...(suspended ? { ExpressionAttributeValues: { ':true': true } } : {}),
        },
      }),
    ),
  ];
}

