/**
 * Merging the shards of a write-sharded index partition (lib/platform/db/keys.ts, SHARDS): readers Query
 * every shard in parallel, each from the same position, and merge the pages here.
 */

/** One shard's Query answer, in the list's order: `done` when the shard has nothing after these items. */
export interface ShardPage<T> {
  items: T[];
  done: boolean;
}

/**
 * The shards' pages merged into the list's order, as far as the merge is exact: it stops before the
 * first item that an unread item of some shard could precede (a shard whose page ran out while it
 * has more). So every item returned comes after everything returned before it, and nothing of any
 * shard lies between them: the position of the last item is where the next page starts, and pages
 * from there list every item exactly once. `before(a, b)`: a comes first in the list; equal items go
 * to the lower shard first, which makes the order total when each shard's own order is. At least
 * the smallest page of a shard that is not done is returned, at most `max`. `done`: nothing is left.
 */
export function mergeShardPages<T>(pages: ShardPage<T>[], before: (a: T, b: T) => boolean, max = Infinity): { items: T[]; done: boolean } {
  const next = pages.map(() => 0);
  const items: T[] = [];
  const finished = () => pages.every((p, s) => p.done && next[s]! >= p.items.length);
  while (items.length < max) {
    let best = -1;
    for (let s = 0; s < pages.length; s++) {
      const page = pages[s]!;
      if (next[s]! >= page.items.length) {
        if (!page.done) return { items, done: false };
        continue;
      }
      if (best < 0 || before(page.items[next[s]!]!, pages[best]!.items[next[best]!]!)) best = s;
    }
    if (best < 0) break;
    items.push(pages[best]!.items[next[best]!++]!);
  }
  return { items, done: finished() };
}
