import middy from '@middy/core';
import { logger } from '../lib/platform/logger.js';
import { observability } from '../lib/platform/observability/middleware.js';
import { refreshRecommendationModel } from '../lib/features/recommend/model-refresh.js';

/** Every hour (infra/constructs/feed-model.ts): the feed's learned model, trained on every like, view and dislike (lib/features/recommend/model-refresh.ts). */
export const handler = middy(async (): Promise<void> => {
  const report = await refreshRecommendationModel();
  logger.info('feed model refreshed', { ...report });
}).use(observability());
