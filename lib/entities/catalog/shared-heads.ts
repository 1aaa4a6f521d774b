import { clock } from '../../platform/clock.js';
import { tableNames } from '../../platform/db/client.js';

/**
 * The per-container cache of the feed's shared heads (docs/feed.md, "The shared heads' cache"): the
 * reads whose answer is the same for every caller (the top of a `VIDEOS#k` or `TRENDING#k` shard, of
 * a tag ranking, of an author's newest videos), kept in module scope for at most HEAD_TTL_MS.
 *
 * - An entry is kept from the moment its read was sent, so what it holds is at most HEAD_TTL_MS old.
 * - Callers that ask while the read is in flight share it: one request, however many callers.
 * - A read that fails is not kept: the next caller reads again.
 * - At most MAX_HEADS entries, the least recently used dropped first.
 * - Entries are keyed by table as well, so two stores (test files, the benchmarks' tables) never share.
 * - A write in this container that changes the catalog (publish, import, removal) drops them all
 *   (dropSharedHeads): an author sees their own new video at once in the container that published it.
 *
 * What a head holds is candidates only: the feed filters them per caller afterwards (disliked, seen,
 * blocked), and reads the videos it shows whole, which drops a video removed since.
 */

/** How long a head is kept: the bound on its staleness. */
export const HEAD_TTL_MS = 5_000;

/** The most heads one container keeps (at most 500 ranking entries each, about 150 bytes on the wire). */
export const MAX_HEADS = 256;

interface Entry {
  at: number;
  value: Promise<unknown>;
}

const entries = new Map<string, Entry>();
let enabled = true;

let observer: ((name: string, hit: boolean) => void) | undefined;

/**
 * Told of every ask of a head (`<table> <index> <partition> <depth>`): kept (hit) or read. For the
 * hotspots model (bench/sections/hotspots.ts), which rates head reads by warm containers.
 */
export function observeSharedHeads(fn: ((name: string, hit: boolean) => void) | undefined): void {
  observer = fn;
}

/**
 * The head named `key` (a partition and what of it is read): the kept answer while it is younger than
 * HEAD_TTL_MS, otherwise `read()`, kept from now on unless it fails.
 */
export function sharedHead<T>(key: string, read: () => Promise<T>): Promise<T> {
  if (!enabled) return read();
  const name = `${tableNames.hub} ${key}`;
  const now = clock.now();
  const kept = entries.get(name);
  if (kept && now - kept.at < HEAD_TTL_MS && now >= kept.at) {
    // Most recently used last: the Map's order is the eviction order.
    entries.delete(name);
    entries.set(name, kept);
    observer?.(name, true);
    return kept.value as Promise<T>;
  }
  observer?.(name, false);
  const value = read();
  const entry: Entry = { at: now, value };
  entries.delete(name);
  entries.set(name, entry);
  while (entries.size > MAX_HEADS) entries.delete(entries.keys().next().value!);
  value.catch(() => {
    if (entries.get(name) === entry) entries.delete(name);
  });
  return value;
}

/** Drops every kept head: the catalog changed in this container (a publish, an import, a removal). */
export function dropSharedHeads(): void {
  entries.clear();
}

/** Turns the cache off (every read goes to DynamoDB) or on again; off drops what it kept. For measurements that compare. */
export function setSharedHeads(on: boolean): void {
  enabled = on;
  entries.clear();
}

export const sharedHeadCount = () => entries.size;
