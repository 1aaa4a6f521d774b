import * as z from './zod.js';
import { AppError, UnavailableError, ValidationError } from './errors.js';

/** DynamoDB and SDK error names that mean "try again later", not "bug". */
const TRANSIENT = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'InternalServerError',
  'TransactionInProgressException',
  'TransactionConflictException',
  'LimitExceededException',
  'TimeoutError',
]);

/** Network failures of an SDK call (the store or its connection went away): "try again later" too. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request';
  // An unknown field (a strict body, lib/platform/zod.ts strictBody) is named by itself.
  const unknownField = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const name = [...issue.path, ...(unknownField === undefined ? [] : [unknownField])].join('.') || 'body';
  return `Invalid parameter "${name}": ${issue.message}`;
}

/**
 * The one place where any thrown value becomes an AppError. Returns undefined for an unknown error:
 * the caller logs it in full and answers with a generic 500.
 */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof z.ZodError) return new ValidationError(zodMessage(error));
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { name?: string; code?: string; $metadata?: unknown; statusCode?: number; cause?: { package?: string }; CancellationReasons?: { Code?: string }[] };
  // @middy/http-json-body-parser signals a missing, non-JSON or malformed body with a 415.
  if (e.cause?.package === '@middy/http-json-body-parser') {
    return new ValidationError('The request body must be a JSON object sent with Content-Type: application/json');
  }
  // SNS and Secrets Manager failures become UnavailableError where they are called (sms.ts,
  // jwt-secret.ts): a transient SDK error that gets this far came from DynamoDB.
  if (e.name && TRANSIENT.has(e.name)) return new UnavailableError(undefined, undefined, 'dynamodb');
  if (e.$metadata !== undefined && e.code !== undefined && NETWORK_CODES.has(e.code)) return new UnavailableError(undefined, undefined, 'dynamodb');
  if (e.name === 'TransactionCanceledException' && e.CancellationReasons?.some((r) => r.Code === 'ThrottlingError' || r.Code === 'TransactionConflict')) {
    return new UnavailableError(undefined, undefined, 'dynamodb');
  }
  return undefined;
}
