import middy from '@middy/core';
import { sweepErasures } from '../lib/features/deletion/erasure.js';
import { logger } from '../lib/platform/logger.js';
import { observability } from '../lib/platform/observability/middleware.js';

/** Every 10 minutes (infra/constructs/erasure.ts): stalled erasures handed to the stream again, overdue ones counted (lib/features/deletion/erasure.ts). */
export const handler = middy(async (): Promise<void> => {
  const { kicked, overdue } = await sweepErasures();
  if (kicked > 0 || overdue > 0) logger.warn('erasures swept', { kicked, overdue });
}).use(observability());
