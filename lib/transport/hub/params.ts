import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { checkedText } from '../../platform/text.js';

/**
 * Query-parameter schemas shared by the hub operations (docs/hub-api.md, "Rules shared by every
 * operation"): strings are trimmed and are text (lib/platform/text.ts: well-formed, no control characters);
 * identifiers must be non-empty; integers are decimal, non-negative and bounded.
 */
export const identifier = (max = 128) =>
  checkedText(z.string({ error: 'is required' }).check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(max, `must be at most ${max} characters`)));

export const optionalText = (max: number) =>
  z.pipe(
    z.optional(checkedText(z.string().check(z.trim(), z.maxLength(max, `must be at most ${max} characters`)))),
    z.transform((v: string | undefined) => v ?? ''),
  );

/**
 * A required decimal integer from `min` (default 0) to `max`; the document types it as an integer
 * with those bounds (a query string carries it as text: validators read it as a number).
 */
export const boundedInt = (max: number, min = 0) =>
  documentAs(
    z.pipe(
      z.pipe(z.string({ error: 'is required' }).check(z.trim(), z.regex(/^\d{1,9}$/, 'must be a non-negative decimal integer')), z.transform(Number)),
      z.number().check(z.minimum(min, min === 1 ? 'must be 1 or more' : `must be at least ${min}`), z.maximum(max, `must be at most ${max}`)),
    ),
    { type: 'integer', minimum: min, maximum: max },
  );

/** An optional decimal integer from `min` to `max`; absent or empty: `fallback`. */
export const optionalInt = (min: number, max: number, fallback: number) =>
  documentAs(
    z.pipe(
      z.pipe(
        // One character more than `max` has: "100" is "at most 20", not a length.
        optionalText(String(max).length + 1).check(z.refine((v) => v === '' || /^\d+$/.test(v), `must be a decimal integer from ${min} to ${max}`)),
        z.transform((v: string) => (v === '' ? fallback : Number(v))),
      ),
      z.number().check(z.minimum(min, `must be at least ${min}`), z.maximum(max, `must be at most ${max}`)),
    ),
    { anyOf: [{ type: 'integer', minimum: min, maximum: max }, { type: 'string', maxLength: 0 }], default: fallback, description: `Empty or absent: ${fallback}` },
  );

/**
 * One of `values`, or empty (or absent) for `fallback` when given; the document lists the values
 * (the empty string among them when it is allowed).
 */
export function oneOfText<const V extends string>(values: readonly V[], options: { fallback?: V; message?: string; maxLength?: number } = {}) {
  const { fallback, maxLength = 16 } = options;
  const message = options.message ?? `must be one of ${values.join(', ')}${fallback === undefined ? '' : ' (empty = ' + fallback + ')'}`;
  const base = fallback === undefined ? z.string({ error: `is required and ${message}` }).check(z.trim()) : optionalText(maxLength);
  return documentAs(
    z.pipe(
      z.pipe(base, z.transform((v: string) => v || fallback || '')),
      z.enum(values as [V, ...V[]], { error: message }),
    ),
    fallback === undefined ? { type: 'string', enum: [...values] } : { type: 'string', enum: ['', ...values], default: fallback },
  );
}

/** `d`: the client's device id, at most 64 characters, may be empty. */
export const deviceId = optionalText(64);

/** A parameter the seed marks required that may be empty (`watch_list`, `view`, `q`, `d`, `locale`, `country`). */
export const presentText = (max: number) =>
  checkedText(z.string({ error: 'is required (it may be empty)' }).check(z.trim(), z.maxLength(max, `must be at most ${max} characters`)));
