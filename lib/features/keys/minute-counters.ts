import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../platform/db/client.js';

/**
 * Minute counters of the api_keys table: the requests of one key in one UTC minute, as the per-key
 * rate limit counted them before it moved onto the key's hash guard (key-use.ts). Nothing writes
 * them any more; usage reads them until they expire (their TTL: 32 days after their minute).
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
