import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.js';

/**
 * One structured (JSON) logger for every function. Secrets never go in: log identifiers, never keys,
 * tokens, codes or phone numbers. Each invocation adds the Lambda context (function name, cold start,
 * request ids) and the API Gateway request id as `correlation_id` (lib/observability/middleware.ts).
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'expohub', logLevel: config.LOG_LEVEL });
