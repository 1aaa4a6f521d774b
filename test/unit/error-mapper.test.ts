import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toAppError } from '../../lib/platform/error-mapper.js';
import { NotFoundError, RateLimitedError } from '../../lib/platform/errors.js';

describe('toAppError', () => {
  it('keeps AppErrors as they are', () => {
    const error = new NotFoundError('gone');
    expect(toAppError(error)).toBe(error);
    expect(new RateLimitedError('slow down', 2.2).headers).toEqual({ 'retry-after': '3' });
  });

  it('turns a zod error into a 400 naming the parameter', () => {
    const parsed = z.object({ name: z.string().min(1, 'must not be empty') }).safeParse({ name: '' });
    const mapped = toAppError(parsed.error);
    expect(mapped).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(mapped?.message).toBe('Invalid parameter "name": must not be empty');
  });

  it('turns a JSON body parser failure into a 400', () => {
    const middyError = Object.assign(new Error('Invalid or malformed JSON was provided'), {
      statusCode: 415,
      cause: { package: '@middy/http-json-body-parser', data: '{' },
    });
    expect(toAppError(middyError)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'InternalServerError', 'TransactionConflictException'])(
    'maps DynamoDB %s to 503 with Retry-After',
    (name) => {
      const error = Object.assign(new Error('x'), { name });
      expect(toAppError(error)).toMatchObject({ status: 503, code: 'UNAVAILABLE', headers: { 'retry-after': '1' } });
    },
  );

  it('maps an SDK call whose connection failed (the store went away) to 503, and a bare network error of our own code to nothing', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']) {
      const sdk = Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), { code, $metadata: { attempts: 2 } });
      expect(toAppError(sdk), code).toMatchObject({ status: 503, code: 'UNAVAILABLE', dependency: 'dynamodb' });
    }
    expect(toAppError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBeUndefined();
    expect(toAppError(Object.assign(new Error('x'), { code: 'ENOENT', $metadata: {} }))).toBeUndefined();
  });

  it('maps a transaction cancelled by throttling to 503, and by a condition to nothing (the use case decides)', () => {
    const throttled = Object.assign(new Error('x'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }] });
    expect(toAppError(throttled)).toMatchObject({ status: 503 });
    const conditional = Object.assign(new Error('x'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] });
    expect(toAppError(conditional)).toBeUndefined();
  });

  it('leaves unknown errors for the generic 500', () => {
    expect(toAppError(new TypeError('undefined is not a function'))).toBeUndefined();
    expect(toAppError('a string')).toBeUndefined();
  });
});
