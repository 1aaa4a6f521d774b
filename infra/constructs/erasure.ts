import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../lib/platform/observability/metric-names.js';
import { consumeStream } from './stream-consumer.js';

export interface ErasureProps {
  table: dynamodb.ITable;
  /** The erasure (functions/erase-accounts.ts) and the sweeper (functions/sweep-erasures.ts). */
  erase: NodejsFunction;
  sweep: NodejsFunction;
  /** The metrics' `service` dimension (POWERTOOLS_SERVICE_NAME of the functions). */
  service: string;
}

/**
 * The background erasure of deleted accounts (docs/accounts.md, "Erasure"): the hub table's stream,
 * filtered to the changes of deletion records still `erasing`, drives the erasure function one run
 * at a time (batch of 1, retried 10 times, then the record's position goes to an SQS queue); a
 * schedule runs the sweeper every 10 minutes, which hands a stalled erasure to the stream again.
 * Alarms: a run that failed past its retries, and an erasure still running an hour after it was
 * asked for (the sweeper's ErasuresOverdue metric).
 */
export class Erasure extends Construct {
  readonly failures: sqs.Queue;
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: ErasureProps) {
    super(scope, id);
    this.failures = consumeStream(this, {
      table: props.table,
      fn: props.erase,
      batchSize: 1,
      bisect: false,
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.or('INSERT', 'MODIFY'),
          dynamodb: { NewImage: { entity: { S: FilterRule.isEqual('account_deletion') }, state: { S: FilterRule.isEqual('erasing') } } },
        }),
      ],
      queueReason:
        'This queue is itself the on-failure destination of the erasure: it holds the positions of runs that failed past their retries, for an operator; the sweeper resumes those erasures anyway.',
    });

    new events.Rule(this, 'Sweep', {
      description: 'Resumes stalled account erasures and counts overdue ones (docs/accounts.md, "Erasure")',
      schedule: events.Schedule.rate(Duration.minutes(10)),
      targets: [new targets.LambdaFunction(props.sweep, { retryAttempts: 2 })],
    });

    const failed = new cloudwatch.Alarm(this, 'FailedRuns', {
      alarmDescription: 'An account erasure run failed past its retries (the sweeper resumes it): see docs/accounts.md, "Erasure"',
      metric: this.failures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const overdue = new cloudwatch.Alarm(this, 'ErasureOverdue', {
      alarmDescription: 'An account erasure has not completed within an hour of its request: see docs/accounts.md, "Erasure"',
      metric: new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'ErasuresOverdue',
        dimensionsMap: { service: props.service },
        statistic: 'Sum',
        period: Duration.minutes(10),
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms = [failed, overdue];
  }
}
