import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../lib/platform/logger.js';
import { observability } from '../lib/platform/observability/middleware.js';
import { applyChangeRecords } from '../lib/features/streams/counters.js';
import type { ChangeRecord } from '../lib/features/streams/facts.js';

/**
 * The hub table's stream (event source mapping with ReportBatchItemFailures): derived counters.
 * A failed chunk is reported from its first record on; Lambda retries from there, bisecting, and
 * past its retries sends the batch's position to the on-failure queue (infra/constructs/stream-counters.ts).
 */
export const handler = middy(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const outcome = await applyChangeRecords(event.Records as ChangeRecord[]);
  if (outcome.failedFrom === undefined) return { batchItemFailures: [] };
  logger.error('stream counters: chunk failed, retried from its first record', { sequenceNumber: outcome.failedFrom, errorName: (outcome.error as Error)?.name });
  return { batchItemFailures: [{ itemIdentifier: outcome.failedFrom }] };
}).use(observability());
