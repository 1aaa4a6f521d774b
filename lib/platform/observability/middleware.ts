import type middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { logger } from '../logger.js';
import { flushMetrics } from './metrics.js';

/**
 * What every function does around each invocation, first in its middy chain:
 * - logs carry the Lambda context (function name, cold start, request id) and, for API Gateway
 *   events, `correlation_id` = the API request id (the `x-request-id` the client sees); keys added
 *   during the invocation (the hub's `operation`) are dropped at its end;
 * - no tracing code: Lambda's active tracing records the invocation's segment by itself, and the
 *   X-Ray SDK's per-call subsegments are not worth its import time (docs/performance.md, "Cold starts");
 * - the metrics buffered during the invocation are written once, at its end, also when it failed.
 */
export function observability<E, R>(): middy.MiddlewareObj<E, R, Error, Context>[] {
  return [
    // Never the event, whatever POWERTOOLS_LOGGER_LOG_EVENT says: it holds tokens, keys, SMS codes and phone numbers.
    injectLambdaContext(logger, { resetKeys: true, logEvent: false }) as middy.MiddlewareObj<E, R, Error, Context>,
    {
      before: (request) => {
        const requestId = (request.event as { requestContext?: { requestId?: unknown } }).requestContext?.requestId;
        if (typeof requestId === 'string' && requestId) logger.setCorrelationId(requestId);
      },
    },
    { after: flushMetrics, onError: flushMetrics },
  ];
}
