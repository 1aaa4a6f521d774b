import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetHubItems, batchPutHubItems, inParallel, itemId } from '../db/batch.js';
import { db, tableNames } from '../db/client.js';
import { retryTransient } from '../db/failures.js';
import { hubItems, hubPartitions } from '../db/hub-items.js';

/**
 * The search index of `q` (docs/feed.md "Search"). A video is indexed under the n-grams of its
 * normalized text: within runs of CJK characters every character and every pair; within runs of
 * other letters and digits every trigram. Any term whose normalized form contains a CJK character
 * or a 3-character alphanumeric run has a gram that every matching video is indexed under, so its
 * postings list holds every match (and some near-misses, removed by checking the whole term).
 * Shorter terms have no gram and are answered by walking the catalog (bounded per call).
 *
 * The postings of a gram are items `hubItems.searchGram(gram, month)`, one per month of creation,
 * each a string set `e` of entries `created_at#vid`: written by putVideo (changePostings) and the
 * bulk import (mergePostings), read by the `q` walk of the feed (postingsPage).
 */

/** NFKC (full-width to ASCII, compatibility forms) and lower case: the form matching runs on. */
export function normalizeSearchText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** The text a term must be found in: title, description and tags. */
export function videoSearchText(video: { title: string; description?: string; tags?: string[] }): string {
  return normalizeSearchText([video.title, video.description ?? '', ...(video.tags ?? [])].join('\n'));
}

export function matchesTerm(video: { title: string; description?: string; tags?: string[] }, normalizedTerm: string): boolean {
  return videoSearchText(video).includes(normalizedTerm);
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const ALNUM = /[\p{L}\p{N}]/u;

type Run = { cjk: boolean; chars: string[] };

function runs(normalized: string): Run[] {
  const out: Run[] = [];
  let current: Run | undefined;
  for (const ch of normalized) {
    const cjk = CJK.test(ch);
    if (!cjk && !ALNUM.test(ch)) {
      current = undefined;
      continue;
    }
    if (!current || current.cjk !== cjk) {
      current = { cjk, chars: [] };
      out.push(current);
    }
    current.chars.push(ch);
  }
  return out;
}

/** The distinct grams of a normalized text. */
export function searchGrams(normalized: string): string[] {
  const grams = new Set<string>();
  for (const run of runs(normalized)) {
    const c = run.chars;
    if (run.cjk) {
      for (let i = 0; i < c.length; i++) {
        grams.add(c[i]!);
        if (i + 1 < c.length) grams.add(c[i]! + c[i + 1]!);
      }
    } else {
      for (let i = 0; i + 2 < c.length; i++) grams.add(c[i]! + c[i + 1]! + c[i + 2]!);
    }
  }
  return [...grams];
}

// English letters from frequent to rare: a gram of rare letters has a shorter postings list.
const LETTER_ORDER = 'etaoinshrdlcumwfgypbvkjxqz';
const rarity = (ch: string) => {
  const i = LETTER_ORDER.indexOf(ch);
  return i >= 0 ? i : /\d/.test(ch) ? 20 : 26;
};

/**
 * The gram whose postings are read for a term: a CJK pair if any (most selective), else the
 * alphanumeric trigram of the rarest letters, else a single CJK character. Undefined when the
 * term has no gram (e.g. "ai", "5g"): the caller walks the catalog instead.
 */
export function bestGram(normalizedTerm: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const gram of searchGrams(normalizedTerm)) {
    const chars = [...gram];
    const score = CJK.test(chars[0]!) ? (chars.length === 2 ? 1000 : 10) : 100 + chars.reduce((s, ch) => s + rarity(ch), 0);
    if (score > bestScore || (score === bestScore && best !== undefined && gram < best)) {
      best = gram;
      bestScore = score;
    }
  }
  return best;
}

/** Postings are bucketed by the month of creation: `2026-03`. */
export const postingMonth = (createdAt: string) => createdAt.slice(0, 7);
/** An entry of a postings bucket: sorts by creation time, newest last. */
export const postingEntry = (createdAt: string, vid: string) => `${createdAt}#${vid}`;

