import { afterEach, describe, expect, it } from 'vitest';
import { newOpenid, newVid, randomBase62, randomDigits, useSeededIds } from '../../lib/platform/ids.js';

describe('ids', () => {
  afterEach(() => useSeededIds(undefined));

  it('have the documented shapes', () => {
    expect(newOpenid()).toMatch(/^u_[A-Za-z0-9]{20}$/);
    expect(newVid()).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(randomDigits(6)).toMatch(/^\d{6}$/);
  });

  it('repeat under the same seed (the offline evaluation) and differ under another', () => {
    useSeededIds(7);
    const first = [newOpenid(), newVid(), randomBase62(8), randomDigits(6)];
    useSeededIds(7);
    expect([newOpenid(), newVid(), randomBase62(8), randomDigits(6)]).toEqual(first);
    useSeededIds(8);
    expect([newOpenid(), newVid(), randomBase62(8), randomDigits(6)]).not.toEqual(first);
  });

  it('come from crypto randomness again once the seed is removed', () => {
    useSeededIds(7);
    const seeded = newOpenid();
    useSeededIds(undefined);
    const a = newOpenid();
    useSeededIds(undefined);
    expect(newOpenid()).not.toBe(a);
    expect(a).not.toBe(seeded);
  });
});
