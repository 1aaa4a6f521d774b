import { describe, expect, it } from 'vitest';
import { shardOf } from '../../lib/platform/db/keys.js';
import { mergeShardPages } from '../../lib/platform/db/shard-merge.js';

/**
 * The merge of sharded index partitions: paging a list spread over shards, each page reading every
 * shard from the last position served, lists every item exactly once in the list's order, at any
 * page size and however the items fall into the shards, ties across shards included.
 */
interface Item {
  shard: number;
  /** Sort value (a trend score: ties are common). */
  t: number;
  id: string;
}

/** Trend descending, equal trends: the lower shard first, then the shard's own order (by id here). */
const hotter = (a: Item, b: Item) => a.t > b.t;
const listOrder = (a: Item, b: Item) => b.t - a.t || a.shard - b.shard || a.id.localeCompare(b.id);

function shardsOf(items: Item[], count: number): Item[][] {
  return Array.from({ length: count }, (_, s) => items.filter((i) => i.shard === s).sort(listOrder));
}

/** One shard read from a position the way trendingPage reads it: right after it in its own shard, below or at its value elsewhere. */
function readShard(shard: Item[], s: number, after: Item | undefined, limit: number) {
  const rest = shard.filter((i) => !after || (s === after.shard ? listOrder(i, after) > 0 : s < after.shard ? i.t < after.t : i.t <= after.t));
  return { items: rest.slice(0, limit), done: rest.length <= limit };
}

function walk(items: Item[], count: number, limit: number): { served: Item[]; pages: number } {
  const shards = shardsOf(items, count);
  const served: Item[] = [];
  let after: Item | undefined;
  for (let pages = 1; pages < 10_000; pages++) {
    const page = mergeShardPages(
      shards.map((shard, s) => readShard(shard, s, after, limit)),
      hotter,
    );
    served.push(...page.items);
    if (page.done) return { served, pages };
    expect(page.items.length).toBeGreaterThan(0);
    after = page.items[page.items.length - 1];
  }
  throw new Error('the walk did not end');
}

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number) {
  let x = seed;
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

describe('mergeShardPages', () => {
  it('pages every item exactly once, in order, across shards with ties, at every page size', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const count = 1 + Math.floor(next() * 4);
      const items: Item[] = Array.from({ length: Math.floor(next() * 60) }, (_, i) => ({ shard: Math.floor(next() * count), t: Math.floor(next() * 8), id: `v${i}` }));
      const expected = [...items].sort(listOrder);
      for (const limit of [1, 2, 3, 7, 100]) {
        const { served } = walk(items, count, limit);
        expect(served.map((i) => i.id)).toEqual(expected.map((i) => i.id));
      }
    }
  });

  it('stops where a shard that is not done ran out of items: nothing of it can be skipped', () => {
    const a = { items: [{ shard: 0, t: 9, id: 'a9' }, { shard: 0, t: 5, id: 'a5' }], done: false };
    const b = { items: [{ shard: 1, t: 8, id: 'b8' }, { shard: 1, t: 1, id: 'b1' }], done: true };
    // Shard 0 may hold something between 5 and 1 that it did not return: b1 must wait.
    expect(mergeShardPages([a, b], hotter)).toEqual({ items: [a.items[0], b.items[0], a.items[1]], done: false });
  });

  it('serves equal values of the lower shard first, and says done only when every shard is', () => {
    const a = { items: [{ shard: 0, t: 4, id: 'a' }], done: true };
    const b = { items: [{ shard: 1, t: 4, id: 'b' }], done: true };
    expect(mergeShardPages([b, a], hotter).items.map((i) => i.id)).toEqual(['b', 'a']);
    expect(mergeShardPages([a, b], hotter)).toEqual({ items: [a.items[0], b.items[0]], done: true });
    expect(mergeShardPages([a, { items: [], done: false }], hotter)).toEqual({ items: [], done: false });
  });

  it('returns at most max items, and done only if nothing is left after them', () => {
    const a = { items: [1, 3, 5].map((t) => ({ shard: 0, t, id: `a${t}` })), done: true };
    const b = { items: [2, 4].map((t) => ({ shard: 1, t, id: `b${t}` })), done: true };
    const ascending = (x: Item, y: Item) => x.t < y.t;
    expect(mergeShardPages([a, b], ascending, 4)).toEqual({ items: [a.items[0], b.items[0], a.items[1], b.items[1]], done: false });
    expect(mergeShardPages([a, b], ascending, 5).done).toBe(true);
  });
});

describe('shardOf', () => {
  it('is stable and spreads ids over every shard', () => {
    expect(shardOf('vid_abc', 4)).toBe(shardOf('vid_abc', 4));
    // FNV-1a 32 of "a" is 0xe40c292c.
    expect(shardOf('a', 1000)).toBe(0xe40c292c % 1000);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOf(`v${i}`, 4)]!++;
    for (const n of counts) expect(n).toBeGreaterThan(800);
  });
});
