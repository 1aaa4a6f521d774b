import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod.js';
import { accountKeys, isDeleted } from '../accounts/accounts.js';
import { clock } from '../clock.js';
import { gaugeSeconds } from '../observability/metrics.js';
import { batchGetHubItems, itemId } from '../db/batch.js';
import { db, tableNames } from '../db/client.js';
import { ValidationError } from '../errors.js';
import { reasonCounts, reportKeys, type StoredCase } from '../report/reports.js';
import type { Target } from '../report/targets.js';
import { MAX_CURSOR_LENGTH, openCursor, signCursor } from '../secrets/signed-cursor.js';

export const QUEUE_PAGE_DEFAULT = 20;
export const QUEUE_PAGE_MAX = 100;
const CURSOR_PURPOSE = 'moderation-queue';

export const queueQuerySchema = z.object({
  cursor: z.optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH, `must be at most ${MAX_CURSOR_LENGTH} characters`))),
  limit: z.optional(z.string().check(z.regex(/^[0-9]{1,3}$/, `must be an integer from 1 to ${QUEUE_PAGE_MAX}`))),
});

/** One case of the queue (docs/moderation.md, "Moderation"). */
export interface QueueEntry {
  target: Target;
  /** The content as last reported: a comment's text, a video's title, a user's nickname. */
  preview: string;
  /** The account whose content it is (for a user: the user), with its current nickname ('' when deleted). */
  author: { openid: string; nickname: string };
  /** A comment's video. */
  vid?: string;
  report_count: number;
  reasons: Record<string, number>;
  oldest_report_at: string;
  latest_report_at: string;
}

/**
 * `GET /api/v1/moderation/reports`: the open cases, oldest open report first. One Query of the sparse
 * index of open cases (gsi1 CASES#open: a case is in it while it has open reports) for the order,
 * then one BatchGet of those cases and their authors (the index projects no case attribute: gsi1's
 * projection is shared with other lists, docs/data-model.md "Index projections").
 */
export async function moderationQueue(query: Record<string, string | undefined>): Promise<{ items: QueueEntry[]; next_cursor: string | null }> {
  const parsed = queueQuerySchema.parse(query);
  const limit = parsed.limit === undefined ? QUEUE_PAGE_DEFAULT : Number(parsed.limit);
  if (limit < 1 || limit > QUEUE_PAGE_MAX) throw new ValidationError(`Invalid parameter "limit": must be an integer from 1 to ${QUEUE_PAGE_MAX}`);
  let start: Record<string, unknown> | undefined;
  if (parsed.cursor) {
    const opened = (await openCursor(CURSOR_PURPOSE, parsed.cursor)) as Record<string, unknown> | undefined;
    if (!opened || typeof opened !== 'object') throw new ValidationError('Invalid parameter "cursor": not a cursor of the moderation queue');
    start = opened;
  }
  const queue = reportKeys.openCasesIndex('', 'video', '').gsi1pk;
  const out = await db.send(
    new QueryCommand({
      TableName: tableNames.hub,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': queue },
      ScanIndexForward: true,
      Limit: limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const keys = ((out.Items ?? []) as { pk: string; sk: string }[]).map(({ pk, sk }) => ({ pk, sk }));
  const cases = await batchGetHubItems<StoredCase>(keys);
  const open = keys.map((k) => cases.get(itemId(k))).filter((c): c is StoredCase => !!c && c.open_count > 0);
  const authors = await batchGetHubItems<{ nickname?: string; deleted_at?: string }>([...new Set(open.map((c) => c.owner))].map((o) => accountKeys.account(o)));
  const items = open.map((c): QueueEntry => {
    const author = authors.get(itemId(accountKeys.account(c.owner)));
    return {
      target: { type: c.target_type, id: c.target_id },
      preview: c.preview,
      author: { openid: c.owner, nickname: isDeleted(author) ? '' : (author?.nickname ?? '') },
      ...(c.vid !== undefined && c.target_type === 'comment' ? { vid: c.vid } : {}),
      report_count: c.open_count,
      reasons: reasonCounts(c),
      oldest_report_at: c.oldest_open_at ?? '',
      latest_report_at: c.latest_report_at ?? '',
    };
  });
  return { items, next_cursor: out.LastEvaluatedKey ? await signCursor(CURSOR_PURPOSE, out.LastEvaluatedKey) : null };
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
