import { createHash } from 'node:crypto';
import * as z from 'zod';
import { ValidationError } from '../errors.js';

/**
 * `fav_index`: an opaque, self-contained cursor (base64url JSON). Positions are index positions
 * (never raw DynamoDB keys): the keys are rebuilt from them, so a forged cursor can only move within
 * the list it names. Phase 1 walks the list skipping videos seen in the last 7 days; phase 2 serves
 * those skipped ones (docs/feed.md "Cursors").
 */
const cursorSchema = z.discriminatedUnion('o', [
  z.object({ o: z.literal('rec') }),
  z.object({
    o: z.enum(['new', 'hot', 'q']),
    w: z.string().regex(/^[A-Za-z0-9]{1,16}$/),
    ph: z.union([z.literal(1), z.literal(2)]),
    /** new and q: `created_at#vid` (or a month for q); hot: the vid. */
    p: z.string().max(200).optional(),
    /** hot: the trend score at the position. */
    t: z.number().finite().optional(),
    /** phase 2: index into the walk's skipped list. */
    i: z.number().int().min(0).max(1_000_000).optional(),
    /** q: hash of the normalized term, so a cursor cannot continue another search. */
    h: z.string().max(32).optional(),
  }),
]);

export type Cursor = z.infer<typeof cursorSchema>;
export type WalkCursor = Extract<Cursor, { o: 'new' | 'hot' | 'q' }>;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(raw: string): Cursor | undefined {
  if (!raw) return undefined;
  const invalid = () => new ValidationError('Invalid parameter "fav_index": not a cursor returned by get_next_list');
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw invalid();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const parsed = cursorSchema.safeParse(json);
  if (!parsed.success) throw invalid();
  return parsed.data;
}

export const termHash = (normalizedTerm: string) => createHash('sha256').update(normalizedTerm).digest('hex').slice(0, 16);
