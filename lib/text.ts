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

/** Length in characters as a person counts them (code points: one CJK character or emoji is one). */
export const charLength = (s: string) => [...s].length;
