import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { BatchWrite } from '../../platform/db/batch.js';
import { db, tableNames } from '../../platform/db/client.js';
import { timeKey } from '../../platform/db/keys.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const searchKeys = {
  /**
   * A search posting: the video `vid`, created at `createdAt`, has `gram` in its text. One small item
   * per (gram, video), so that no item grows with the catalog; the sort key orders a gram's
   * postings by creation time (docs/data-model.md, "Search postings").
   */
  searchPosting: (gram: string, createdAt: string, vid: string) => ({ pk: `GRAM#${gram}`, sk: timeKey(createdAt, vid) }),
};

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const searchPartitions = {
  gram: (gram: string) => searchKeys.searchPosting(gram, '', '').pk,
};


/**
 * The search index of `q` (docs/feed.md "Search"). A video is indexed under the n-grams of its
 * normalized text: within runs of CJK characters every character and every pair; within runs of
 * other letters and digits every trigram. Any term whose normalized form contains a CJK character
 * or a 3-character alphanumeric run has a gram that every matching video is indexed under, so its
 * postings list holds every match (and some near-misses, removed by checking the whole term).
 * Shorter terms have no gram and are answered by walking the catalog (bounded per call).
 *
 * The postings of a gram are small items `searchKeys.searchPosting(gram, created_at, vid)`, one per
 * video whose text holds the gram (docs/data-model.md, "Search postings"): no item grows with the
 * catalog, however common the gram. putVideo writes them (postingWrites, in the video's own
 * transaction as far as they fit), the bulk import too; the `q` walk of the feed reads them
 * newest first (postingsPage).
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

/** A posting's sort key: orders a gram's postings by creation time. */
export const postingEntry = (createdAt: string, vid: string) => searchKeys.searchPosting('', createdAt, vid).sk;

/** The item of one posting: the key says it all. */
export const postingItem = (gram: string, createdAt: string, vid: string) => ({ ...searchKeys.searchPosting(gram, createdAt, vid), entity: 'search_posting' });

/**
 * The largest a posting item can be, in DynamoDB's item size (attribute names and values in UTF-8):
 * a gram is at most 3 code points of at most 4 bytes, `created_at` an ISO time of 24 characters, a
 * vid at most 64 ASCII characters, so the worst case is 130 bytes (computed in
 * test/deep/search-postings.test.ts): one write unit, far from the 400 KB item limit, whatever
 * the catalog size.
 */
export const POSTING_ITEM_MAX_BYTES = 130;

/** The parts of a video the index reads. */
export interface IndexedVideo {
  vid: string;
  created_at: string;
  title: string;
  description?: string;
  tags?: string[];
}

const gramsOf = (video: IndexedVideo) => searchGrams(videoSearchText(video));

/**
 * The index writes for `video`, whose text was `before`'s (undefined for a new video): a put of the
 * posting of every gram of its text, in the text's order (title first), then a delete of the
 * posting of every gram only the old text had. Every gram is put, not only the new ones: puts are
 * idempotent, and so any write of a video completes the postings a failed earlier one left out.
 */
export function postingWrites(video: IndexedVideo, before?: IndexedVideo): BatchWrite[] {
  const grams = gramsOf(video);
  const kept = new Set(grams);
  const removed = before ? gramsOf(before).filter((g) => !kept.has(g)) : [];
  return [
    ...grams.map((gram) => ({ put: postingItem(gram, video.created_at, video.vid) })),
    ...removed.map((gram) => ({ delete: searchKeys.searchPosting(gram, video.created_at, video.vid) })),
  ];
}

// Reads ---------------------------------------------------------------------------------------------

const TABLE = () => tableNames.hub;

/**
 * Search postings of `gram`, newest first, strictly before position `after` (an entry
 * `created_at#vid`): at most `limit` entries, in one Query of at most `limit` items. `next`
 * continues after the page; undefined at the end.
 */
export async function postingsPage(gram: string, after: string | undefined, limit: number): Promise<{ entries: string[]; next?: string }> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      KeyConditionExpression: after ? 'pk = :p AND sk < :after' : 'pk = :p',
      ExpressionAttributeValues: { ':p': searchPartitions.gram(gram), ...(after ? { ':after': after } : {}) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  const entries = (out.Items ?? []).map((item) => String(item.sk));
  return { entries, next: out.LastEvaluatedKey ? entries[entries.length - 1] : undefined };
}
