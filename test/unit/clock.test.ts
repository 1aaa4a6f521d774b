import { afterEach, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';

afterEach(() => clock.reset());

it('set pins now until the next set, advance moves from there, reset returns to real time', async () => {
  clock.set(Date.UTC(2026, 11, 1));
  await new Promise((r) => setTimeout(r, 5));
  expect(clock.nowIso()).toBe('2026-12-01T00:00:00.000Z');
  clock.advance(1500);
  expect(clock.now()).toBe(Date.UTC(2026, 11, 1) + 1500);
  clock.reset();
  expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1000);
});
