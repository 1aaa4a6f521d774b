/**
 * zod as the project uses it: `zod/mini`, the functional API of zod 4 (checks and wrappers are
 * functions: `z.optional(s)`, `s.check(z.trim(), z.maxLength(64))`, `z.pipe(s, z.transform(f))`),
 * which imports in a fraction of classic zod's time (docs/performance.md, "Cold starts"). Classic
 * zod's English messages are configured here, before any schema parses, so that every message a
 * client can see is the same as with classic zod. Import `* as z from` this module, not from zod.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
