import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { HEAD_TTL_MS, MAX_HEADS, dropSharedHeads, sharedHead, sharedHeadCount } from '../../lib/entities/catalog/shared-heads.js';

/** The mechanics of the shared heads' cache (lib/entities/catalog/shared-heads.ts; docs/feed.md, "The shared heads' cache"). */
describe('sharedHead', () => {
  beforeEach(() => {
    clock.set(Date.UTC(2026, 10, 26));
    dropSharedHeads();
  });
  afterEach(() => clock.reset());

  const counter = () => {
    let reads = 0;
    return { read: () => Promise.resolve(++reads), reads: () => reads };
  };

  it('answers from the kept read for HEAD_TTL_MS, then reads again', async () => {
    const c = counter();
    expect(await sharedHead('k', c.read)).toBe(1);
    clock.advance(HEAD_TTL_MS - 1);
    expect(await sharedHead('k', c.read)).toBe(1);
    clock.advance(1);
    expect(await sharedHead('k', c.read)).toBe(2);
    expect(c.reads()).toBe(2);
  });

  it('shares one read in flight among every caller', async () => {
    const releases: ((v: string) => void)[] = [];
    let reads = 0;
    const read = () => {
      reads++;
      return new Promise<string>((r) => releases.push(r));
    };
    const answers = Promise.all([sharedHead('k', read), sharedHead('k', read), sharedHead('k', read)]);
    for (const release of releases) release('head');
    expect(await answers).toEqual(['head', 'head', 'head']);
    expect(reads).toBe(1);
  });

  it('keeps no failed read: the next caller reads again', async () => {
    await expect(sharedHead('k', () => Promise.reject(new Error('throttled')))).rejects.toThrow('throttled');
    await Promise.resolve();
    expect(await sharedHead('k', () => Promise.resolve('second'))).toBe('second');
  });

  it('keeps at most MAX_HEADS entries, dropping the least recently used', async () => {
    for (let i = 0; i < MAX_HEADS; i++) await sharedHead(`k${i}`, () => Promise.resolve(i));
    await sharedHead('k0', () => Promise.resolve(-1)); // used again: now the most recent
    await sharedHead('extra', () => Promise.resolve(0));
    expect(sharedHeadCount()).toBe(MAX_HEADS);
    expect(await sharedHead('k0', () => Promise.resolve(-1))).toBe(0);
    expect(await sharedHead('k1', () => Promise.resolve(-1))).toBe(-1);
  });

  it('treats an entry kept at a later time (the clock moved back) as stale', async () => {
    clock.advance(60_000);
    await sharedHead('k', () => Promise.resolve('later'));
    clock.advance(-60_000);
    expect(await sharedHead('k', () => Promise.resolve('now'))).toBe('now');
  });
});
