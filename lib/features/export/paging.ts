import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { MAX_CURSOR_LENGTH, openCursor, signCursor } from '../../platform/secrets/signed-cursor.js';
import { db, tableNames } from '../../platform/db/client.js';
import { mergeShardPages } from '../../platform/db/shard-merge.js';
import { ValidationError } from '../../platform/errors.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

/** A DynamoDB key as a cursor carries it: attribute name -> string value. */
export type PageKey = Record<string, string>;

/** `since`: a date-time with Z or an offset (a local time would depend on the server's zone), or a UTC date. */
const SINCE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const SINCE_FORMAT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export const pageQuerySchema = z.object({
  limit: z.pipe(
    z.optional(
      documentAs(
        z.pipe(
          z.pipe(z.string().check(z.trim(), z.regex(/^\d{1,4}$/, 'must be an integer from 1 to 500')), z.transform(Number)),
          z.number().check(z.minimum(1, 'must be at least 1'), z.maximum(MAX_LIMIT, `must be at most ${MAX_LIMIT}`)),
        ),
        { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      ),
    ),
    z.transform((n: number | undefined) => n ?? DEFAULT_LIMIT),
  ),
  cursor: z.optional(z.string().check(z.trim(), z.maxLength(MAX_CURSOR_LENGTH, 'is not a cursor from a previous page'))),
  since: z.optional(
    documentAs(z.pipe(
      z.string().check(
        z.trim(),
        z.refine((s) => s === '' || SINCE_FORMAT.test(s), 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T00:00:00Z, or a date, e.g. 2026-11-01'),
        z.refine((s) => s === '' || !SINCE_FORMAT.test(s) || isRealInstant(s), 'is not a real date and time'),
      ),
      z.transform((s: string) => (s === '' ? undefined : new Date(Date.parse(SINCE_DATE.test(s) ? `${s}T00:00:00Z` : s)).toISOString())),
    ), { type: 'string', pattern: `^\\s*(${SINCE_FORMAT.source.slice(1, -1)})?\\s*$`, description: 'A date-time with Z or an offset, or a UTC date; empty: no filter' }),
  ),
});

/** The export's query as pageQuerySchema outputs it (the route parses it: lib/transport/routes/export-comments.ts). */
export type PageQuery = z.output<typeof pageQuerySchema>;

/** Date.parse rolls 2026-02-30 over to March: the calendar date and the clock time must exist as written. */
function isRealInstant(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return false;
  const time = /T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(s);
  if (time && (Number(time[1]) > 23 || Number(time[2]) > 59 || Number(time[3] ?? 0) > 59)) return false;
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(s);
  if (offset && (Number(offset[2]) > 14 || Number(offset[3]) > 59)) return false;
  return !Number.isNaN(Date.parse(SINCE_DATE.test(s) ? `${s}T00:00:00Z` : s));
}

export interface PageRequest {
  limit: number;
  /** The key of the last row of the previous page, still to be checked against the caller's view. */
  after: PageKey | undefined;
  /** `since`, as UTC ISO: only rows whose time (the sort key's leading time) is at or after it. */
  since: string | undefined;
}

/** Which list a cursor continues: a cursor of one export cannot continue the other. */
export type ExportList = 'export:comments' | 'export:accounts';

/** The opaque cursor of the row key `key`: signed (lib/platform/secrets/signed-cursor.ts), bound to its list. */
export const encodeCursor = (list: ExportList, key: PageKey): Promise<string> => signCursor(list, key);

const BAD_CURSOR = 'Invalid parameter "cursor": not a cursor from a previous page of this export';

/**
 * `?cursor=&limit=`: a cursor the server did not sign for this list, or an altered one, is 400
 * naming `cursor` before anything is read; what it holds must still be a key of strings.
 */
export async function parsePageQuery({ limit, cursor, since }: PageQuery, list: ExportList): Promise<PageRequest> {
  if (!cursor) return { limit, after: undefined, since };
  const decoded = await openCursor(list, cursor);
  const values = typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded) ? Object.values(decoded) : [];
  if (values.length === 0 || !values.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 1024)) throw new ValidationError(BAD_CURSOR);
  return { limit, after: decoded as PageKey, since };
}

/**
 * Checks that a decoded cursor is exactly a key of `index` inside the partition the caller may read:
 * a cursor edited to point into another partition (someone else's rows) is refused, not followed.
 */
export function expectKey(after: PageKey, index: IndexSpec): PageKey {
  const names = Object.keys(after).sort();
  const expected = ['pk', 'sk', index.partitionName, index.sortName].sort();
  const partition = after[index.partitionName];
  const known = partition !== undefined && index.partitions.includes(partition);
  if (names.length !== expected.length || names.some((n, i) => n !== expected[i]) || !known) {
    throw new ValidationError(BAD_CURSOR);
  }
  return after;
}

