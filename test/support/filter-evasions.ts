import fc from 'fast-check';

/** Invisible characters (docs/moderation.md, "Matching"): letters (the Hangul fillers), marks (a variation selector, the combining grapheme joiner), a tag character, the Braille blank. */
const INVISIBLE = ['\u3164', '\uFFA0', '\u115F', '\u1160', '\uFE0F', '\u034F', '\u{E0020}', '\u2800'];
/** Separators an evader puts between the characters of a term (docs/moderation.md, "Filter"). */
const SEPARATORS = [' ', '.', '-', '_', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '*', '|', '·', '、', '。', ...INVISIBLE];
const fullWidth = (ch: string) => (/[!-~]/.test(ch) ? String.fromCodePoint(ch.codePointAt(0)! + 0xfee0) : ch);

/**
 * A term as an evader writes it: each character in either case and in its full-width form or not,
 * separators between characters, words (or nothing) before and after it.
 */
export const evasionOf = (terms: fc.Arbitrary<string>): fc.Arbitrary<{ term: string; text: string }> =>
  terms.chain((term) =>
    fc
      .tuple(
        fc.array(fc.tuple(fc.boolean(), fc.boolean(), fc.array(fc.constantFrom(...SEPARATORS), { maxLength: 3 })), { minLength: [...term].length, maxLength: [...term].length }),
        fc.constantFrom('', ' ', '。', '你好 ', 'hello '),
        fc.constantFrom('', ' ', '!', ' 谢谢', ' thanks'),
      )
      .map(([shapes, before, after]) => {
        const chars = [...term].map((ch, i, all) => {
          const [upper, wide, seps] = shapes[i]!;
          const cased = upper ? ch.toUpperCase() : ch;
          return (wide ? fullWidth(cased) : cased) + (i < all.length - 1 ? seps.join('') : '');
        });
        return { term, text: `${before}${chars.join('')}${after}` };
      }),
  );
