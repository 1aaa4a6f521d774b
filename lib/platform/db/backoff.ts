/**
 * The one backoff of every retry loop on DynamoDB. `retry` counts the retries from 1; its ceiling is
 * `firstMs` for the first one and doubles with each next one (or grows by `firstMs` when `linear`), up
 * to `capMs`. A jittered wait is drawn below the ceiling, so that requests which collided once spread
 * out instead of colliding again; without jitter the wait is the ceiling itself.
 */
export interface Backoff {
  firstMs: number;
  capMs?: number;
  jitter?: boolean;
  growth?: 'double' | 'linear';
}

function backoffDelay(retry: number, { firstMs, capMs = Infinity, jitter = true, growth = 'double' }: Backoff): number {
  const ceiling = Math.min(capMs, growth === 'double' ? firstMs * 2 ** (retry - 1) : firstMs * retry);
  return jitter ? Math.random() * ceiling : ceiling;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits before retry number `retry` (1 for the first retry). */
export const backoff = (retry: number, options: Backoff): Promise<void> => sleep(backoffDelay(retry, options));
