import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldsAsInvisible, matchText, normaliseTerm, normaliseText, type FilterTerm } from '../../lib/features/filter/match.js';
import { evasionOf } from '../support/filter-evasions.js';

const TERMS: FilterTerm[] = [
  { term: 'shit', action: 'reject' },
  { term: '傻逼', action: 'reject' },
  { term: 'spam', action: 'hold' },
  { term: '加微信', action: 'hold' },
];
const actionOf = (text: string) => matchText(text, TERMS)?.action;

describe('filter matching (docs/moderation.md, "Filter")', () => {
  it.each([
    ['plain', 'this is shit'],
    ['upper case', 'SHIT'],
    ['full-width letters', 'ｓｈｉｔ'],
    ['circled letters (a compatibility form)', 'ⓢⓗⓘⓣ'],
    ['dots between letters', 's.h.i.t'],
    ['dashes and underscores', 'S-h_I-t'],
    ['spaces', 's h i t'],
    ['zero-width space', 's\u200Bh\u200Ci\u200Dt'],
    ['word joiner and BOM', 's\u2060h\uFEFFit'],
    ['soft hyphen', 'sh\u00ADit'],
    ['combining strike-through', 's\u0336h\u0336i\u0336t\u0336'],
    ['emoji between letters', 's🙂h🙂i🙂t'],
    ['next to Chinese without a space', '真是shit啊'],
    ['Chinese with spaces', '你 傻 逼'],
    ['Chinese with zero-width characters', '傻\u200B逼'],
    ['Chinese with full-width punctuation', '傻，逼！'],
  ])('a reject term survives %s', (_, text) => {
    expect(actionOf(text)).toBe('reject');
  });

  it.each([
    ['inside a longer English word (Scunthorpe)', 'shithead'],
    ['across two words', 'push it'],
    ['a different word', 'shirt'],
    ['leetspeak (not caught)', 'sh1t'],
    ['Cyrillic look-alikes (not caught)', 'ѕhіt'],
    ['pinyin of a Chinese term (not caught)', 'sha bi'],
  ])('no match %s', (_, text) => {
    expect(actionOf(text)).toBeUndefined();
  });

  it('a hold term holds; a reject term wins over a hold term in the same text', () => {
    expect(actionOf('buy SPAM now')).toBe('hold');
    expect(actionOf('加 微 信 123')).toBe('hold');
    expect(actionOf('spam shit')).toBe('reject');
    expect(actionOf('spam 傻逼')).toBe('reject');
  });

  it('Chinese terms match anywhere (no word boundaries in Chinese)', () => {
    expect(actionOf('大傻逼们')).toBe('reject');
  });

  it('terms normalise as text does; a term of separators only is empty', () => {
    expect(normaliseTerm(' S.H.I.T ')).toBe('shit');
    expect(normaliseTerm('ＳＰＡＭ')).toBe('spam');
    expect(normaliseTerm('-._ \u200B')).toBe('');
    expect(normaliseText('a b').boundary).toEqual([true, true, true]);
  });

  it('no list: nothing matches', () => {
    expect(matchText('shit', [])).toBeUndefined();
  });
});

const termArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 2, maxLength: 8 }),
  fc.string({ unit: fc.constantFrom(...'傻逼操你妈赌博代开发票加微信草泥马婊子去死'), minLength: 2, maxLength: 5 }),
);
const variantArb = evasionOf(termArb);

describe('filter matching, property', () => {
  it('every normalised variant of a reject term (case, full width, separators between characters) is rejected', () => {
    fc.assert(
      fc.property(variantArb, ({ term, text }) => {
        expect(matchText(text, [{ term: normaliseTerm(term), action: 'reject' }])?.action).toBe('reject');
      }),
      { numRuns: 500 },
    );
  });
});

/** Every code point the filter folds as invisible (lib/features/filter/match.ts), in order. */
const FOLDED: number[] = [];
for (let cp = 0; cp <= 0x10ffff; cp++) if ((cp < 0xd800 || cp > 0xdfff) && foldsAsInvisible(String.fromCodePoint(cp))) FOLDED.push(cp);
const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
/** Code points as `U+XXXX` / `U+XXXX-U+YYYY` ranges, as docs/moderation.md writes them. */
function asRanges(cps: readonly number[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < cps.length; ) {
    let j = i;
    while (j + 1 < cps.length && cps[j + 1] === cps[j]! + 1) j++;
    out.push(i === j ? hex(cps[i]!) : `${hex(cps[i]!)}-${hex(cps[j]!)}`);
    i = j + 1;
  }
  return out;
}
const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 500);

