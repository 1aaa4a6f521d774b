import { clock } from '../../lib/platform/clock.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * Stops the clock `offsetMs` into a whole window of `windowMs` that has not begun yet (`windowsAhead`
 * windows after the current one) and returns that time. A negative `windowsAhead` stops it in a window
 * already over (-1: the one before the current one), for a figure read up to "today" only; never the
 * current window, whose end may be near.
 *
 * Rate limits count in fixed windows aligned to the epoch (lib/platform/limits/rate-windows.ts), a
 * key's requests per UTC minute and per UTC day. A test that expects a limit to hold across several
 * requests (the 429 after the last admitted one), or reads the count of "this" window or day, pins
 * the clock first: on the running clock the window can end between two of its requests (a 300 ms
 * burst crosses a minute boundary once in 200 runs, and a loaded machine makes it seconds), and the
 * limit then starts over. The window is one of the future, so it holds nothing counted at the real
 * time by an earlier test of the file; tests pinned to the same window (or one of the past) count
 * subjects of their own (accounts, keys, phones) or pass another `windowsAhead`.
 *
 * The clock stays stopped: what a test needs time to pass for (a resend wait, the next window, an
 * order by created_at) is clock.advance. A token issued under the pin is checked under it too: the
 * stack resets the clock after each test (test/support/stack.ts).
 */
export function pinInsideWindow(windowMs: number, offsetMs: number, windowsAhead = 1): number {
  if (!(offsetMs >= 0 && offsetMs < windowMs)) throw new RangeError(`offset ${offsetMs} ms is not inside a window of ${windowMs} ms`);
  if (!Number.isInteger(windowsAhead) || windowsAhead === 0) throw new RangeError(`windowsAhead must be a whole number of windows other than 0 (the current one), not ${windowsAhead}`);
  const at = (Math.floor(Date.now() / windowMs) + windowsAhead) * windowMs + offsetMs;
  clock.set(at);
  return at;
}

/**
 * Lets a clock stopped by pinInsideWindow run again from where it stands, never backwards: for a file
 * whose tests share one clock (no reset after each test), whose later tests expect it to run.
 */
export function resumeClock(): void {
  const at = clock.now();
  clock.reset();
  clock.advance(Math.max(0, at - Date.now()));
}
