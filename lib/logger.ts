import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured (JSON) logger for every function. Secrets never go in: log identifiers, never keys,
 * tokens, codes or phone numbers.
 */
export const logger = new Logger({ serviceName: 'expohub', logLevel: (process.env.LOG_LEVEL ?? 'INFO') as 'INFO' });
