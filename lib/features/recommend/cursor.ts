import { createHash } from 'node:crypto';
import * as z from '../../platform/zod.js';
import { openCursor, signCursor } from '../../platform/secrets/signed-cursor.js';
import { ValidationError } from '../../platform/errors.js';

/**
 * `fav_index`: an opaque, self-contained cursor, signed (lib/platform/secrets/signed-cursor.ts): a cursor the
 * server did not issue, or an altered one, is 400. Positions are index positions (never raw
 * DynamoDB keys): the keys are rebuilt from them. Every field is checked too, so that even a cursor
 * signed by an older version of the code cannot put an out-of-range value into a request. Phase 1
 * walks the list skipping videos seen in the last 7 days; phase 2 serves those skipped ones
 * (docs/feed.md, "new, hot and q: walks with a cursor").
 */
const PURPOSE = 'fav_index';

/** What DynamoDB stores as a number: 0, or a magnitude within 1e-130..9.99e125. */
const dynamoNumber = z.number().check(z.refine((n) => n === 0 || (Math.abs(n) >= 1e-130 && Math.abs(n) < 1e126)));
/** Positions are made of vids, ISO timestamps and months: printable ASCII. */
const position = z.string().check(z.regex(/^[\x21-\x7e]{1,200}$/));

const cursorSchema = z.discriminatedUnion('o', [
  z.object({ o: z.literal('rec') }),
  z.object({
    o: z.enum(['new', 'hot', 'q']),
    w: z.string().check(z.regex(/^[A-Za-z0-9]{1,16}$/)),
    ph: z.union([z.literal(1), z.literal(2)]),
    /** new and q: `created_at#vid` (or a month for q); hot: the vid. */
    p: z.optional(position),
    /** hot: the trend score at the position. */
    t: z.optional(dynamoNumber),
    /** phase 2: index into the walk's skipped list. */
    i: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(1_000_000))),
    /** q: hash of the normalized term, so a cursor cannot continue another search. */
    h: z.optional(z.string().check(z.regex(/^[0-9a-f]{16}$/))),
  }),
]);

export type Cursor = z.infer<typeof cursorSchema>;
export type WalkCursor = Extract<Cursor, { o: 'new' | 'hot' | 'q' }>;

export const encodeCursor = (cursor: Cursor): Promise<string> => signCursor(PURPOSE, cursor);

/** The cursor `raw` stands for (undefined when empty); 400 naming fav_index when the server did not issue it. */
export async function decodeCursor(raw: string): Promise<Cursor | undefined> {
  if (!raw) return undefined;
  const value = await openCursor(PURPOSE, raw);
  const parsed = value === undefined ? undefined : cursorSchema.safeParse(value);
  if (!parsed?.success) throw new ValidationError('Invalid parameter "fav_index": not a cursor returned by get_next_list; start the list again without it');
  return parsed.data;
}

export const termHash = (normalizedTerm: string) => createHash('sha256').update(normalizedTerm).digest('hex').slice(0, 16);
