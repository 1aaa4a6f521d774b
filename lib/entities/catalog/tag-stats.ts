import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { batchGetHubItems, inParallel, itemId } from '../../platform/db/batch.js';
import { db, tableNames } from '../../platform/db/client.js';
import { videoKeys } from './video-items.js';
import { logger } from '../../platform/logger.js';

/**
 * How common each tag is, for the feed's tag weights (lib/features/recommend/taste.ts: a tag on most videos
 * says little about taste). One counter item per tag and one for the catalog, changed right after a
 * publish commits, like the search postings: outside its transaction, so that publishes never
 * contend on these counters inside a transaction (every publish touches the catalog's). A lost update
 * leaves a count one off, which an idf cannot tell; the catalog's counts are never shown to anyone.
 *
 * The feed reads them through a cache with a time-to-live: proportions of a catalog change slowly,
 * and a warm container serves most calls without the extra request.
 */
export interface TagFrequencies {
  /** Videos in the catalog (0 when unknown: a catalog from before these counters). */
  total: number;
  /** Videos carrying each tag. */
  df: ReadonlyMap<string, number>;
}

const TTL_MS = 10 * 60_000;
/** Tags kept in the cache of one container, the least recently read dropped first. */
const CACHE_CAP = 20_000;
/** One BatchGet: the catalog's counter and up to 99 tags. */
export const MAX_TAGS_PER_READ = 99;

const cache = new Map<string, { n: number; at: number }>();
let catalog: { n: number; at: number } | undefined;

const TABLE = () => tableNames.hub;

/** Changes the counters by `deltas` (tag -> +n or -n) and the catalog's by `videos`, in parallel. */
export async function countTags(deltas: ReadonlyMap<string, number>, videos: number): Promise<void> {
  const updates: { key: { pk: string; sk: string }; attribute: string; delta: number }[] = [...deltas]
    .filter(([, d]) => d !== 0)
    .map(([tag, delta]) => ({ key: videoKeys.tagStats(tag), attribute: 'n', delta }));
  if (videos !== 0) updates.push({ key: videoKeys.catalogStats(), attribute: 'videos', delta: videos });
  await inParallel(updates, 16, ({ key, attribute, delta }) =>
    db
      .send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: key,
          UpdateExpression: 'ADD #n :d SET entity = :entity',
          ExpressionAttributeNames: { '#n': attribute },
          ExpressionAttributeValues: { ':d': delta, ':entity': 'tag_stats' },
        }),
      )
      .catch((error: Error) => logger.warn('tag statistics update failed', { key: key.pk, errorName: error.name })),
  );
}

/** Counter changes for a video whose tags go from `before` to `after`. */
export function tagDeltas(before: readonly string[], after: readonly string[]): Map<string, number> {
  const deltas = new Map<string, number>();
  for (const tag of new Set(before)) deltas.set(tag, (deltas.get(tag) ?? 0) - 1);
  for (const tag of new Set(after)) deltas.set(tag, (deltas.get(tag) ?? 0) + 1);
  return deltas;
}

const fresh = (entry: { at: number } | undefined, now: number) => !!entry && now - entry.at < TTL_MS;

/** What the cache knows of `tags`, and which of them (catalog counter aside) it must read first. */
export function cachedTagFrequencies(tags: readonly string[]): { stats: TagFrequencies; missing: string[]; stale: boolean } {
  const now = clock.now();
  const df = new Map<string, number>();
  const missing: string[] = [];
  for (const tag of new Set(tags)) {
    const entry = cache.get(tag);
    if (entry) df.set(tag, entry.n);
    if (!fresh(entry, now)) missing.push(tag);
  }
  return { stats: { total: catalog?.n ?? 0, df }, missing, stale: missing.length > 0 || !fresh(catalog, now) };
}

/** ONE BatchGet of the catalog's counter and the first MAX_TAGS_PER_READ of `tags` into the cache. */
export async function readTagFrequencies(tags: readonly string[]): Promise<void> {
  const wanted = [...new Set(tags)].slice(0, MAX_TAGS_PER_READ);
  const found = await batchGetHubItems<{ n?: number; videos?: number }>([videoKeys.catalogStats(), ...wanted.map((t) => videoKeys.tagStats(t))]);
  const at = clock.now();
  catalog = { n: Math.max(0, found.get(itemId(videoKeys.catalogStats()))?.videos ?? 0), at };
  for (const tag of wanted) {
    cache.delete(tag);
    cache.set(tag, { n: Math.max(0, found.get(itemId(videoKeys.tagStats(tag)))?.n ?? 0), at });
  }
  for (const tag of cache.keys()) {
    if (cache.size <= CACHE_CAP) break;
    cache.delete(tag);
  }
}

/** Empties the cache (tests that change the catalog and read it again at once). */
export function forgetTagFrequencies(): void {
  cache.clear();
  catalog = undefined;
}
