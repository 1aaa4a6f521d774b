/**
 * The filter's matching (docs/moderation.md, "Filter"): pure, no I/O. Terms and text go through the
 * same normalisation, then a term matches where its normalised form occurs in the text's:
 * - NFKC (full-width letters and digits, compatibility forms such as ligatures and circled letters),
 *   then lower case, then the combining marks removed (accents, strike-through overlays);
 * - separators removed: white space, punctuation (dots, dashes, underscores, slashes...), symbols
 *   (emoji, `|`, `~`, `+`...), format characters (zero-width U+200B-U+200D, U+2060, U+FEFF, the soft
 *   hyphen) and control characters;
 * - invisible characters removed the same way, each a removed separator (INVISIBLE below);
 * - a term of Latin letters and digits only must start and end on a word boundary of the text (a
 *   removed separator, a change between Latin letters or digits and any other script, or either end),
 *   so a short English term does not match inside a longer word (Scunthorpe); any other term (Chinese,
 *   mixed) matches anywhere, as Chinese has no spaces between words.
 */

export type FilterAction = 'reject' | 'hold';

export interface FilterTerm {
  term: string;
  action: FilterAction;
}

export interface FilterMatch {
  term: string;
  action: FilterAction;
}

/**
 * Characters that render as nothing or as blank space: Unicode's Default_Ignorable_Code_Point set
 * (zero-width and bidirectional format characters, variation selectors, tag characters, the Hangul
 * fillers U+115F, U+1160, U+3164, U+FFA0, code points reserved as ignorable) and U+16FE4 KHITAN
 * SMALL SCRIPT FILLER, a blank mark outside it. Many of them are letters (the Hangul fillers),
 * marks (variation selectors) or unassigned, so the categories below would keep them, or drop them
 * as a mark without a word boundary. Other blank characters are symbols or spaces, separators
 * already (U+2800 BRAILLE PATTERN BLANK, U+3000). docs/moderation.md, "Matching", lists the set; a
 * unit test holds the two equal.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u{16FE4}]/u;
const SEPARATOR = /[\p{White_Space}\p{P}\p{S}\p{Cf}\p{Cc}\p{Z}]/u;
const isSeparator = (ch: string) => SEPARATOR.test(ch) || INVISIBLE.test(ch);
const MARK = /\p{M}/gu;
const LATIN_WORD = /^[a-z0-9]+$/;
const isLatin = (ch: string) => (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');

/** Whether the filter removes `ch` (one code point) as an invisible character, like a separator. */
export const foldsAsInvisible = (ch: string): boolean => INVISIBLE.test(ch);

/** One character's normalised form ('' for a separator or a lone mark). */
function foldChar(ch: string): string {
  return ch.normalize('NFKC').toLowerCase().normalize('NFD').replace(MARK, '');
}

export interface NormalisedText {
  /** The text without separators, folded. */
  text: string;
  /** boundary[i]: a word boundary lies before text[i] (boundary[text.length] is the end). */
  boundary: boolean[];
}

/**
 * The normalised text and its word boundaries. NFKC first on the whole text (a compatibility
 * sequence may span characters), then each resulting character is folded; a character that folds
 * into several (e.g. `ﬁ` → `fi`) counts as one word part. Separators and invisible characters are
 * removed after NFKC, never before: an invisible character blocks a composition as a space does
 * (conjoining Hangul jamo on either side of U+3164 stay apart), and U+FFA0 and U+3164, which NFKC
 * maps to U+1160, are caught in either form.
 */
export function normaliseText(raw: string): NormalisedText {
  const chars: string[] = [];
  const boundary: boolean[] = [];
  let separated = true;
  for (const ch of raw.normalize('NFKC')) {
    if (isSeparator(ch)) {
      separated = true;
      continue;
    }
    for (const out of foldChar(ch)) {
      if (isSeparator(out)) {
        separated = true;
        continue;
      }
      const previous = chars[chars.length - 1];
      boundary.push(separated || previous === undefined || isLatin(previous) !== isLatin(out));
      chars.push(out);
      separated = false;
    }
  }
  boundary.push(true);
  return { text: chars.join(''), boundary };
}

/** A term's normalised form: what it matches ('' when nothing of it survives, which is no term). */
export const normaliseTerm = (term: string): string => normaliseText(term).text;

/** Whether a normalised term is matched on word boundaries (Latin letters and digits only). */
export const matchesWholeWords = (normalisedTerm: string): boolean => LATIN_WORD.test(normalisedTerm);

function occursIn(n: NormalisedText, term: string): boolean {
  const wholeWords = matchesWholeWords(term);
  for (let at = n.text.indexOf(term); at >= 0; at = n.text.indexOf(term, at + 1)) {
    if (!wholeWords || (n.boundary[at] && n.boundary[at + term.length])) return true;
  }
  return false;
}

/**
 * The terms `text` matches: a `reject` term first when any matches, else the first `hold` term, else
 * undefined. `terms` hold normalised forms (the stored list keeps them so: lib/features/filter/terms.ts).
 */
export function matchText(text: string, terms: readonly FilterTerm[]): FilterMatch | undefined {
  if (terms.length === 0) return undefined;
  const n = normaliseText(text);
  let held: FilterMatch | undefined;
  for (const t of terms) {
    if (!occursIn(n, t.term)) continue;
    if (t.action === 'reject') return { term: t.term, action: 'reject' };
    held ??= { term: t.term, action: 'hold' };
  }
  return held;
}
