/**
 * What the hub table's key builders share (single-table design): each entity spells its own keys in
 * its module (`accountKeys` in lib/entities/accounts/accounts.ts, `videoKeys` in lib/entities/catalog/video-items.ts,
 * ...; docs/data-model.md, "Access patterns"), from these pieces.
 *
 * Table: pk/sk, GSI gsi1 (gsi1pk/gsi1sk), GSI gsi2 (gsi2pk/gsi2sk), TTL attribute `ttl`.
 * Time-ordered sort keys use ISO 8601 timestamps (which sort as strings) followed by an id.
 * Access patterns are listed in README.md ("Data model").
 */
export const pad = (n: number, width = 12) => String(n).padStart(width, '0');
/** A time (epoch ms) as a sort-key part that sorts newest first (fixed width, until the year 2286). */
export const newestFirst = (atMs: number) => pad(9_999_999_999_999 - Math.floor(atMs), 13);
export const timeKey = (iso: string, id: string) => `${iso}#${id}`;

/**
 * Write-sharded index partitions (docs/data-model.md, "Sharded index partitions"): an item of one of
 * these lists goes to partition `<NAME>#<k>`, k = shardOf(its id, count), so the list's writes spread
 * over `count` partitions; readers Query every shard in parallel and merge by sort key
 * (lib/platform/db/shard-merge.ts). The counts follow the writes at the 100x traffic mix and the requests a
 * reader may spend: a feed walk reads every shard of VIDEOS or TRENDING on each page within the
 * get_next_list budget of 8 requests.
 */
export const SHARDS = { videos: 2, trending: 2, accounts: 2, comments: 4 } as const;

/** FNV-1a (32 bits) of a string's UTF-16 code units, unsigned. Stable across processes and versions. */
export function fnv1a(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** k of an item id: its FNV-1a mod `count`. */
export const shardOf = (id: string, count: number): number => fnv1a(id) % count;

export const shardKey = (name: string, id: string, count: number) => `${name}#${shardOf(id, count)}`;
export const allShards = (name: string, count: number) => Array.from({ length: count }, (_, k) => `${name}#${k}`);
