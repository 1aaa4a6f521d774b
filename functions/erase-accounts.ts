import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { applyErasureRecords } from '../lib/features/deletion/erasure.js';
import { observability } from '../lib/platform/observability/middleware.js';
import type { ChangeRecord } from '../lib/features/streams/facts.js';

/**
 * The hub table's stream, filtered to the records of deletions still erasing (infra/constructs/erasure.ts):
 * one run of each deletion's erasure (lib/features/deletion/erasure.ts). A run that fails is reported from
 * its record on; Lambda retries it, and past its retries the sweeper hands the deletion over again.
 */
export const handler = middy(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const outcome = await applyErasureRecords(event.Records as ChangeRecord[]);
  return { batchItemFailures: outcome.failedFrom === undefined ? [] : [{ itemIdentifier: outcome.failedFrom }] };
}).use(observability());
