import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchText, normaliseTerm, normaliseText, type FilterTerm } from '../../lib/filter/match.js';
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
