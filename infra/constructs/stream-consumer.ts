import { Duration } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';

/**
 * What the hub table's stream consumers (stream-counters.ts, erasure.ts) share: the on-failure queue
 * of their event source mapping, and the cdk-nag reason for the one grant on `*` it needs.
 */
export function onFailureQueue(scope: Construct, reason: string): sqs.Queue {
  const queue = new sqs.Queue(scope, 'Failures', { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
  NagSuppressions.addResourceSuppressions(queue, [{ id: 'AwsSolutions-SQS3', reason }]);
  return queue;
}

export function allowStreamListing(fn: NodejsFunction): void {
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason: 'The event source mapping of the stream needs dynamodb:ListStreams, which has no resource-level permissions (it lists stream ARNs, no data); the stream read itself is granted on the table stream ARN only.',
        appliesTo: ['Resource::*'],
      },
    ],
    true,
  );
}
