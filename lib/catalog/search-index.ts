/**
 * The search index of `q` (docs/feed.md "Search"). A video is indexed under the n-grams of its
 * normalized text: within runs of CJK characters every character and every pair; within runs of
 * other letters and digits every trigram. Any term whose normalized form contains a CJK character
 * or a 3-character alphanumeric run has a gram that every matching video is indexed under, so its
 * postings list holds every match (and some near-misses, removed by checking the whole term).
 * Shorter terms have no gram and are answered by walking the catalog (bounded per call).
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