export interface IndexSpec {
  indexName: 'gsi1' | 'gsi2';
  partitionName: 'gsi1pk' | 'gsi2pk';
  sortName: 'gsi1sk' | 'gsi2sk';
  /** The list's partition, or every shard of a sharded list (lib/platform/db/keys.ts, SHARDS). */
  partitions: string[];
}

/**
 * One page of a list, oldest first: ONE Query of its partition, or of a sharded list one Query per
 * shard in parallel, merged. Rows carry what the index projects (lib/platform/db/tables.ts): comments whole,
 * accounts and relations only their keys and ids, so the caller reads what else it shows.
 * `since` (UTC ISO) starts the list at that time: every sort key of these lists is `<time>#<id>`,
 * so it is a key condition, and the rows before it are never read.
 */
export async function queryPage<T extends Record<string, unknown>>(
  index: IndexSpec,
  limit: number,
  after: PageKey | undefined,
  since?: string,
): Promise<{ rows: T[]; next: PageKey | undefined }> {
  // A cursor from before `since` (e.g. of a run without it) points outside the range: start at `since`.
  const start = since !== undefined && after !== undefined && String(after[index.sortName]) < since ? undefined : after;
  if (index.partitions.length > 1) return queryShardsPage<T>(index, limit, start, since);
  return queryPartitionPage<T>(index, index.partitions[0]!, limit, start, since);
}

/** The key condition of a page: the partition, from `since` on when given. */
function keyCondition(index: IndexSpec, partition: string, bound: { op: '>' | '>='; value: string } | undefined) {
  return {
    KeyConditionExpression: bound ? `#p = :p AND #s ${bound.op} :bound` : '#p = :p',
    ExpressionAttributeNames: { '#p': index.partitionName, ...(bound && { '#s': index.sortName }) },
    ExpressionAttributeValues: { ':p': partition, ...(bound && { ':bound': bound.value }) },
  };
}

/**
 * One partition in ONE Query: it asks for one row more than the page so that the last page says so
 * (next is undefined) instead of handing out a cursor to an empty page.
 */
async function queryPartitionPage<T extends Record<string, unknown>>(
  index: IndexSpec,
  partition: string,
  limit: number,
  after: PageKey | undefined,
  since: string | undefined,
): Promise<{ rows: T[]; next: PageKey | undefined }> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableNames.hub,
      IndexName: index.indexName,
      ...keyCondition(index, partition, since === undefined ? undefined : { op: '>=', value: since }),
      ExclusiveStartKey: after,
      Limit: limit + 1,
    }),
  );
  const items = (out.Items ?? []) as T[];
  if (items.length > limit) {
    const rows = items.slice(0, limit);
    return { rows, next: keyOf(rows[rows.length - 1]!, index) };
  }
  // Fewer rows than asked: the end, unless DynamoDB stopped at its 1 MB page size.
  return { rows: items, next: out.LastEvaluatedKey as PageKey | undefined };
}

/**
 * Every shard from the cursor's position (or `since`) on (sort keys end in the row's id, so they
 * are unique and one position holds for every shard), each asked for one row more than the page,
 * merged: a page holds `limit` rows unless the list ends, and the last page says so.
 */
async function queryShardsPage<T extends Record<string, unknown>>(
  index: IndexSpec,
  limit: number,
  after: PageKey | undefined,
  since: string | undefined,
): Promise<{ rows: T[]; next: PageKey | undefined }> {
  const position = after?.[index.sortName];
  const bound = position !== undefined ? ({ op: '>', value: position } as const) : since !== undefined ? ({ op: '>=', value: since } as const) : undefined;
  const pages = await Promise.all(
    index.partitions.map(async (partition) => {
      const out = await db.send(new QueryCommand({ TableName: tableNames.hub, IndexName: index.indexName, ...keyCondition(index, partition, bound), Limit: limit + 1 }));
      return { items: (out.Items ?? []) as T[], done: !out.LastEvaluatedKey };
    }),
  );
  const sortKey = (row: T) => String(row[index.sortName]);
  const { items, done } = mergeShardPages(pages, (a, b) => sortKey(a) < sortKey(b), limit);
  const last = items[items.length - 1];
  return { rows: items, next: done || !last ? undefined : keyOf(last, index) };
}

function keyOf(row: Record<string, unknown>, index: IndexSpec): PageKey {
  return {
    pk: String(row.pk),
    sk: String(row.sk),
    [index.partitionName]: String(row[index.partitionName]),
    [index.sortName]: String(row[index.sortName]),
  };
}
