import { toAppError } from '../error-mapper.js';
import { logger } from '../logger.js';
import { backoff, type Backoff } from './backoff.js';

/**
 * How writes behave when a request fails. An operation answers 503 only when nothing was written
 * (docs/api-keys.md, "503, retries and lost answers"); the helpers here serve the steps where that takes care:
 * - undoing what a failed operation had already done (a compensation runs right after a failure, so
 *   it retries transient errors before giving up);
 * - the requests after an operation's write has committed (the read for the answer): the operation
 *   has happened, so their failure falls back instead of answering 503.
 */

/**
 * DynamoDB answered and did not apply the request: a 4xx (throttled, cancelled, condition failed).
 * A timeout, a lost connection or a 5xx may have been applied: never undo as if it had not been.
 */
export function wasRefused(error: unknown): boolean {
  return (error as { $fault?: unknown } | undefined)?.$fault === 'client';
}

/** A dependency failure that may clear on its own: what the error mapper answers with 503. */
export function isTransient(error: unknown): boolean {
  return toAppError(error)?.status === 503;
}

/** Waits up to 50, 100 ms before the retries. */
const TRANSIENT_BACKOFF: Backoff = { firstMs: 50 };

/** Runs `request`, retried on transient failures (for idempotent requests: a timed-out one may have been applied). */
export async function retryTransient<T>(request: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (!isTransient(error) || attempt >= attempts) throw error;
      await backoff(attempt, TRANSIENT_BACKOFF);
    }
  }
}

/**
 * A request made after the operation's write committed, e.g. the read for the answer. The operation
 * has happened: a dependency failure here answers with `fallback()` (logged) rather than a 503 that
 * would tell the client nothing was done. A bug still throws.
 */
export async function afterCommit<T>(what: string, request: () => Promise<T>, fallback: () => T): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!isTransient(error)) throw error;
    logger.warn('read after commit failed; answering from what was read before', { what, errorName: (error as Error)?.name });
    return fallback();
  }
}
