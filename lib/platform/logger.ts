import { Logger } from '@aws-lambda-powertools/logger';
import { config, onConfigure } from './config.js';

let instance: Logger | undefined;
/** Made on first use, and again after `configure`: Powertools reads its POWERTOOLS_LOGGER_* variables when it is made. */
const current = () => (instance ??= new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'expohub', logLevel: config.LOG_LEVEL }));
onConfigure(() => (instance = undefined));

/**
 * One structured (JSON) logger for every function. Secrets never go in: log identifiers, never keys,
 * tokens, codes or phone numbers. Each invocation adds the Lambda context (function name, cold start,
 * request ids) and the API Gateway request id as `correlation_id` (lib/platform/observability/middleware.ts).
 */
export const logger: Logger = new Proxy({} as Logger, {
  get(_, name) {
    const target = current();
    const value: unknown = Reflect.get(target, name, target);
    return typeof value === 'function' ? value.bind(target) : value;
  },
});
