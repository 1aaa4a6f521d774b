import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { UnavailableError } from '../errors.js';
import { backoff, type Backoff } from './backoff.js';
import { db, tableNames } from './client.js';
import { retryTransient } from './failures.js';

type Key = { pk: string; sk: string };

/** A batch's unprocessed keys or items come from throttling: wait 50, 100, 200, ... up to 1000 ms. */
const LEFTOVER_BACKOFF: Backoff = { firstMs: 50, capMs: 1000, jitter: false };

/**
 * BatchGetItem on the hub table for any number of keys (chunks of 100, unprocessed keys retried
 * with backoff). Duplicate keys are read once. Returns the items found, keyed by `pk|sk`.
 */
export function batchGetHubItems<T = Record<string, unknown>>(keys: Key[]): Promise<Map<string, T>> {
  return batchGetItems<T>(tableNames.hub, keys);
}

/**
 * batchGetHubItems on any table, with the read's options (ConsistentRead, ProjectionExpression: which
 * must name pk and sk) and the client to send it with (default: the shared one; the stream processor
 * has its own, lib/features/streams/counters.ts).
 */
export async function batchGetItems<T = Record<string, unknown>>(
  table: string,
  keys: Key[],
  { client = db, ...options }: { ConsistentRead?: boolean; ProjectionExpression?: string; client?: Pick<typeof db, 'send'> } = {},
): Promise<Map<string, T>> {
  const found = new Map<string, T>();
  const unique = [...new Map(keys.map((k) => [itemId(k), k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = unique.slice(i, i + 100);
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 0) await backoff(attempt, LEFTOVER_BACKOFF);
      if (attempt > 8) throw Object.assign(new Error('BatchGet kept returning unprocessed keys'), { name: 'ThrottlingException' });
      const out = await client.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ...options } } }));
      for (const item of out.Responses?.[table] ?? []) found.set(itemId(item as Key), item as T);
      pending = out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return found;
}

export const itemId = (key: { pk: unknown; sk: unknown }) => `${String(key.pk)}|${String(key.sk)}`;

/** Runs `run` over `tasks` with at most `limit` of them in flight at once. */
export async function inParallel<T>(tasks: T[], limit: number, run: (task: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) await run(tasks[next++]!);
    }),
  );
}

/** One request of a BatchWriteItem: an item to put, or the key of an item to delete. */
export type BatchWrite = { put: Record<string, unknown> } | { delete: Key };

/**
 * BatchWriteItem on the hub table for any number of puts and deletes (chunks of 25, 8 requests in
 * flight; a request that fails transiently is sent again, puts and deletes being idempotent;
 * unprocessed items retried with backoff; 503 when they keep coming back). A key must not appear
 * twice (DynamoDB refuses a batch that writes one item twice).
 */
export async function batchWriteHubItems(writes: BatchWrite[]): Promise<void> {
  const chunks: BatchWrite[][] = [];
  for (let i = 0; i < writes.length; i += 25) chunks.push(writes.slice(i, i + 25));
  await inParallel(chunks, 8, async (chunk) => {
    let pending: Record<string, unknown>[] = chunk.map((w) => ('put' in w ? { PutRequest: { Item: w.put } } : { DeleteRequest: { Key: w.delete } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new UnavailableError(undefined, undefined, 'dynamodb');
      if (attempt > 0) await backoff(attempt, LEFTOVER_BACKOFF);
      const requests = pending;
      const out = await retryTransient(() => db.send(new BatchWriteCommand({ RequestItems: { [tableNames.hub]: requests } })));
      pending = (out.UnprocessedItems?.[tableNames.hub] ?? []) as Record<string, unknown>[];
    }
  });
}
