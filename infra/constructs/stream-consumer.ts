import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { StartingPosition, type FilterCriteria } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { OWN_COUNT_HOLD_MS } from '../../lib/entities/catalog/own-counts.js';

/**
 * How long a record is retried before its position goes to the on-failure queue (1 hour): as long
 * as a person's own like, dislike or comment holds the counts that person is shown
 * (lib/entities/catalog/own-counts.ts, OWN_COUNT_HOLD_MS).
 */
export const STREAM_MAX_RECORD_AGE = Duration.millis(OWN_COUNT_HOLD_MS);

export interface StreamConsumerProps {
  table: dynamodb.ITable;
  fn: NodejsFunction;
  /** Only the records these match invoke the function. */
  filters: ReturnType<typeof FilterCriteria.filter>[];
  batchSize: number;
  /** How long the mapping gathers a shard's records before invoking (unless the batch fills first); default 0. */
  batchingWindow?: Duration;
  /** Concurrent batches per stream shard; default 1. */
  parallelizationFactor?: number;
  /** Retry a failed batch by halves (a batch of several records). */
  bisect: boolean;
  /** Why nothing consumes the on-failure queue automatically (cdk-nag). */
  queueReason: string;
}

/**
 * One consumer of the hub table's stream (stream-counters.ts, erasure.ts): its filtered event source
 * from the oldest record, failed records reported one by one (ReportBatchItemFailures), 10 retries
 * within STREAM_MAX_RECORD_AGE, then the batch's position on an SQS queue, which it returns; and the
 * cdk-nag reason for the one grant on `*` the mapping needs.
 */
export function consumeStream(scope: Construct, props: StreamConsumerProps): sqs.Queue {
  const failures = new sqs.Queue(scope, 'Failures', { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
  NagSuppressions.addResourceSuppressions(failures, [{ id: 'AwsSolutions-SQS3', reason: props.queueReason }]);
  props.fn.addEventSource(
    new DynamoEventSource(props.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: props.batchSize,
      maxBatchingWindow: props.batchingWindow ?? Duration.seconds(0),
      bisectBatchOnError: props.bisect,
      retryAttempts: 10,
      maxRecordAge: STREAM_MAX_RECORD_AGE,
      reportBatchItemFailures: true,
      parallelizationFactor: props.parallelizationFactor ?? 1,
      onFailure: new SqsDlq(failures),
      filters: props.filters,
    }),
  );
  NagSuppressions.addResourceSuppressions(
    props.fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason: 'The event source mapping of the stream needs dynamodb:ListStreams, which has no resource-level permissions (it lists stream ARNs, no data); the stream read itself is granted on the table stream ARN only.',
        appliesTo: ['Resource::*'],
      },
    ],
    true,
  );
  return failures;
}