// Postings: writes and reads -----------------------------------------------------------------------

const TABLE = () => tableNames.hub;

/** The key of a bucket named by postingBuckets. */
function bucketKey(bucket: string) {
  const [gram, month] = JSON.parse(bucket) as [string, string];
  return hubItems.searchGram(gram, month);
}

/** The postings entries of `videos`, grouped by bucket (gram and month, JSON-encoded). */
export function postingBuckets(videos: { vid: string; created_at: string; grams: string[] }[]): Map<string, string[]> {
  const buckets = new Map<string, string[]>();
  for (const v of videos) {
    const entry = postingEntry(v.created_at, v.vid);
    for (const gram of v.grams) {
      const key = JSON.stringify([gram, postingMonth(v.created_at)]);
      const list = buckets.get(key);
      if (list) list.push(entry);
      else buckets.set(key, [entry]);
    }
  }
  return buckets;
}

/**
 * Adds entries to (or deletes them from) their buckets, one UpdateItem per bucket. Outside the
 * transaction of putVideo (a video has more grams than a transaction has items): ADD and DELETE are
 * idempotent, so a failed update is retried here, and a publish that still fails is completed by
 * its retry (see putVideo).
 */
export async function changePostings(action: 'ADD' | 'DELETE', buckets: Map<string, string[]>): Promise<void> {
  const tasks = [...buckets.entries()];
  await inParallel(tasks, 16, ([bucket, entries]) =>
    retryTransient(() =>
      db.send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: bucketKey(bucket),
          UpdateExpression: action === 'ADD' ? 'ADD e :entries SET entity = :entity' : 'DELETE e :entries',
          ExpressionAttributeValues: action === 'ADD' ? { ':entries': new Set(entries), ':entity': 'search_postings' } : { ':entries': new Set(entries) },
        }),
      ),
    ),
  );
}

/**
 * Bulk import: the buckets are read, merged with `buckets` and rewritten whole with BatchWrite, a few
 * hundred requests instead of thousands of updates. Into an empty catalog (the demo seed) there is
 * nothing to read and merge with.
 */
export async function mergePostings(buckets: Map<string, string[]>, emptyCatalog: boolean): Promise<void> {
  const bucketKeys = [...buckets.keys()].map((bucket) => ({ bucket, key: bucketKey(bucket) }));
  const existing = emptyCatalog ? new Map<string, { e?: Set<string> }>() : await batchGetHubItems<{ e?: Set<string> }>(bucketKeys.map((k) => k.key));
  await batchPutHubItems(
    bucketKeys.map(({ bucket, key }) => ({
      ...key,
      entity: 'search_postings',
      e: new Set([...(existing.get(itemId(key))?.e ?? []), ...buckets.get(bucket)!]),
    })),
  );
}

/**
 * Search postings of `gram`, newest first, strictly before position `after` (an entry
 * `created_at#vid`, or a month `YYYY-MM` meaning "older than that month"): at most `limit` entries
 * from at most 6 month buckets, in one Query. `next` continues after the page; undefined at the end.
 */
export async function postingsPage(gram: string, after: string | undefined, limit: number): Promise<{ entries: string[]; next?: string }> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      KeyConditionExpression: after ? 'pk = :p AND sk <= :month' : 'pk = :p',
      ExpressionAttributeValues: { ':p': hubPartitions.gram(gram), ...(after ? { ':month': after.slice(0, 7) } : {}) },
      ScanIndexForward: false,
      Limit: 6,
    }),
  );
  const items = (out.Items ?? []) as Record<string, unknown>[];
  const entries = items
    .flatMap((i) => (i.e instanceof Set ? [...i.e].map(String) : []))
    .filter((e) => after === undefined || e < after)
    .sort((a, b) => (a < b ? 1 : -1));
  if (entries.length > limit) return { entries: entries.slice(0, limit), next: entries[limit - 1] };
  // Every entry of the buckets read is in this page: continue below the oldest bucket read.
  const oldestMonth = items.length > 0 ? String(items[items.length - 1]!.sk) : undefined;
  return { entries, next: out.LastEvaluatedKey ? oldestMonth : undefined };
}
