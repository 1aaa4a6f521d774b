import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { retryTransient, wasRefused } from '../db/failures.js';
import { cancellationCode, transactWrite } from '../db/transact.js';
import { LimitExceededError } from '../errors.js';
import { logger } from '../logger.js';
import type { StoredKey } from './key-record.js';
import { keyItems } from './keys-table.js';

const TABLE = () => tableNames.apiKeys;

/**
 * What verification needs of a key: the hash guard mirrors it, so one consistent read by hash
 * answers (a guard written before the guard mirrored last_used_at is completed from the record).
 */
export type KeyBinding = Pick<StoredKey, 'id' | 'user_id' | 'scopes' | 'expires_at' | 'is_active' | 'last_used_at' | 'rate_limit_per_minute'>;
const BINDING_ATTRIBUTES = 'id, user_id, scopes, expires_at, is_active, last_used_at, rate_limit_per_minute';

/** The key record as stored under its user's partition. */
export function keyRecordItem(key: StoredKey): Record<string, unknown> {
  return { ...keyItems.record(key.user_id, key.id), entity: 'api_key', ...key };
}

/**
 * The hash guard of a key: unique per hash (its Put's condition), and a mirror of the record's
 * KeyBinding, kept equal by every write of those attributes (create, revoke, touchLastUsed: one
 * transaction each), so verification reads it alone.
 */
export function hashGuardItem(key: StoredKey): Record<string, unknown> {
  const { id, user_id, scopes, expires_at, is_active, last_used_at, rate_limit_per_minute } = key;
  return { ...keyItems.hashGuard(key.key_hash), entity: 'api_key_hash', id, user_id, scopes, expires_at, is_active, last_used_at, rate_limit_per_minute };
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
  try {
    await transactWrite([
      { Put: { TableName: TABLE(), Item: keyRecordItem(key), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: TABLE(), Item: hashGuardItem(key), ConditionExpression: 'attribute_not_exists(pk)' } },
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
 * Reads what verification needs of the key with hash `keyHash`: one strongly consistent GetItem of
 * its hash guard, written in the create transaction (so a new key is found on the first try) and
 * updated or removed in the same transaction as the record by revoke and delete (so a revoke bites on
 * the next request). The key_hash GSI is not read: it is eventually consistent. A guard written
 * before guards mirrored last_used_at lacks it: the record is read too (a second consistent GetItem),
 * until touchLastUsed writes it on the guard.
 */
export async function findKeyByHash(keyHash: string): Promise<KeyBinding | undefined> {
  const guard = await db.send(new GetCommand({ TableName: TABLE(), Key: keyItems.hashGuard(keyHash), ConsistentRead: true, ProjectionExpression: BINDING_ATTRIBUTES }));
  const binding = guard.Item as Partial<KeyBinding> | undefined;
  if (!binding || binding.last_used_at !== undefined) return binding as KeyBinding | undefined;
  const record = await db.send(
    new GetCommand({ TableName: TABLE(), Key: keyItems.record(binding.user_id!, binding.id!), ConsistentRead: true, ProjectionExpression: BINDING_ATTRIBUTES }),
  );
  return record.Item as KeyBinding | undefined;
}

/**
 * Records a use on the record (which the key list shows) and on the guard (which verification reads)
 * in one transaction, at most once per minute per key: the guard's condition (last_used_at absent,
 * null or not after `notAfterIso`) makes concurrent verifications write once. Returns false when
 * another request wrote it first, is writing the key right now (a conflict, not retried: the other
 * write records the use, or revokes or deletes the key), or the key is gone.
 */
export async function touchLastUsed(keyHash: string, key: Pick<KeyBinding, 'user_id' | 'id'>, nowIso: string, notAfterIso: string): Promise<boolean> {
  try {
    await transactWrite(
      [
        {
          Update: {
            TableName: TABLE(),
            Key: keyItems.hashGuard(keyHash),
            UpdateExpression: 'SET last_used_at = :now',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_used_at) OR attribute_type(last_used_at, :nullType) OR last_used_at <= :cutoff)',
            ExpressionAttributeValues: { ':now': nowIso, ':cutoff': notAfterIso, ':nullType': 'NULL' },
          },
        },
        {
          Update: {
            TableName: TABLE(),
            Key: keyItems.record(key.user_id, key.id),
            UpdateExpression: 'SET last_used_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':now': nowIso },
          },
        },
      ],
      1,
    );
    return true;
  } catch (error) {
    const reasons = [0, 1].map((i) => cancellationCode(error, i));
    if (reasons.some((r) => r === 'ConditionalCheckFailed' || r === 'TransactionConflict')) return false;
    throw error;
  }
}

/** How long a minute counter is kept: the 30 days of usage, plus a margin for TTL's lag. */
const USAGE_TTL_SECONDS = 32 * 24 * 3600;

export type KeyUseVerdict = 'admitted' | 'first_refusal' | 'refused';

/**
 * Counts one request of key `id` in UTC minute `minute` against `limit`: one UpdateItem of the
 * key's minute counter, admitted while the count stays at or below the limit. The write that takes
 * the count to limit + 1 is the minute's first refusal (the caller audits it); from then on the
 * condition fails and nothing more is written. Exact across Lambda instances: DynamoDB applies the
 * conditional ADDs on the item one after another. `lim` keeps the limit for the usage sum.
 */
export async function countKeyUse(id: number, minute: string, limit: number, minuteEpochSeconds: number): Promise<KeyUseVerdict> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: keyItems.usageMinute(id, minute),
        UpdateExpression: 'SET lim = :limit, #ttl = :ttl ADD n :one',
        ConditionExpression: 'attribute_not_exists(n) OR n <= :limit',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': minuteEpochSeconds + USAGE_TTL_SECONDS },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(out.Attributes!.n) <= limit ? 'admitted' : 'first_refusal';
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'refused';
    throw error;
  }
}

/**
 * The admitted requests of key `id` per minute from `fromMinute` to `toMinute` (inclusive): one
 * Query of the key's usage partition (eventually consistent: a figure may lag a second behind).
 * A minute's first refusal is in its count, not in what it admitted: min(n, lim).
 */
export async function readKeyUsage(id: number, fromMinute: string, toMinute: string): Promise<{ minute: string; requests: number }[]> {
  const minutes: { minute: string; requests: number }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keyItems.usagePartition(id), ':from': keyItems.usagePrefix + fromMinute, ':to': keyItems.usagePrefix + toMinute },
        ProjectionExpression: 'sk, n, lim',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const n = Number(item.n ?? 0);
      minutes.push({ minute: String(item.sk).slice(keyItems.usagePrefix.length), requests: Math.min(n, Number(item.lim ?? n)) });
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return minutes;
}
