import { documentAs } from './api-doc.js';
import * as z from './zod.js';

/**
 * The one check of every text a client sends, in a query string, a path or a JSON body: well-formed
 * Unicode (a JSON body can carry a lone surrogate as "\ud800": that is no text, and it would not
 * survive DynamoDB or a JSON encoder unchanged) and no control characters (C0, DEL, C1), newlines
 * allowed where a field is multi-line (a comment, a description).
 */
// A lone surrogate is the only code point of category Cs a `u` regex can meet: pairs form one code point.
const LONE_SURROGATE = /\p{Cs}/u;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINES = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** What is wrong with `s` as text, or undefined when nothing is. */
export function textProblem(s: string, multiline = false): string | undefined {
  if (LONE_SURROGATE.test(s)) return 'must be well-formed Unicode text (no lone surrogates)';
  if ((multiline ? CONTROL_BUT_NEWLINES : CONTROL).test(s)) return multiline ? 'must not contain control characters other than newlines' : 'must not contain control characters';
  return undefined;
}

/** The text check as a zod refinement, for `.check(z.superRefine(...))` after a schema's own transforms. */
export const textIssues =
  (multiline = false) =>
  (value: string, ctx: z.RefinementCtx<string>): void => {
    const problem = textProblem(value, multiline);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };

/**
 * The control-character part of the check as a JSON Schema pattern, for the OpenAPI document; a
 * multi-line field keeps carriage returns too (the server reads CRLF as a newline before checking).
 */
export const textPattern = (multiline = false) => (multiline ? '^[^\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$' : '^[^\\u0000-\\u001f\\u007f-\\u009f]*$');

/** `schema` with the text check added (after its own trimming and lengths); the document shows it as a pattern. */
export function checkedText<T extends z.ZodMiniType<string>>(schema: T, multiline = false): T {
  return documentAs(schema.check(z.superRefine(textIssues(multiline))), { pattern: textPattern(multiline) }, 'fill');
}

/**
 * Text that shows nothing: only white space, format and control characters, combining marks,
 * Unicode's Default_Ignorable_Code_Point set (the Hangul fillers U+3164 and U+FFA0 among them: letters
 * that render as blank space), U+2800 BRAILLE PATTERN BLANK and U+16FE4 KHITAN SMALL SCRIPT FILLER.
 * A field that must not be empty (a nickname, a comment, a video's title or tag) must not be blank
 * either: a blank nickname passes for no name, or for someone else's beside it (docs/moderation.md,
 * "Matching").
 */
// eslint-disable-next-line no-misleading-character-class -- a class of properties and single code points: nothing in it combines
const BLANK = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Z}\p{M}\p{Default_Ignorable_Code_Point}\u2800\u{16FE4}]*$/u;
export const isBlank = (s: string) => BLANK.test(s);
export const NOT_BLANK = 'must contain a visible character';

/** Length in characters as a person counts them (code points: one CJK character or emoji is one). */
export const charLength = (s: string) => [...s].length;
