import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { retryTransient, wasRefused } from '../db/failures.js';
import { API_KEYS_TABLE } from '../db/tables.js';
import { cancellationCode, transactWrite } from '../db/transact.js';
import { LimitExceededError } from '../errors.js';
import { logger } from '../logger.js';
import type { StoredKey } from './key-record.js';
import { keyItems } from './keys-table.js';

const TABLE = () => tableNames.apiKeys;
const HASH_INDEX = API_KEYS_TABLE.globalIndexes[0]!.indexName;

/** What verification needs of a key, read either from the record or from its hash guard. */
export interface KeyBinding {
  id: number;
  user_id: string;
  scopes: string[];
  expires_at: string | null;
  is_active: boolean;
  last_used_at: string | null;
}

/** Allocates the next id of the global sequence: unique and increasing across all users. */
export async function nextKeyId(): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: TABLE(),
      Key: keyItems.idCounter,
      UpdateExpression: 'ADD n :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes!.n);
}

/**
 * Gives back id `id` when the create that took it was refused, unless a later create took the next
 * one: ids never repeat, and a refused create leaves no gap. (After a timeout the create may have
 * been applied: its id is never given back, it stays skipped.)
 */
async function releaseKeyId(id: number): Promise<void> {
  const condition = { ConditionExpression: 'n = :id', ExpressionAttributeValues: { ':id': id } };
  await retryTransient(() =>
    // The first id came from a counter that did not exist: remove it again rather than leave a 0.
    id === 1
      ? db.send(new DeleteCommand({ TableName: TABLE(), Key: keyItems.idCounter, ...condition }))
      : db.send(
          new UpdateCommand({
            TableName: TABLE(),
            Key: keyItems.idCounter,
            UpdateExpression: 'ADD n :minus',
            ...condition,
            ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':minus': -1 },
          }),
        ),
  ).catch((error: Error) => {
    if (!isConditionalCheckFailed(error)) logger.warn('key id not given back', { errorName: error.name });
  });
}

/**
 * Writes the record, its hash guard and the user's quota counter in one transaction: either the key
 * exists completely or not at all, and the quota cannot be exceeded by concurrent creates. A refused
 * create gives its id back (releaseKeyId).
 */
export async function insertKey(key: StoredKey, maxKeysPerUser: number): Promise<void> {
  const { key_hash, ...mirror } = key;
  try {
    await transactWrite([
      {
        Put: {
          TableName: TABLE(),
          Item: { ...keyItems.record(key.user_id, key.id), entity: 'api_key', ...key },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: TABLE(),
          Item: {
            ...keyItems.hashGuard(key_hash),
            entity: 'api_key_hash',
            id: mirror.id,
            user_id: mirror.user_id,
            scopes: mirror.scopes,
            expires_at: mirror.expires_at,
            is_active: mirror.is_active,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: TABLE(),
          Key: keyItems.quota(key.user_id),
          UpdateExpression: 'ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': maxKeysPerUser },
        },
      },
    ]);
  } catch (error) {
    if (wasRefused(error)) await releaseKeyId(key.id);
    if (cancellationCode(error, 2) === 'ConditionalCheckFailed') {
      throw new LimitExceededError(`You already have ${maxKeysPerUser} API keys; delete one before creating another`);
    }
    throw error;
  }
}

export async function listKeysOfUser(userId: string): Promise<StoredKey[]> {
  const keys: StoredKey[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keyItems.userPartition(userId), ':prefix': keyItems.recordPrefix },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    keys.push(...((out.Items ?? []) as StoredKey[]));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return keys;
}

export async function getKeyOfUser(userId: string, id: number): Promise<StoredKey | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: keyItems.record(userId, id), ConsistentRead: true }));
  return out.Item as StoredKey | undefined;
}

/** Marks the record and its guard inactive together. Returns false when the key is gone. */
export async function markRevoked(key: StoredKey, nowIso: string): Promise<boolean> {
  try {
    await transactWrite([
      {
        Update: {
          TableName: TABLE(),
          Key: keyItems.record(key.user_id, key.id),
          UpdateExpression: 'SET is_active = :false, updated_at = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':false': false, ':now': nowIso },
        },
      },
      {
        Update: {
          TableName: TABLE(),
          Key: keyItems.hashGuard(key.key_hash),
          UpdateExpression: 'SET is_active = :false',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':false': false },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed' || cancellationCode(error, 1) === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** Removes the record, its guard and one unit of quota together. Returns false when already gone. */
export async function removeKey(key: StoredKey): Promise<boolean> {
  try {
    await transactWrite([
      { Delete: { TableName: TABLE(), Key: keyItems.record(key.user_id, key.id), ConditionExpression: 'attribute_exists(pk)' } },
      { Delete: { TableName: TABLE(), Key: keyItems.hashGuard(key.key_hash) } },
      {
        Update: {
          TableName: TABLE(),
          Key: keyItems.quota(key.user_id),
          UpdateExpression: 'ADD n :minusOne',
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/**
 * Finds a key by hash with at most two requests. The GSI answers for every key except one created in
 * the last moments (GSIs are eventually consistent in AWS); then the hash guard, written in the
 * create transaction and read strongly consistently, answers instead. Either way the active flag
 * comes from a consistent read, so a revoke bites on the next request.
 */
export async function findKeyByHash(keyHash: string): Promise<{ binding: KeyBinding; fromGuard: boolean } | undefined> {
  const indexed = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      IndexName: HASH_INDEX,
      KeyConditionExpression: 'key_hash = :h',
      ExpressionAttributeValues: { ':h': keyHash },
      Limit: 1,
    }),
  );
  const hit = indexed.Items?.[0];
  if (hit) {
    const out = await db.send(
      new GetCommand({
        TableName: TABLE(),
        Key: { pk: hit.pk, sk: hit.sk },
        ConsistentRead: true,
        ProjectionExpression: 'id, user_id, scopes, expires_at, is_active, last_used_at',
      }),
    );
    return out.Item ? { binding: out.Item as KeyBinding, fromGuard: false } : undefined;
  }
  const guard = await db.send(new GetCommand({ TableName: TABLE(), Key: keyItems.hashGuard(keyHash), ConsistentRead: true }));
  if (!guard.Item) return undefined;
  return { binding: { ...(guard.Item as Omit<KeyBinding, 'last_used_at'>), last_used_at: null }, fromGuard: true };
}

/**
 * Records a use, at most once per minute per key: the condition makes concurrent verifications
 * write once. Returns false when another request already wrote it (or the key vanished).
 */
export async function touchLastUsed(userId: string, id: number, nowIso: string, notAfterIso: string): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: keyItems.record(userId, id),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_type(last_used_at, :nullType) OR last_used_at <= :cutoff)',
        ExpressionAttributeValues: { ':now': nowIso, ':cutoff': notAfterIso, ':nullType': 'NULL' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

