// Reports and their cases: filing (deduplicated, rate limited), the reporter's list with outcomes,
// and what the erasure of a reporter does to them (docs/moderation.md, "Reports").
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { db, tableNames } from '../../platform/db/client.js';
import { pad, timeKey } from '../../platform/db/keys.js';
import { cancellationCode, conditionFailed, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { NotFoundError, UnavailableError, ValidationError } from '../../platform/errors.js';
import { contentMarkItem, liveAccountCheck } from '../../entities/accounts/accounts.js';
import { randomBase62 } from '../../platform/ids.js';
import { rateLimitedError, rateLimitItem, type RateLimit } from '../../platform/limits/rate-windows.js';
import { openCursor, signCursor } from '../../platform/secrets/signed-cursor.js';
import { liveTarget, type Target, type TargetType } from './targets.js';
import { getAccount, personOf } from '../../entities/accounts/accounts.js';
import type * as z from '../../platform/zod.js';
import { REASONS, type Reason, type reportViewSchema } from './report-schema.js';

export { REASONS, type Reason };
export const MAX_REPORT_TEXT = 500;
export const MY_REPORTS_PAGE = 20;

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const reportKeys = {
  /**
   * A target's case: what the moderation queue shows of it (open report count, counts by reason
   * `r_<reason>`, the oldest open report's time, a preview) and the decision of every round. gsi1,
   * while reports are open only (sparse): CASES#open / oldest_open_at#type#id, the queue oldest first.
   */
  case: (type: TargetType, id: string) => ({ pk: `CASE#${type}#${id}`, sk: 'CASE' }),
  openCasesIndex: (oldestIso: string, type: TargetType, id: string) => ({ gsi1pk: 'CASES#open', gsi1sk: `${oldestIso}#${type}#${id}` }),
  /**
   * One reporter's report of the case's round `round` (a moderator's decision closes a round): one
   * open report per reporter and target. gsi1: REPORTS#reporter / created_at#id (my_reports, newest first).
   */
  report: (type: TargetType, id: string, reporter: string, round: number) => ({ pk: `CASE#${type}#${id}`, sk: `REPORT#${reporter}#${pad(round, 6)}` }),
  reporterIndex: (reporter: string, createdAt: string, rid: string) => ({ gsi1pk: `REPORTS#${reporter}`, gsi1sk: timeKey(createdAt, rid) }),
};

/** What a moderator decided for a round of a case (lib/features/moderation/actions.ts). */
export interface Decision {
  action: 'remove' | 'dismiss' | 'suspend' | 'approve';
  state: 'actioned' | 'dismissed';
  outcome: 'content_removed' | 'author_suspended' | 'content_approved' | null;
  decided_at: string;
  reports: number;
}

export interface StoredCase {
  target_type: TargetType;
  target_id: string;
  owner: string;
  preview: string;
  vid?: string;
  seq?: number;
  round: number;
  open_count: number;
  oldest_open_at?: string;
  latest_report_at?: string;
  /** Round number -> its decision. */
  decisions: Record<string, Decision>;
  [reasonCount: `r_${string}`]: number | undefined;
}

export interface StoredReport {
  id: string;
  reporter: string;
  target_type: TargetType;
  target_id: string;
  round: number;
  reason: Reason;
  text: string;
  created_at: string;
  updated_at: string;
}

/** A report as its reporter sees it (docs/hub-api.md, "report", "my_reports"). */
export type ReportView = z.output<typeof reportViewSchema>;

const TABLE = () => tableNames.hub;
const getItem = async <T>(key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item as T | undefined;

export const getCase = (target: Target) => getItem<StoredCase>(reportKeys.case(target.type, target.id));

/** The counts by reason of a case, reasons without a report left out. */
export const reasonCounts = (c: StoredCase) => Object.fromEntries(REASONS.map((r) => [r, c[`r_${r}`] ?? 0] as const).filter(([, n]) => n > 0));

export function reportView(report: StoredReport, caseItem: StoredCase | undefined): ReportView {
  const decision = caseItem && report.round < caseItem.round ? caseItem.decisions[String(report.round)] : undefined;
  return {
    id: report.id,
    target: { type: report.target_type, id: report.target_id },
    reason: report.reason,
    text: report.text,
    state: decision?.state ?? 'open',
    outcome: decision?.outcome ?? null,
    created_at: report.created_at,
    updated_at: report.updated_at,
    decided_at: decision?.decided_at ?? null,
  };
}

/** The report windows of a person (docs/accounts.md, "The person id"): a new account of the same phone inherits them. */
const limits = (person: string): RateLimit[] => [
  { name: 'reports-hour', subject: person, windowSeconds: 3600, max: config.RATE_REPORTS_PER_HOUR, message: `At most ${config.RATE_REPORTS_PER_HOUR} reports per hour; thank you, and try again later` },
  { name: 'reports-day', subject: person, windowSeconds: 86_400, max: config.RATE_REPORTS_PER_DAY, message: `At most ${config.RATE_REPORTS_PER_DAY} reports per day; thank you, and try again tomorrow` },
];

export const RECEIVED_MESSAGE = 'Thank you: your report was received. Moderators review reports within 24 hours; the outcome appears in your reports.';

/**
 * do=report (docs/moderation.md, "Reports"): the reporter's one open report of the target, created
 * or, when it exists, given the new reason and text; in ONE transaction with the two rate windows
 * (hour, day) of the reporter's person and the case's counts (the open count when new, the reason counts when the reason
 * changes), conditional on the case's round as read, so a moderator's decision in between makes it
 * start again on the new round; with the reporter's mark of the report and the check that the
 * reporter is not deleted (docs/accounts.md, "Erasure"). Never on oneself or one's own content (400),
 * an unknown target 404.
 */
export async function fileReport(input: { reporter: string; person?: string; target: Target; reason: Reason; text: string }): Promise<{ report: ReportView; message: string }> {
  const { reporter, target, reason, text } = input;
  const live = await liveTarget(target);
  if (live.owner === reporter) throw new ValidationError('Invalid parameter "id": you cannot report yourself or your own content');
  // The person id comes with a login token's check; an access key's caller costs one read of the account.
  const person = input.person ?? personOf(await getAccount(reporter)) ?? reporter;
  const rateLimits = limits(person);
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    const caseItem = await getCase(target);
    const round = caseItem?.round ?? 1;
    const reportKey = reportKeys.report(target.type, target.id, reporter, round);
    const existing = await getItem<StoredReport>(reportKey);
    const report: StoredReport = { id: existing?.id ?? `r_${randomBase62(16)}`, reporter, target_type: target.type, target_id: target.id, round, reason, text, created_at: existing?.created_at ?? nowIso, updated_at: nowIso };
    const values: Record<string, unknown> = { ':now': nowIso, ':type': target.type, ':id': target.id, ':owner': live.owner, ':preview': live.preview.slice(0, 300), ':empty': {}, ':one': 1 };
    const names: Record<string, string> = {};
    const sets = ['target_type = :type', 'target_id = :id', '#owner = :owner', 'preview = :preview', '#round = if_not_exists(#round, :one)', 'decisions = if_not_exists(decisions, :empty)', 'latest_report_at = :now', 'entity = :entity'];
    names['#owner'] = 'owner';
    names['#round'] = 'round';
    values[':entity'] = 'report_case';
    if (caseItem) values[':round'] = round;
    if (live.vid !== undefined) {
      sets.push('vid = :vid', 'seq = :seq');
      values[':vid'] = live.vid;
      values[':seq'] = live.seq;
    }
    const adds: string[] = [];
    if (!existing) {
      const open = reportKeys.openCasesIndex(nowIso, target.type, target.id);
      sets.push('oldest_open_at = if_not_exists(oldest_open_at, :now)', 'gsi1pk = :queue', 'gsi1sk = if_not_exists(gsi1sk, :queuesk)');
      values[':queue'] = open.gsi1pk;
      values[':queuesk'] = open.gsi1sk;
      adds.push('open_count :one', `#new :one`);
      names['#new'] = `r_${reason}`;
    } else if (existing.reason !== reason) {
      adds.push('#new :one', '#old :minus');
      names['#new'] = `r_${reason}`;
      names['#old'] = `r_${existing.reason}`;
      values[':minus'] = -1;
    }
    const items: TransactItem[] = [
      ...rateLimits.map((limit) => rateLimitItem(limit, now)),
      {
        Put: {
          TableName: TABLE(),
          Item: { ...reportKey, ...reportKeys.reporterIndex(reporter, report.created_at, report.id), entity: 'report', ...report },
          ...(existing
            ? { ConditionExpression: 'updated_at = :u', ExpressionAttributeValues: { ':u': existing.updated_at } }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      },
      {
        Update: {
          TableName: TABLE(),
          Key: reportKeys.case(target.type, target.id),
          UpdateExpression: `SET ${sets.join(', ')}${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
          ConditionExpression: caseItem ? '#round = :round' : 'attribute_not_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      // The reporter's mark of the report and the check that the reporter is not deleted
      // (docs/accounts.md, "Erasure"): the erasure finds what the reporter index does not show yet.
      contentMarkItem(reporter, 'report', `${reportKey.pk}#${reportKey.sk}`, { report_pk: reportKey.pk, report_sk: reportKey.sk }, now),
      liveAccountCheck(reporter),
    ];
    try {
      await transactWrite(items);
    } catch (error) {
      if (cancellationCode(error, items.length - 1) === 'ConditionalCheckFailed') throw new NotFoundError('Your account does not exist');
      const limited = rateLimitedError(error, rateLimits, 0, now);
      if (limited) throw limited;
      // The report or the case changed since they were read (a parallel repeat, a decision): again.
      if (cancellationCode(error, 2) === 'ConditionalCheckFailed' || cancellationCode(error, 3) === 'ConditionalCheckFailed') continue;
      throw error;
    }
    return { report: reportView(report, undefined), message: RECEIVED_MESSAGE };
  }
  throw new UnavailableError('This target is being reported or decided right now; retry shortly');
}

const CURSOR_PURPOSE = 'my-reports';

/** One page of the reporter's index (gsi1 REPORTS#reporter: keys), oldest first unless asked. */
function reportsOfReporter(reporter: string, limit: number, options: { newestFirst?: boolean; start?: Record<string, unknown> } = {}) {
  return db.send(
    new QueryCommand({
      TableName: TABLE(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': reportKeys.reporterIndex(reporter, '', '').gsi1pk },
      ScanIndexForward: !options.newestFirst,
      Limit: limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
}

/** do=my_reports: the reporter's reports, newest first, 20 a page, each with its state and outcome. */
export async function myReports(reporter: string, cursor: string): Promise<{ list: ReportView[]; cursor: string }> {
  let start: Record<string, unknown> | undefined;
  if (cursor) {
    const opened = (await openCursor(CURSOR_PURPOSE, cursor)) as { r?: string; k?: Record<string, unknown> } | undefined;
    if (!opened || opened.r !== reporter || !opened.k) throw new ValidationError('Invalid parameter "cursor": not a cursor of your reports');
    start = opened.k;
  }
  const out = await reportsOfReporter(reporter, MY_REPORTS_PAGE, { newestFirst: true, start });
  const keys = ((out.Items ?? []) as { pk: string; sk: string }[]).map(({ pk, sk }) => ({ pk, sk }));
  const caseKeys = [...new Set(keys.map((k) => k.pk))].map((pk) => ({ pk, sk: 'CASE' }));
  const found = await batchGetHubItems<StoredReport | StoredCase>([...keys, ...caseKeys]);
  const list = keys.flatMap((key) => {
    const report = found.get(itemId(key)) as StoredReport | undefined;
    return report ? [reportView(report, found.get(itemId({ pk: key.pk, sk: 'CASE' })) as StoredCase | undefined)] : [];
  });
  return { list, cursor: out.LastEvaluatedKey ? await signCursor(CURSOR_PURPOSE, { r: reporter, k: out.LastEvaluatedKey }) : '' };
}

/**
 * The erasure of a deleted reporter's reports (docs/moderation.md, "Reports"; lib/features/deletion/erasure.ts,
 * step `reports`): up to `limit` of them, each deleted; an open one (of its case's current round) in
 * one transaction with its case's counts (the open count and its reason one less; out of the queue
 * when it was the last open one), conditional on the case as read, tried again on a change. Returns
 * how many were erased; 0 when none is left.
 */
export async function eraseReportsOf(reporter: string, limit: number): Promise<number> {
  const out = await reportsOfReporter(reporter, limit);
  const keys = ((out.Items ?? []) as { pk: string; sk: string }[]).map(({ pk, sk }) => ({ pk, sk }));
  for (const key of keys) await eraseReport(key);
  return keys.length;
}

/** Erases one report of a deleted reporter (also from the reporter's mark of it, lib/features/deletion/erasure.ts); false when it was gone. */
export async function eraseReport(key: { pk: string; sk: string }): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const report = await getItem<StoredReport>(key);
    if (!report) return false;
    const caseItem = await getCase({ type: report.target_type, id: report.target_id });
    const remove: TransactItem = { Delete: { TableName: TABLE(), Key: key, ConditionExpression: 'updated_at = :u', ExpressionAttributeValues: { ':u': report.updated_at } } };
    const open = caseItem && report.round === caseItem.round && caseItem.open_count > 0;
    const items: TransactItem[] = [remove];
    if (open) {
      const last = caseItem.open_count === 1;
      items.push({
        Update: {
          TableName: TABLE(),
          Key: reportKeys.case(report.target_type, report.target_id),
          UpdateExpression: `ADD open_count :minus, #reason :minus${last ? ' REMOVE gsi1pk, gsi1sk, oldest_open_at' : ''}`,
          ConditionExpression: '#round = :round AND open_count = :n',
          ExpressionAttributeNames: { '#reason': `r_${report.reason}`, '#round': 'round' },
          ExpressionAttributeValues: { ':minus': -1, ':round': caseItem.round, ':n': caseItem.open_count },
        },
      });
    }
    try {
      await transactWrite(items);
      return true;
    } catch (error) {
      if (conditionFailed(error)) continue;
      throw error;
    }
  }
  throw new UnavailableError('A report of the deleted account kept changing; the erasure retries it');
}

/** Whether the account still has a report in its index (the erasure's check before it ends). */
export async function hasReports(reporter: string): Promise<boolean> {
  const out = await reportsOfReporter(reporter, 1);
  return (out.Items ?? []).length > 0;
}
