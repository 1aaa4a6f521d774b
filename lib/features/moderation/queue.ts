import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import type { queueEntry } from './moderation-api.js';
import { accountIn, accountKeys, isDeleted } from '../../entities/accounts/accounts.js';
import { clock } from '../../platform/clock.js';
import { gaugeSeconds } from '../../platform/observability/metrics.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { db, tableNames } from '../../platform/db/client.js';
import { ValidationError } from '../../platform/errors.js';
import { heldFromItem, heldKeys, heldView, type HeldItem } from '../filter/held-items.js';
import { caseFromItem, reasonCounts, reportKeys, type StoredCase } from '../report/reports.js';
import { MAX_CURSOR_LENGTH, openCursor, signCursor } from '../../platform/secrets/signed-cursor.js';

export const QUEUE_PAGE_DEFAULT = 20;
export const QUEUE_PAGE_MAX = 100;
const CURSOR_PURPOSE = 'moderation-queue';

export const queueQuerySchema = z.object({
  cursor: z.optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH, `must be at most ${MAX_CURSOR_LENGTH} characters`))),
  limit: z.optional(documentAs(z.string().check(z.regex(/^[0-9]{1,3}$/, `must be an integer from 1 to ${QUEUE_PAGE_MAX}`)), { type: 'integer', minimum: 1, maximum: QUEUE_PAGE_MAX })),
});

/** An entry of the queue (its schema, with what each field holds: lib/features/moderation/moderation-api.ts). */
export type QueueEntry = z.output<typeof queueEntry>;
/** A case of the queue: a reported target with open reports (docs/moderation.md, "Moderation"). */
export type ReportsEntry = Extract<QueueEntry, { kind: 'reports' }>;
/** Held content in the queue (docs/moderation.md, "Filter"): acted on as target `{type: 'held', id: held_id}`. */
export type HeldEntry = Extract<QueueEntry, { kind: 'held' }>;

type IndexKey = { pk: string; sk: string; gsi1pk: string; gsi1sk: string };
/** The two sources of the queue, each a gsi1 partition read oldest first. */
const SOURCES = { reports: reportKeys.openCasesIndex('', 'video', '').gsi1pk, held: heldKeys.queuePartition } as const;
type Source = keyof typeof SOURCES;
/** The cursor: each source's position (the last index row of it a page returned; absent: from the start), and the sources read to the end. */
interface QueueCursor {
  after: Partial<Record<Source, IndexKey>>;
  done: Source[];
}

const isIndexKey = (key: unknown, source: Source): key is IndexKey => {
  const k = key as Partial<IndexKey> | null;
  return typeof k === 'object' && k !== null && typeof k.pk === 'string' && typeof k.sk === 'string' && k.gsi1pk === SOURCES[source] && typeof k.gsi1sk === 'string';
};

async function openQueueCursor(raw: string): Promise<QueueCursor> {
  const opened = (await openCursor(CURSOR_PURPOSE, raw)) as Partial<QueueCursor> | undefined;
  const after = opened?.after;
  const done = opened?.done;
  const ok =
    typeof after === 'object' && after !== null && Array.isArray(done) && done.every((s) => s === 'reports' || s === 'held') && (Object.keys(after) as Source[]).every((s) => isIndexKey(after[s], s));
  if (!ok) throw new ValidationError('Invalid parameter "cursor": not a cursor of the moderation queue');
  return { after, done };
}

