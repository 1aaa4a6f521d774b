import { describe, expect, it } from 'vitest';
import { textProblem } from '../../lib/platform/text.js';

describe('the one text check', () => {
  it.each([
    ['plain', 'Hello 展会 😀'],
    ['a surrogate pair (one code point)', '\ud83d\ude00'],
    ['non-breaking space and other Unicode', 'a\u00a0b\u2028c'],
  ])('accepts %s', (_label, text) => {
    expect(textProblem(text)).toBeUndefined();
  });

  it.each([
    ['a lone high surrogate', 'a\ud800b', 'well-formed'],
    ['a lone low surrogate', '\udc00', 'well-formed'],
    ['a high surrogate at the end', 'x\ud83d', 'well-formed'],
    ['NUL', 'https://cdn.example.com/a\u0000.mp4', 'control'],
    ['a tab', 'a\tb', 'control'],
    ['a newline in single-line text', 'a\nb', 'control'],
    ['DEL', 'a\u007fb', 'control'],
    ['a C1 control (NEL)', 'a\u0085b', 'control'],
  ])('refuses %s', (_label, text, problem) => {
    expect(textProblem(text)).toContain(problem);
  });

  it('lets newlines through in multi-line text, nothing else', () => {
    expect(textProblem('line one\nline two', true)).toBeUndefined();
    expect(textProblem('a\rb', true)).toContain('newlines');
    expect(textProblem('a\u0000b', true)).toContain('newlines');
    expect(textProblem('a\ud800', true)).toContain('well-formed');
  });
});