describe('invisible characters fold like separators (docs/moderation.md, "Filter" -> "Matching")', () => {
  it.each([
    ['HANGUL FILLER U+3164 in Chinese', '傻\u3164逼'],
    ['HALFWIDTH HANGUL FILLER U+FFA0 in Chinese', '傻\uFFA0逼'],
    ['the conjoining Hangul fillers U+115F and U+1160', '傻\u115F\u1160逼'],
    ['HANGUL FILLER between letters', 's\u3164h\u3164i\u3164t you'],
    ['a variation selector and the combining grapheme joiner', 's\uFE0Fh\u034Fit'],
    ['tag characters and an unassigned default-ignorable code point', 's\u{E0041}h\u{E0000}i\uFFF0t'],
    ['Mongolian free variation selectors and Khmer inherent vowels', '傻\u180B\u17B4逼'],
    ['KHITAN SMALL SCRIPT FILLER U+16FE4', 's\u{16FE4}hit'],
    ['BRAILLE PATTERN BLANK U+2800 (a symbol)', '傻\u2800逼'],
  ])('a reject term survives %s', (_, text) => {
    expect(actionOf(text)).toBe('reject');
  });

  it('word boundaries: a folded filler is a removed separator, no more and no less', () => {
    // As `s h i t you`: the spaced letters are words of their own, so the term starts and ends on a boundary.
    expect(actionOf('s h i t you')).toBe('reject');
    expect(actionOf('s\u3164h\u3164i\u3164t you')).toBe('reject');
    expect(normaliseText('s\u3164h\u3164i\u3164t you')).toEqual(normaliseText('s h i t you'));
    // As `s h i thead`: the last letter runs on into a longer word.
    expect(actionOf('s h i thead')).toBeUndefined();
    expect(actionOf('s\u3164h\u3164i\u3164thead')).toBeUndefined();
    expect(actionOf('shit\u3164head')).toBe(actionOf('shit head'));
  });

  it('the folded set is Default_Ignorable_Code_Point and the blank fillers outside it, as docs/moderation.md lists them', () => {
    const doc = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/moderation.md'), 'utf8');
    const paragraph = /^4\. Invisible characters[\s\S]*?(?=\n\n)/m.exec(doc)?.[0];
    expect(paragraph, 'docs/moderation.md, "Matching", item 4').toBeDefined();
    const documented = new Set<number>();
    for (const [, from, to] of paragraph!.matchAll(/U\+([0-9A-F]{4,6})(?:-U\+([0-9A-F]{4,6}))?/g)) {
      for (let cp = parseInt(from!, 16); cp <= parseInt(to ?? from!, 16); cp++) documented.add(cp);
    }
    expect(asRanges(FOLDED)).toEqual(asRanges([...documented].sort((a, b) => a - b)));
    // Every code point of the Unicode property, as this runtime's ICU knows it, is folded.
    const ignorable = /\p{Default_Ignorable_Code_Point}/u;
    const missing: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) if ((cp < 0xd800 || cp > 0xdfff) && ignorable.test(String.fromCodePoint(cp)) && !FOLDED.includes(cp)) missing.push(cp);
    expect(asRanges(missing)).toEqual([]);
  });

  it('every folded code point, between and around the characters of a term, matches as the term does; alone it is nothing', () => {
    const terms: FilterTerm[] = [
      { term: 'shit', action: 'reject' },
      { term: '傻逼', action: 'reject' },
    ];
    const spread = (term: string, c: string) => `${c}${[...term].join(c)}${c}`;
    const missed = FOLDED.filter((cp) => {
      const c = String.fromCodePoint(cp);
      return (
        normaliseText(c).text !== '' ||
        matchText(`${spread('shit', c)} you`, terms)?.term !== 'shit' ||
        matchText(`你${spread('傻逼', c)}`, terms)?.term !== '傻逼' ||
        matchText(spread('shithead', c), terms)?.term !== 'shit'
      );
    });
    expect(asRanges(missed)).toEqual([]);
  });

  // Text that exercises what could tell a folded character from a space: Latin word boundaries,
  // Chinese, combining marks after the gap, conjoining Hangul jamo (NFKC composes L+V+T), digits and
  // keycaps, compatibility forms, and separators of its own.
  const piece = fc.constantFrom('s', 'h', 'i', 't', 'he', 'ad', '傻', '逼', '\u0301', '\u0336', '\u1100', '\u1161', '\u11A8', '가', '1', '\u20E3', 'ｓ', 'ﬁ', ' ', '.', '🙂', '\u200D');
  const folded = fc.integer({ min: 0, max: FOLDED.length - 1 }).map((i) => String.fromCodePoint(FOLDED[i]!));

  it('property: a folded code point where a space was changes neither the normalised text nor its word boundaries', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, fc.boolean()), { minLength: 1, maxLength: 12 }), folded, (pieces, c) => {
        const write = (gap: string) => pieces.map(([p, gapAfter]) => p + (gapAfter ? gap : '')).join('');
        expect(normaliseText(write(c))).toEqual(normaliseText(write(' ')));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
