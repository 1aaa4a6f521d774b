import * as z from '../zod.js';
import { checkedText } from '../text.js';

/**
 * Query-parameter schemas shared by the hub operations (docs/hub-api.md, "Rules shared by every
 * operation"): strings are trimmed and are text (lib/text.ts: well-formed, no control characters);
 * identifiers must be non-empty; integers are decimal, non-negative and bounded.
 */
export const identifier = (max = 128) =>
  checkedText(z.string({ error: 'is required' }).check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(max, `must be at most ${max} characters`)));

export const optionalText = (max: number) =>
  z.pipe(
    z.optional(checkedText(z.string().check(z.trim(), z.maxLength(max, `must be at most ${max} characters`)))),
    z.transform((v: string | undefined) => v ?? ''),
  );

/** A required (or defaulted) non-negative decimal integer with an upper bound. */
export const boundedInt = (max: number) =>
  z.pipe(
    z.pipe(z.string({ error: 'is required' }).check(z.trim(), z.regex(/^\d{1,9}$/, 'must be a non-negative decimal integer')), z.transform(Number)),
    z.number().check(z.maximum(max, `must be at most ${max}`)),
  );

/** `d`: the client's device id, at most 64 characters, may be empty. */
export const deviceId = optionalText(64);

/** A parameter the seed marks required that may be empty (`watch_list`, `view`, `q`, `d`, `locale`, `country`). */
export const presentText = (max: number) =>
  checkedText(z.string({ error: 'is required (it may be empty)' }).check(z.trim(), z.maxLength(max, `must be at most ${max} characters`)));
