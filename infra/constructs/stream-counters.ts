import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { COUNTER_BATCHING } from '../../lib/features/streams/batching.js';
import { FACT_ENTITIES } from '../../lib/features/streams/facts.js';
import { consumeStream } from './stream-consumer.js';

export interface StreamCountersProps {
  table: dynamodb.ITable;
  fn: NodejsFunction;
}

/**
 * The hub table's stream to the derived-counters function (lib/features/streams/counters.ts): only the
 * records of likes and comments (a filter, so counter updates and markers do not invoke it), in
 * batches of up to 100 gathered over a second per shard (COUNTER_BATCHING: one update of a busy
 * video or author for many of its records), failed chunks reported per record and retried by bisecting, and after
 * 10 retries or an hour the batch's position goes to an SQS queue, with an alarm on it and on the
 * iterator age (how far the counters trail).
 */
export class StreamCounters extends Construct {
  readonly failures: sqs.Queue;
  /** Failed batches and the counters' lag: the stack routes them to the alarm topic. */
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: StreamCountersProps) {
    super(scope, id);
    this.failures = consumeStream(this, {
      table: props.table,
      fn: props.fn,
      batchSize: COUNTER_BATCHING.batchSize,
      batchingWindow: Duration.seconds(COUNTER_BATCHING.windowSeconds),
      parallelizationFactor: COUNTER_BATCHING.parallelization,
      bisect: true,
      filters: [
        FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { entity: { S: FilterRule.or(...FACT_ENTITIES.inserted) } } } }),
        FilterCriteria.filter({ eventName: FilterRule.isEqual('REMOVE'), dynamodb: { OldImage: { entity: { S: FilterRule.or(...FACT_ENTITIES.removed) } } } }),
      ],
      queueReason:
        'This queue is itself the on-failure destination of the stream processor: it holds the positions of batches that could not be applied, read by an operator; nothing consumes it automatically.',
    });

    const failed = new cloudwatch.Alarm(this, 'FailedBatches', {
      alarmDescription: 'Stream records the counters could not apply (likes, comments): see docs/data-model.md, "Counters"',
      metric: this.failures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const lag = new cloudwatch.Alarm(this, 'CountersLag', {
      alarmDescription: 'Derived counters trail the likes and comments by more than a minute',
      metric: props.fn.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
      threshold: 60_000,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 5,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms = [failed, lag];
  }
}
