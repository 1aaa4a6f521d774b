/**
 * zod as the project uses it: `zod/mini`, the functional API of zod 4 (checks and wrappers are
 * functions: `z.optional(s)`, `s.check(z.trim(), z.maxLength(64))`, `z.pipe(s, z.transform(f))`),
 * which imports in a fraction of classic zod's time (docs/performance.md, "Cold starts"). Classic
 * zod's English messages are configured here, before any schema parses, so that every message a
 * client can see is the same as with classic zod. Import `* as z from` this module, not from zod.
 *
 * The exports are named one by one: `export *` would defeat esbuild's tree shaking and bundle all
 * of zod, every locale included (about 400 KB).
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export {
  _default,
  array,
  boolean,
  coerce,
  discriminatedUnion,
  enum,
  int,
  iso,
  literal,
  looseObject,
  maxLength,
  maximum,
  minLength,
  minimum,
  length,
  null,
  number,
  object,
  optional,
  pipe,
  positive,
  record,
  refine,
  regex,
  strictObject,
  string,
  superRefine,
  toJSONSchema,
  transform,
  trim,
  union,
  unknown,
  url,
} from 'zod/mini';
export type { infer, input, output, ZodMiniType } from 'zod/mini';
import { strictObject } from 'zod/mini';
import type { ZodMiniType } from 'zod/mini';

/**
 * A JSON body's schema: a field it does not declare is refused (400 naming the field, with the
 * fields it has), so a typo such as `scope` for `scopes` cannot silently widen what is created.
 * The OpenAPI document shows it as `additionalProperties: false`.
 */
export function strictBody<Shape extends Record<string, ZodMiniType>>(shape: Shape) {
  const fields = Object.keys(shape).join(', ');
  return strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `is not a field of this body; its fields are ${fields}` : undefined),
  });
}
export { $ZodError as ZodError } from 'zod/v4/core';
export type { $RefinementCtx as RefinementCtx } from 'zod/v4/core';
