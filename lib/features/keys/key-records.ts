import { itemParser } from '../../platform/db/item-check.js';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { retryTransient, wasRefused } from '../../platform/db/failures.js';
import { batchGetItems, itemId } from '../../platform/db/batch.js';
import { liveAccountCheck, NOT_SUSPENDED_OR_DELETED } from '../../entities/accounts/accounts.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { AuthError, LimitExceededError } from '../../platform/errors.js';
import { logger } from '../../platform/logger.js';
import type { StoredKey } from './key-record.js';

/**
 * Key records of the api_keys table, each with its hash guard, the user's quota counter and the
 * global id sequence: the items a key's create, list, revoke, delete and verification read and write.
 */

const TABLE = () => tableNames.apiKeys;
const KEY_ID_INDEX = 'key_id-index';
const pad = (id: number) => String(id).padStart(12, '0');
const USER = 'USER#';

/** Key builders of the key records: the only place that spells them. */
export const keyRecordKeys = {
  record: (userId: string, id: number) => ({ pk: `${USER}${userId}`, sk: `KEY#${pad(id)}` }),
  recordPrefix: 'KEY#',
  userPartition: (userId: string) => `${USER}${userId}`,
  /** The user whose partition `pk` is. */
  userOf: (pk: string) => pk.slice(USER.length),
  /** One per key hash: makes key_hash unique (a GSI cannot) and answers every verification (one consistent GetItem). */
  hashGuard: (keyHash: string) => ({ pk: `KEYHASH#${keyHash}`, sk: 'KEYHASH' }),
  /** The global id sequence. */
  idCounter: { pk: 'COUNTER', sk: 'api_key_id' },
  /** How many key records a user holds, kept in the same transaction as the records. */
  quota: (userId: string) => ({ pk: `${USER}${userId}`, sk: 'QUOTA#api_keys' }),
};

export const ACCOUNT_SUSPENDED = 'This account is suspended; contact an administrator';

/** What verification needs of a key: the hash guard mirrors it, so its one update by hash answers (key-use.ts). */
export type KeyBinding = Pick<StoredKey, 'id' | 'user_id' | 'scopes' | 'expires_at' | 'is_active' | 'last_used_at' | 'rate_limit_per_minute'> & {
  /** Set on the guard while the owner's account is suspended (lib/features/admin/suspension.ts). */
  suspended?: boolean;
};
const BINDING_ATTRIBUTES = 'id, user_id, scopes, expires_at, is_active, last_used_at, rate_limit_per_minute, suspended';

/** The checked parse of a key record (`expires_at` and `last_used_at` may be null: not checked by kind). */
export const keyRecordFromItem = itemParser<StoredKey>('key record', {
  entity: 'api_key',
  required: { id: 'number', user_id: 'string', name: 'string', scopes: 'list', is_active: 'boolean', created_at: 'string' },
  optional: { key_hash: 'string', key_hint: 'string', rate_limit_per_minute: 'number' },
});

/**
 * The checked parse of a key's binding as its hash guard holds it: read with BINDING_ATTRIBUTES (no
 * `entity`) or whole (a use's ALL_NEW), so only the attributes verification relies on are checked.
 */
export const keyBindingFromItem = itemParser<KeyBinding & Record<string, unknown>>('key binding', {
  required: { id: 'number', user_id: 'string' },
  optional: { scopes: 'list', is_active: 'boolean', rate_limit_per_minute: 'number', suspended: 'boolean' },
});

/** The key record as stored under its user's partition. */
export function keyRecordItem(key: StoredKey): Record<string, unknown> {
  return { ...keyRecordKeys.record(key.user_id, key.id), entity: 'api_key', ...key };
}

/**
 * The hash guard of a key: unique per hash (its Put's condition), and a mirror of the record's
 * KeyBinding, kept equal by every write of those attributes (create and revoke: one transaction each), so
 * verification uses it alone; last_used_at is the guard's own since key use moved there (key-use.ts,
 * withLastUse).
 */