/** One page of a source's index rows from its position (none when read to the end). */
async function indexRows(source: Source, cursor: QueueCursor, limit: number): Promise<{ rows: IndexKey[]; more: boolean }> {
  if (cursor.done.includes(source)) return { rows: [], more: false };
  const start = cursor.after[source];
  const out = await db.send(
    new QueryCommand({
      TableName: tableNames.hub,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': SOURCES[source] },
      ScanIndexForward: true,
      Limit: limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const rows = ((out.Items ?? []) as IndexKey[]).map(({ pk, sk, gsi1pk, gsi1sk }) => ({ pk, sk, gsi1pk, gsi1sk }));
  return { rows, more: !!out.LastEvaluatedKey };
}

/** The time a row waits since: the index sort key's ISO prefix (a case's oldest open report, a held item's hold). */
const since = (row: IndexKey) => row.gsi1sk.slice(0, row.gsi1sk.indexOf('#'));

/**
 * `GET /api/v1/moderation/reports`: the open cases and the held content, oldest first across both (a
 * case by its oldest open report, a held item by when it was held). Each source is one Query of its
 * gsi1 partition (the sparse index of open cases CASES#open: a case is in it while it has open
 * reports; the held queue HELD), `limit` rows from its own position; the page is the first `limit`
 * rows of the two merged, and the cursor keeps each source's last returned row. Then one BatchGet of
 * the cases and held items and one of their authors (gsi1 projects none of their attributes: its
 * projection is shared with other lists, docs/data-model.md "Index projections"). The entries about
 * `caller` or their content are marked `own` (they decide other moderators' cases only).
 */
export async function moderationQueue(parsed: z.output<typeof queueQuerySchema>, caller?: string): Promise<{ items: QueueEntry[]; next_cursor: string | null }> {
  const limit = parsed.limit === undefined ? QUEUE_PAGE_DEFAULT : Number(parsed.limit);
  if (limit < 1 || limit > QUEUE_PAGE_MAX) throw new ValidationError(`Invalid parameter "limit": must be an integer from 1 to ${QUEUE_PAGE_MAX}`);
  const cursor: QueueCursor = parsed.cursor ? await openQueueCursor(parsed.cursor) : { after: {}, done: [] };
  const [reports, held] = await Promise.all([indexRows('reports', cursor, limit), indexRows('held', cursor, limit)]);
  // The merge: oldest first, a case before a held item of the same time.
  const page: { source: Source; row: IndexKey }[] = [];
  for (let r = 0, h = 0; page.length < limit && (r < reports.rows.length || h < held.rows.length); ) {
    const takeReport = h >= held.rows.length || (r < reports.rows.length && since(reports.rows[r]!) <= since(held.rows[h]!));
    page.push(takeReport ? { source: 'reports', row: reports.rows[r++]! } : { source: 'held', row: held.rows[h++]! });
  }
  const found = await batchGetHubItems(page.map(({ row }) => ({ pk: row.pk, sk: row.sk })));
  type Found = { source: 'reports'; item: StoredCase } | { source: 'held'; item: HeldItem };
  const stored = page.flatMap(({ source, row }): Found[] => {
    if (source === 'reports') {
      const item = caseFromItem(found.get(itemId(row)));
      return item && item.open_count > 0 ? [{ source, item }] : [];
    }
    const item = heldFromItem(found.get(itemId(row)));
    return item ? [{ source, item }] : [];
  });
  const owners = stored.map((s) => (s.source === 'reports' ? s.item.owner : s.item.author));
  const authors = await batchGetHubItems([...new Set(owners)].map((o) => accountKeys.account(o)));
  const authorOf = (openid: string) => {
    const account = accountIn(authors, openid);
    return { openid, nickname: isDeleted(account) ? '' : (account?.nickname ?? '') };
  };
  const items = stored.map((s): QueueEntry => {
    if (s.source === 'held') {
      const view = heldView(s.item);
      return {
        kind: 'held',
        held_id: view.held_id,
        target: { type: view.target_type, id: view.target_id },
        author: authorOf(view.author),
        ...(view.vid !== undefined ? { vid: view.vid } : {}),
        fields: view.fields,
        text: view.text,
        held_at: view.at,
        ...(view.removed ? { removed: view.removed } : {}),
        ...(view.author === caller ? { own: true as const } : {}),
      };
    }
    const c = s.item;
    return {
      kind: 'reports',
      target: { type: c.target_type, id: c.target_id },
      preview: c.preview,
      author: authorOf(c.owner),
      ...(c.vid !== undefined && c.target_type === 'comment' ? { vid: c.vid } : {}),
      report_count: c.open_count,
      reasons: reasonCounts(c),
      oldest_report_at: c.oldest_open_at ?? '',
      latest_report_at: c.latest_report_at ?? '',
      ...(c.owner === caller ? { own: true as const } : {}),
    };
  });
  // Each source continues after its last row on this page; one whose every row was taken, with nothing after, is done.
  const next: QueueCursor = { after: { ...cursor.after }, done: [...cursor.done] };
  for (const [source, read] of [['reports', reports], ['held', held]] as const) {
    const taken = page.filter((p) => p.source === source);
    if (taken.length > 0) next.after[source] = taken[taken.length - 1]!.row;
    if (!cursor.done.includes(source) && !read.more && taken.length === read.rows.length) next.done.push(source);
  }
  return { items, next_cursor: next.done.length === 2 ? null : await signCursor(CURSOR_PURPOSE, next) };
}

/**
 * The age of the oldest open report, in seconds (0 when none is open): one Query of the open cases'
 * index, oldest first, one key. Published as OldestOpenReportAge by a scheduled function every 5
 * minutes (functions/report-age.ts): the age grows while nothing is written, so a stream consumer,
 * which only runs on writes, would publish nothing on a quiet queue just when it matters.
 */
export async function oldestOpenReportAge(nowMs = clock.now()): Promise<number> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableNames.hub,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': reportKeys.openCasesIndex('', 'video', '').gsi1pk },
      ScanIndexForward: true,
      Limit: 1,
    }),
  );
  const first = out.Items?.[0] as { gsi1sk?: string } | undefined;
  const oldest = first?.gsi1sk ? Date.parse(first.gsi1sk.slice(0, first.gsi1sk.indexOf('#'))) : NaN;
  return Number.isNaN(oldest) ? 0 : Math.max(0, Math.floor((nowMs - oldest) / 1000));
}

export async function publishOldestReportAge(): Promise<number> {
  const age = await oldestOpenReportAge();
  gaugeSeconds('OldestOpenReportAge', age);
  return age;
}
