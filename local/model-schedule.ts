import { logger } from '../lib/platform/logger.js';
import { refreshRecommendationModel } from '../lib/features/recommend/model-refresh.js';

/**
 * The local stand-in of the deployed schedule of the feed's learned model
 * (infra/constructs/feed-model.ts): the same refresh (lib/features/recommend/model-refresh.ts) every
 * `everyMs`, never two at once; `stop()` waits for a run in progress.
 */
export interface ModelSchedule {
  stop(): Promise<void>;
}

export function startModelSchedule(everyMs: number): ModelSchedule {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= refreshRecommendationModel()
      .then((report) => {
        if (report.written > 0 || report.deleted > 0) logger.info('feed model refreshed', { ...report });
      })
      .catch((error: Error) => logger.warn('feed model refresh failed', { errorName: error.name }))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
