import middy from '@middy/core';
import { publishOldestReportAge } from '../lib/features/moderation/queue.js';
import { observability } from '../lib/platform/observability/middleware.js';

/** Every 5 minutes (infra/constructs/monitoring.ts): the age of the oldest open report, a metric with an alarm at 20 hours (docs/moderation.md, "Moderation"). */
export const handler = middy(async (): Promise<void> => {
  await publishOldestReportAge();
}).use(observability());