export function hashGuardItem(key: StoredKey): Record<string, unknown> {
  const { id, user_id, scopes, expires_at, is_active, last_used_at, rate_limit_per_minute } = key;
  return { ...keyRecordKeys.hashGuard(key.key_hash), entity: 'api_key_hash', id, user_id, scopes, expires_at, is_active, last_used_at, rate_limit_per_minute };
}

/** Allocates the next id of the global sequence: unique and increasing across all users. */
export async function nextKeyId(): Promise<number> {
  const out = await db.send(
    new UpdateCommand({
      TableName: TABLE(),
      Key: keyRecordKeys.idCounter,
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
      ? db.send(new DeleteCommand({ TableName: TABLE(), Key: keyRecordKeys.idCounter, ...condition }))
      : db.send(
          new UpdateCommand({
            TableName: TABLE(),
            Key: keyRecordKeys.idCounter,
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
export async function insertKey(key: StoredKey, maxKeysPerUser: number, also: TransactItem[] = []): Promise<void> {
  try {
    await transactWrite([
      { Put: { TableName: TABLE(), Item: keyRecordItem(key), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: TABLE(), Item: hashGuardItem(key), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          TableName: TABLE(),
          Key: keyRecordKeys.quota(key.user_id),
          UpdateExpression: 'ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': maxKeysPerUser },
        },
      },
      // The owner's account must be neither suspended nor deleted: a create racing a suspension or a
      // deletion either lands before it (and that marks its guard) or is refused here.
      liveAccountCheck(key.user_id, NOT_SUSPENDED_OR_DELETED),
      ...also,
    ]);
  } catch (error) {
    if (wasRefused(error)) await releaseKeyId(key.id);
    if (cancellationCode(error, 2) === 'ConditionalCheckFailed') {
      throw new LimitExceededError(`You already have ${maxKeysPerUser} API keys; delete one before creating another`);
    }
    if (cancellationCode(error, 3) === 'ConditionalCheckFailed') throw new AuthError(ACCOUNT_SUSPENDED, 'account_suspended');
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
        ExpressionAttributeValues: { ':pk': keyRecordKeys.userPartition(userId), ':prefix': keyRecordKeys.recordPrefix },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    keys.push(...(out.Items ?? []).map((item) => keyRecordFromItem(item)!));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return keys;
}

export async function getKeyOfUser(userId: string, id: number): Promise<StoredKey | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: keyRecordKeys.record(userId, id), ConsistentRead: true }));
  return keyRecordFromItem(out.Item);
}

/**
 * Marks the record and its guard inactive together, with the `also` items (the audit events). With
 * `requireActive` (by default when there are `also` items: the revoke's own event) only the revoke
 * that ends the key writes (the record's condition), so a concurrent or repeated revoke stores no
 * second event. Returns false when the key is gone or, with `requireActive`, was revoked by another
 * request in between.
 */
export async function markRevoked(key: StoredKey, nowIso: string, also: TransactItem[] = [], requireActive = also.length > 0): Promise<boolean> {
  try {
    await transactWrite([
      {
        Update: {
          TableName: TABLE(),
          Key: keyRecordKeys.record(key.user_id, key.id),
          UpdateExpression: 'SET is_active = :false, updated_at = :now',
          ConditionExpression: requireActive ? 'attribute_exists(pk) AND is_active = :true' : 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':false': false, ':now': nowIso, ...(requireActive ? { ':true': true } : {}) },
        },
      },
      {
        Update: {
          TableName: TABLE(),
          Key: keyRecordKeys.hashGuard(key.key_hash),
          UpdateExpression: 'SET is_active = :false',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':false': false },
        },
      },
      ...also,
    ]);
    return true;
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed' || cancellationCode(error, 1) === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** Removes the record, its guard and one unit of quota together (with `also`: the audit event). Returns false when already gone. */
export async function removeKey(key: StoredKey, also: TransactItem[] = []): Promise<boolean> {
  try {
    await transactWrite([
      { Delete: { TableName: TABLE(), Key: keyRecordKeys.record(key.user_id, key.id), ConditionExpression: 'attribute_exists(pk)' } },
      { Delete: { TableName: TABLE(), Key: keyRecordKeys.hashGuard(key.key_hash) } },
      {
        Update: {
          TableName: TABLE(),
          Key: keyRecordKeys.quota(key.user_id),
          UpdateExpression: 'ADD n :minusOne',
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
      ...also,
    ]);
    return true;
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** Removes a user's key quota item (the erasure of a deleted account, once its keys are gone). */
export async function removeKeyQuota(userId: string): Promise<void> {
  await retryTransient(() => db.send(new DeleteCommand({ TableName: TABLE(), Key: keyRecordKeys.quota(userId) })));
}

/**
 * The binding of the key with hash `keyHash`, without using it (the smoke check's canary key: does it
 * exist?): one strongly consistent GetItem of its hash guard. Verification updates the guard instead
 * (key-use.ts). The key_hash GSI is not read: it is eventually consistent.
 */
export async function findKeyByHash(keyHash: string): Promise<KeyBinding | undefined> {
  const guard = await db.send(new GetCommand({ TableName: TABLE(), Key: keyRecordKeys.hashGuard(keyHash), ConsistentRead: true, ProjectionExpression: BINDING_ATTRIBUTES }));
  return keyBindingFromItem(guard.Item);
}

/**
 * The keys as their views show them: each record's last_used_at is the later of its own (written
 * before key use moved onto the guard) and its guard's, which every use records (key-use.ts). One
 * consistent BatchGetItem of the guards (at most 100 per user: one request).
 */
export async function withLastUse(keys: StoredKey[]): Promise<StoredKey[]> {
  const hashed = keys.filter((k) => typeof k.key_hash === 'string');
  if (hashed.length === 0) return keys;
  const guards = await batchGetItems<{ last_used_at?: string | null }>(
    TABLE(),
    hashed.map((k) => keyRecordKeys.hashGuard(k.key_hash)),
    { ConsistentRead: true, ProjectionExpression: 'pk, sk, last_used_at' },
  );
  return keys.map((key) => {
    const fromGuard = typeof key.key_hash === 'string' ? guards.get(itemId(keyRecordKeys.hashGuard(key.key_hash)))?.last_used_at : undefined;
    return fromGuard && (key.last_used_at === null || fromGuard > key.last_used_at) ? { ...key, last_used_at: fromGuard } : key;
  });
}

/**
 * The key with id `id`, whoever owns it (administration): the key_id GSI gives its owner's partition,
 * then one consistent GetItem reads the record. The index lags a write by a moment in AWS: a key
 * created an instant ago may not be found yet (404; the next try finds it).
 */
export async function findKeyById(id: number): Promise<StoredKey | undefined> {
  const out = await db.send(
    new QueryCommand({ TableName: TABLE(), IndexName: KEY_ID_INDEX, KeyConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': id } }),
  );
  const record = (out.Items ?? []).find((item) => typeof item.sk === 'string' && item.sk.startsWith(keyRecordKeys.recordPrefix));
  if (!record) return undefined;
  const owner = keyRecordKeys.userOf(String(record.pk));
  return getKeyOfUser(owner, id);
}

/**
 * The key whose hash is `keyHash` (administration: the owner of a leaked key): its hash guard, read
 * strongly consistent, names the owner and the id; the record is read by its key. Undefined when
 * no key has this hash (never created, or deleted).
 */
export async function findKeyRecordByHash(keyHash: string): Promise<StoredKey | undefined> {
  const guard = await db.send(new GetCommand({ TableName: TABLE(), Key: keyRecordKeys.hashGuard(keyHash), ConsistentRead: true, ProjectionExpression: 'id, user_id, last_used_at' }));
  const binding = keyBindingFromItem(guard.Item);
  const record = binding && (await getKeyOfUser(binding.user_id, binding.id));
  // last_used_at: the guard's, which every use records (withLastUse), when it is the later.
  const fromGuard = binding?.last_used_at;
  return record && fromGuard && (record.last_used_at === null || fromGuard > record.last_used_at) ? { ...record, last_used_at: fromGuard } : record;
}

