/**
 * The one source of "now" for use cases. Tests of expiry move it forward instead of sleeping, and
 * the feed's offline evaluation pins it (`set`) so that a seed gives the same timestamps on every
 * run; nothing outside tests and the evaluation changes it.
 */
let offsetMs = 0;
let pinnedMs: number | undefined;

export const clock = {
  now(): number {
    return (pinnedMs ?? Date.now()) + offsetMs;
  },
  nowIso(): string {
    return new Date(clock.now()).toISOString();
  },
  advance(ms: number): void {
    offsetMs += ms;
  },
  /** Stops time at `ms`: now() answers it until the next set, advance or reset. */
  set(ms: number): void {
    pinnedMs = ms;
    offsetMs = 0;
  },
  reset(): void {
    offsetMs = 0;
    pinnedMs = undefined;
  },
};
