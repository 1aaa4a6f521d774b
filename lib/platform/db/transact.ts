import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { backoff, type Backoff } from './backoff.js';
import type { BatchWrite } from './batch.js';
import { db } from './client.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The most items one TransactWriteItems may hold (DynamoDB's limit). */
export const MAX_TRANSACTION_ITEMS = 100;

/** A put or delete of a batch (lib/platform/db/batch.ts) as an item of a transaction on `table`. */
export const transactItemOf = (table: string, write: BatchWrite): TransactItem =>
  'put' in write ? { Put: { TableName: table, Item: write.put } } : { Delete: { TableName: table, Key: write.delete } };

/** Conflicts clear within milliseconds: up to 40, 80, 160, 320 ms before the retries. */
const CONFLICT_BACKOFF: Backoff = { firstMs: 40 };

/** The cancellation code of item `index` of a cancelled transaction ('None' when that item was fine). */
export function cancellationCode(error: unknown, index: number): string | undefined {
  if ((error as Error)?.name !== 'TransactionCanceledException') return undefined;
  return (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[index]?.Code;
}

/** Whether a cancelled transaction failed a condition of one of its items (whichever). */
export function conditionFailed(error: unknown): boolean {
  if ((error as Error)?.name !== 'TransactionCanceledException') return false;
  return !!(error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.some((r) => r.Code === 'ConditionalCheckFailed');
}

function isConflict(error: unknown): boolean {
  if ((error as Error)?.name === 'TransactionConflictException') return true;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (error as Error)?.name === 'TransactionCanceledException' && !!reasons?.some((r) => r.Code === 'TransactionConflict');
}

/**
 * TransactWriteItems, retried a few times with jitter when DynamoDB cancels it only because another
 * transaction was touching the same item (hot counters: a popular video, a popular account). Any other
 * cancellation (a failed condition) is the caller's to interpret; a conflict that persists becomes 503.
 */
export async function transactWrite(items: TransactItem[], attempts = 5, client: Pick<typeof db, 'send'> = db): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!isConflict(error) || attempt >= attempts) throw error;
      await backoff(attempt, CONFLICT_BACKOFF);
    }
  }
}

/**
 * A single-item write (UpdateItem, PutItem, DeleteItem) retried with jitter when DynamoDB rejects it
 * because a transaction is in progress on the same item (TransactionConflictException): hot
 * accounts and videos are written by both transactions and plain updates.
 */
export async function retryOnConflict<T>(write: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if ((error as Error)?.name !== 'TransactionConflictException' || attempt >= attempts) throw error;
      await backoff(attempt, CONFLICT_BACKOFF);
    }
  }
}
