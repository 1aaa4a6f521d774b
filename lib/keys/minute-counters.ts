import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { retryTransient } from '../db/failures.js';
import { logger } from '../logger.js';

/**
 * Minute counters of the api_keys table: the requests of one key in one UTC minute, the per-key rate
 * limit's counter and, summed per day, the key's usage.
 */

const TABLE = () => tableNames.apiKeys;
const pad = (id: number) => String(id).padStart(12, '0');

/** Key builders of the minute counters: the only place that spells them. */
export const minuteCounterKeys = {
  /**
   * The requests of key `id` in one UTC minute (`minute`: `YYYY-MM-DDTHH:MM`). One partition per key
   * (ids are never reused).
   */
  usageMinute: (id: number, minute: string) => ({ pk: `KEYUSE#${pad(id)}`, sk: `MIN#${minute}` }),
  usagePartition: (id: number) => `KEYUSE#${pad(id)}`,
  usagePrefix: 'MIN#',
};

/** How long a minute counter is kept: the 30 days of usage, plus a margin for TTL's lag. */
const USAGE_TTL_SECONDS = 32 * 24 * 3600;

export type KeyUseVerdict = 'admitted' | 'first_refusal' | 'second_refusal' | 'refused';

/**
 * Counts one request of key `id` in UTC minute `minute` against `limit`: one UpdateItem of the
 * key's minute counter, admitted while the count stays at or below the limit. The write that takes
 * the count to limit + 1 is the minute's first refusal (the caller audits it); the one that takes it
 * to limit + 2 is the second (the caller makes sure the first's event is stored: the first refusal
 * may have timed out after its count was applied, and never reached its audit); from then on the
 * condition fails and nothing more is written. Exact across Lambda instances: DynamoDB applies the
 * conditional ADDs on the item one after another. `lim` keeps the limit for the usage sum.
 */
export async function countKeyUse(id: number, minute: string, limit: number, minuteEpochSeconds: number): Promise<KeyUseVerdict> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: minuteCounterKeys.usageMinute(id, minute),
        UpdateExpression: 'SET lim = :limit, #ttl = :ttl ADD n :one',
        ConditionExpression: 'attribute_not_exists(n) OR n <= :second',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':second': limit + 1, ':ttl': minuteEpochSeconds + USAGE_TTL_SECONDS },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const n = Number(out.Attributes!.n);
    return n <= limit ? 'admitted' : n === limit + 1 ? 'first_refusal' : 'second_refusal';
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'refused';
    throw error;
  }
}

/**
 * Gives back the count of the minute's first refusal of key `id` (the write that took its counter to
 * `limit` + 1) when that refusal could not store its audit event: the key's next request is then the
 * first refusal again and stores it (its event id keeps it once). Only while the count is still
 * limit + 1, so a retried give-back that had been applied does not give back twice (and once a
 * second refusal has moved it on, that refusal stores the event). A compensation: retried on transient errors, then logged.
 */
export async function uncountFirstRefusal(id: number, minute: string, limit: number): Promise<void> {
  await retryTransient(() =>
    db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: minuteCounterKeys.usageMinute(id, minute),
        UpdateExpression: 'ADD n :minus',
        ConditionExpression: 'n = :over',
        ExpressionAttributeValues: { ':minus': -1, ':over': limit + 1 },
      }),
    ),
  ).catch((error: Error) => {
    if (!isConditionalCheckFailed(error)) logger.warn('first refusal not given back: its audit event is not stored', { keyId: id, errorName: error.name });
  });
}

/**
 * The admitted requests of key `id` per minute from `fromMinute` to `toMinute` (inclusive): one
 * Query of the key's usage partition (eventually consistent: a figure may lag a second behind).
 * A minute's first refusal is in its count, not in what it admitted: min(n, lim). `queries`: the
 * Query pages it took (1 MB each: 30 days of a key used every minute, 43,200 counters, take 3).
 */
export async function readKeyUsage(id: number, fromMinute: string, toMinute: string): Promise<{ minutes: { minute: string; requests: number }[]; queries: number }> {
  const minutes: { minute: string; requests: number }[] = [];
  let startKey: Record<string, unknown> | undefined;
  let queries = 0;
  do {
    queries++;
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': minuteCounterKeys.usagePartition(id), ':from': minuteCounterKeys.usagePrefix + fromMinute, ':to': minuteCounterKeys.usagePrefix + toMinute },
        ProjectionExpression: 'sk, n, lim',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const n = Number(item.n ?? 0);
      minutes.push({ minute: String(item.sk).slice(minuteCounterKeys.usagePrefix.length), requests: Math.min(n, Number(item.lim ?? n)) });
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return { minutes, queries };
}
