import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';

/** How often the feed's learned model is rebuilt (docs/feed.md, "The learned model"): its staleness bound, with the build's own time. */
export const MODEL_REFRESH_RATE = Duration.hours(1);

/**
 * The schedule of the feed's learned model: functions/refresh-model.ts reads every like, the likers'
 * views and dislikes, trains the model and rewrites the lists that changed, retried twice by EventBridge. A run
 * that fails leaves the previous lists in place, so the feed keeps working with a model one period
 * older; two runs at once (a retry overlapping the next hour) write the same lists.
 */
export class FeedModel extends Construct {
  constructor(scope: Construct, id: string, props: { refresh: NodejsFunction }) {
    super(scope, id);
    new events.Rule(this, 'Refresh', {
      description: "Retrains the feed's model on every like, view and dislike (docs/feed.md)",
      schedule: events.Schedule.rate(MODEL_REFRESH_RATE),
      targets: [new targets.LambdaFunction(props.refresh, { retryAttempts: 2 })],
    });
  }
}
