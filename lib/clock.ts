/**
 * The one source of "now" for use cases. Tests of expiry move it forward instead of sleeping;
 * nothing outside tests changes the offset.
 */
let offsetMs = 0;

export const clock = {
  now(): number {
    return Date.now() + offsetMs;
  },
  nowIso(): string {
    return new Date(clock.now()).toISOString();
  },
  advance(ms: number): void {
    offsetMs += ms;
  },
  reset(): void {
    offsetMs = 0;
  },
};
