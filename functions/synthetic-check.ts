import middy from '@middy/core';
import { observability } from '../lib/platform/observability/middleware.js';
import { runSyntheticCheck } from '../lib/features/smoke/synthetic.js';

/** Every 5 minutes (infra/constructs/synthetic-check.ts): the smoke checks through the distribution with the stack's canary key (docs/deploy.md, "The synthetic check"). */
export const handler = middy(async () => runSyntheticCheck()).use(observability());
