// Long by nature: the erasure of an account whole (every kind of item it owns, each step's page, the
// check before it ends, the stream trigger and the sweeper), docs/accounts.md "Erasure".
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { batchWriteHubItems, inParallel, type BatchWrite } from '../../platform/db/batch.js';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { transactWrite, cancellationCode } from '../../platform/db/transact.js';
import { auditItem, auditKeys, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { commentKeys, tombstoneUpdate } from '../../entities/comments/comments.js';
import { videoPartitions } from '../../entities/catalog/video-items.js';
import { authorNicknameRemoval } from '../../entities/catalog/videos.js';
import { shareIdOf, shareKeys, sharerRemoval } from '../share/shares.js';
import { endRelation, relationOfItem } from '../../entities/social/follows.js';
import { eraseBlockItem, isBlockItem } from '../../entities/social/blocks.js';
import { listKeysOfUser, removeKey, removeKeyQuota } from '../keys/key-records.js';
import { logger } from '../../platform/logger.js';
import { countMetric } from '../../platform/observability/metrics.js';
import type { ChangeRecord } from '../streams/facts.js';
import { accountKeys, tombstonePut } from '../../entities/accounts/accounts.js';
import { deletionIdOf, deletionKeys, getDeletion, type StoredDeletion } from './deletion.js';
import { eraseReport, eraseReportsOf, hasReports } from '../report/reports.js';

/**
 * The background erasure of a deleted account (docs/accounts.md, "Erasure"). The deletion record
 * drives it: each change of a record still `erasing` reaches `applyErasureRecords` through the hub
 * table's stream (deployed: the `eraseAccounts` function, infra/constructs/erasure.ts; locally the
 * stream poller), which does up to ERASURE_PAGES_PER_RUN pages of the current step and writes the
 * step and position reached on the record, conditional on its version: that write is the next
 * change, so the erasure goes on run after run until it ends. Every page is idempotent (a delete of
 * what is gone, a relation already ended, a comment already a tombstone): a run that fails or
 * crashes half-way is simply run again from the last recorded position, by the stream's retries or,
 * past them, by the sweeper (`sweepErasures`), which hands a stalled record to the stream again.
 *
 * Steps, in order:
 * - `partition`: every item under `ACCOUNT#<openid>` but the profile and the deletion's own audit
 *   events: follows both ways ended with both accounts' counters (follows.ts endRelation), blocks
 *   both ways (its block list with each reverse item, and its entry in the lists of those who
 *   blocked it: lib/entities/social/blocks.ts eraseBlockItem), likes
 *   deleted (the stream takes them back from the videos, trends, tag rankings and authors), the
 *   marks of its comments, reports and shares of the last day (accounts.ts contentMarkItem): what
 *   each points to erased as its own step below erases it, then the mark, so what an index does not
 *   show yet is erased all the same; the rest deleted (dislikes, feed state and call records, view
 *   history, commented marks, retry guards, invitations made, the author's latest videos, external
 *   ids, audit events);
 * - `comments`: each comment becomes a tombstone (no text, no author, out of both comment indexes):
 *   its number and its video's `comment_count` stay, so nobody's pages move;
 * - `reports`: the reports it filed erased, an open one leaving its case's counts in the same
 *   transaction (lib/features/report/reports.ts eraseReportsOf; docs/moderation.md, "Reports");
 * - `videos`: videos it published stay in the catalog; their denormalized author name goes;
 * - `shares`: the shares it made keep working for whoever received the link, without their sharer;
 * - `keys`: every key record, hash guard and the quota (the minute counters expire, 32 days);
 * - `finish`: checks that nothing but the retained items is left (else goes back to that step): the
 *   partition read strongly consistently, then the indexes (which hold anything older than a mark),
 *   removes the invitation record of the account, and in one transaction turns the account item
 *   into a tombstone (kept while a token issued before the deletion can live), ends the record and
 *   stores the `account.deleted` event.
 */

type Step = 'partition' | 'comments' | 'reports' | 'videos' | 'shares' | 'keys' | 'finish';
const STEPS: readonly Step[] = ['partition', 'comments', 'reports', 'videos', 'shares', 'keys', 'finish'];
const PAGE = 100;
/** Audit events kept after the erasure (docs/accounts.md, "What is kept"). */
const RETAINED_AUDIT_ACTIONS: readonly string[] = ['account.deletion_requested', 'account.deleted'];
/** How long the deletion record and its events stay once the erasure ended: 90 days. */
const RECORD_RETENTION_S = 90 * 86_400;

const TABLE = () => tableNames.hub;

interface PageOutcome {
  erased: Record<string, number>;
  /** Where the step goes on; undefined when it is done. */
  position?: Record<string, unknown>;
  /** The step to go to when `finish` found leftovers. */
  back?: Step;
}

const tally = (into: Record<string, number>, kind: string, n = 1) => {
  into[kind] = (into[kind] ?? 0) + n;
};

type Item = Record<string, unknown> & { pk: string; sk: string };

async function queryPartition(openid: string, start: Record<string, unknown> | undefined): Promise<{ items: Item[]; next?: Record<string, unknown> }> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': accountKeys.account(openid).pk },
      ConsistentRead: true,
      Limit: PAGE,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return { items: (out.Items ?? []) as Item[], next: out.LastEvaluatedKey };
}

/** What the erasure leaves under the account's partition: the profile (turned into a tombstone at the end) and the deletion's events. */
const isRetained = (item: Item) =>
  item.sk === accountKeys.account('').sk || (item.sk.startsWith(auditKeys.auditPrefix) && RETAINED_AUDIT_ACTIONS.includes(String(item.type)));

async function erasePartitionPage(d: StoredDeletion, position: Record<string, unknown> | undefined): Promise<PageOutcome> {
  const { items, next } = await queryPartition(d.openid, position);
  const erased: Record<string, number> = {};
  const deletes: BatchWrite[] = [];
  const relations: [string, string][] = [];
  const blocks: Item[] = [];
  const marks: Item[] = [];
  for (const item of items) {
    if (isRetained(item)) continue;
    const relation = relationOfItem(d.openid, item.sk);
    if (relation) relations.push(relation);
    else if (isBlockItem(d.openid, item.sk)) blocks.push(item);
    else if (item.sk.startsWith(accountKeys.contentMarkPrefix)) marks.push(item);
    else {
      deletes.push({ delete: { pk: item.pk, sk: item.sk } });
      tally(erased, typeof item.entity === 'string' ? item.entity : 'other');
    }
  }
  await Promise.all([
    batchWriteHubItems(deletes),
    inParallel(relations, 10, async ([follower, followee]) => {
      if (await endRelation(follower, followee)) tally(erased, follower === d.openid ? 'follows' : 'followers');
    }),
    inParallel(blocks, 10, async (item) => {
      await eraseBlockItem(d.openid, item);
      tally(erased, 'blocks');
    }),
    inParallel(marks, 10, async (mark) => {
      const kind = await eraseMarkedContent(d, mark);
      if (kind) tally(erased, kind);
    }),
  ]);
  // A mark goes once what it points to is erased: a run failing before this finds it again.
  await batchWriteHubItems(marks.map((mark) => ({ delete: { pk: mark.pk, sk: mark.sk } })));
  return { erased, position: next };
}

/**
 * The content a mark of the account points to (a comment, a report, a share written in the same
 * transaction as its mark: accounts.ts contentMarkItem), erased as its own step erases it: the
 * consistent read of the partition finds it where the step's index may not show it yet. Returns the
 * kind counted, undefined when it was erased already.
 */
async function eraseMarkedContent(d: StoredDeletion, mark: Item): Promise<string | undefined> {
  switch (mark.kind) {
    case 'comment':
      return (await tombstoneComment(d, { vid: String(mark.vid), seq: Number(mark.seq) })) ? 'comments' : undefined;
    case 'report':
      return (await eraseReport({ pk: String(mark.report_pk), sk: String(mark.report_sk) })) ? 'reports' : undefined;
    case 'share':
      return (await unlinkShare(d, String(mark.shareid))) ? 'shares_unlinked' : undefined;
    default:
      return undefined;
  }
}

/** A comment of the account turned into a tombstone; false when it is one already (an index a moment behind, a page done twice). */
async function tombstoneComment(d: StoredDeletion, place: { vid: string; seq: number }): Promise<boolean> {
  try {
    await db.send(new UpdateCommand(tombstoneUpdate(place, d.openid, 'account_deleted', clock.nowIso())));
    return true;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    return false;
  }
}

/** A share of the account without its sharer, out of the sharer index; false when it is already (or gone). */
async function unlinkShare(d: StoredDeletion, shareid: string): Promise<boolean> {
  try {
    await db.send(new UpdateCommand(sharerRemoval(shareid, d.openid)));
    return true;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    return false;
  }
}

/** The first `limit` comments still in the author's index (a tombstone has left it). */
async function commentsOf(openid: string, limit: number): Promise<{ vid: string; seq: number }[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': commentKeys.commentsByAuthorIndex(openid, '', '').gsi1pk },
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as { vid: string; seq: number }[];
}

async function eraseCommentsPage(d: StoredDeletion): Promise<PageOutcome> {
  // Always from the start: a tombstone leaves the author's index, so the next page is what is left.
  const comments = await commentsOf(d.openid, PAGE);
  const erased: Record<string, number> = {};
  await inParallel(comments, 10, async ({ vid, seq }) => {
    if (await tombstoneComment(d, { vid, seq })) tally(erased, 'comments');
  });
  return { erased, position: comments.length === 0 ? undefined : {} };
}

async function eraseVideosPage(d: StoredDeletion, position: Record<string, unknown> | undefined): Promise<PageOutcome> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': videoPartitions.author(d.openid) },
      Limit: PAGE,
      ...(position ? { ExclusiveStartKey: position } : {}),
    }),
  );
  const erased: Record<string, number> = {};
  await inParallel((out.Items ?? []) as { vid: string }[], 10, async ({ vid }) => {
    try {
      await db.send(new UpdateCommand(authorNicknameRemoval(vid)));
      tally(erased, 'videos_kept');
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  });
  return { erased, position: out.LastEvaluatedKey };
}

/** The shares the account made (the sharer index, lib/features/share/shares.ts): each loses its sharer and leaves the index. */
async function sharesOf(openid: string, limit: number): Promise<{ shareid: string }[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': shareKeys.sharerPartition(openid) },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => ({ shareid: shareIdOf(String(item.pk)) }));
}

async function eraseSharesPage(d: StoredDeletion): Promise<PageOutcome> {
  // Always from the start, as comments: a share leaves the index when its sharer goes.
  const shares = await sharesOf(d.openid, PAGE);
  const erased: Record<string, number> = {};
  await inParallel(shares, 10, async ({ shareid }) => {
    if (await unlinkShare(d, shareid)) tally(erased, 'shares_unlinked');
  });
  return { erased, position: shares.length === 0 ? undefined : {} };
}

async function eraseKeysPage(d: StoredDeletion): Promise<PageOutcome> {
  const keys = await listKeysOfUser(d.openid);
  const erased: Record<string, number> = {};
  await inParallel(keys, 10, async (key) => {
    if (await removeKey(key)) tally(erased, 'keys');
  });
  // The quota item last: no key can be created for a deleted account (lib/features/keys/key-records.ts insertKey).
  await removeKeyQuota(d.openid);
  return { erased };
}

/**
 * The check before the end: the first step that still has something to erase, if any. Every write
 * on the account's behalf checks the account in its own transaction (docs/accounts.md, "Erasure"),
 * so all of them committed before the deletion did, and a consistent read of the partition sees
 * each, or its mark; the indexes then only have to show what is older than a mark.
 */
async function leftovers(d: StoredDeletion): Promise<Step | undefined> {
  for (let start: Record<string, unknown> | undefined, first = true; first || start; first = false) {
    const { items, next } = await queryPartition(d.openid, start);
    if (items.some((item) => !isRetained(item))) return 'partition';
    start = next;
  }
  if ((await commentsOf(d.openid, 1)).length > 0) return 'comments';
  if (await hasReports(d.openid)) return 'reports';
  if ((await sharesOf(d.openid, 1)).length > 0) return 'shares';
  if ((await listKeysOfUser(d.openid)).length > 0) return 'keys';
  return undefined;
}

async function finish(d: StoredDeletion, erased: Record<string, number>): Promise<PageOutcome | 'done'> {
  const back = await leftovers(d);
  if (back) return { erased: {}, back };
  if (d.invited_by) {
    await batchWriteHubItems([{ delete: accountKeys.invite(d.invited_by, d.openid) }]);
  }
  const now = clock.now();
  const nowIso = new Date(now).toISOString();
  const event: AuditEvent = { action: 'account.deleted', actor: 'system', subject: d.openid, via: 'erasure' };
  try {
    await transactWrite([
      // The tombstone, kept while a token issued before the deletion may live.
      tombstonePut(d.openid, d.requested_at, d.id, Math.floor(now / 1000) + config.JWT_TTL_SECONDS + 86_400),
      {
        Update: {
          TableName: TABLE(),
          Key: deletionKeys.deletion(d.id),
          UpdateExpression: 'SET #state = :erased, erased = :counts, completed_at = :now, updated_at = :now, step = :done, v = :next, #ttl = :ttl REMOVE gsi1pk, gsi1sk, #position',
          ConditionExpression: 'v = :v',
          ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl', '#position': 'position' },
          ExpressionAttributeValues: { ':erased': 'erased', ':counts': erased, ':now': nowIso, ':done': 'done', ':v': d.v, ':next': d.v + 1, ':ttl': Math.floor(now / 1000) + RECORD_RETENTION_S },
        },
      },
      auditItem(event, now),
    ]);
  } catch (error) {
    // Another run ended it (or moved it on) first.
    if (cancellationCode(error, 1) === 'ConditionalCheckFailed') return 'done';
    throw error;
  }
  writeAuditLine(event);
  countMetric('AccountDeletions', 'erased');
  logger.info('account erased', { deletionId: d.id, erased });
  return 'done';
}

async function page(step: Step, d: StoredDeletion, position: Record<string, unknown> | undefined, erased: Record<string, number>): Promise<PageOutcome | 'done'> {
  switch (step) {
    case 'partition':
      return erasePartitionPage(d, position);
    case 'comments':
      return eraseCommentsPage(d);
    case 'reports': {
      // Always from the start, as comments: an erased report leaves the reporter's index.
      const erased = await eraseReportsOf(d.openid, PAGE);
      return { erased: erased ? { reports: erased } : {}, position: erased === 0 ? undefined : {} };
    }
    case 'videos':
      return eraseVideosPage(d, position);
    case 'shares':
      return eraseSharesPage(d);
    case 'keys':
      return eraseKeysPage(d);
    case 'finish':
      return finish(d, erased);
  }
}

/**
 * One run of the erasure of deletion `id`: up to `pages` pages from where the record says it is,
 * then the step and position reached written on the record (conditional on its version: a run that
 * lost the race to another writes nothing). Returns the record's state afterwards.
 */
export async function eraseSome(id: string, pages = config.ERASURE_PAGES_PER_RUN): Promise<'erasing' | 'erased' | 'unknown'> {
  const d = await getDeletion(id);
  if (!d) return 'unknown';
  if (d.state === 'erased') return 'erased';
  let step = (STEPS.includes(d.step as Step) ? d.step : 'partition') as Step;
  let position = d.position;
  const erased = { ...d.erased };
  for (let n = 0; n < pages; n++) {
    const outcome = await page(step, d, position, erased);
    if (outcome === 'done') return 'erased';
    for (const [kind, count] of Object.entries(outcome.erased)) tally(erased, kind, count);
    if (outcome.back) {
      step = outcome.back;
      position = undefined;
    } else if (outcome.position === undefined) {
      step = STEPS[STEPS.indexOf(step) + 1]!;
      position = undefined;
    } else {
      position = step === 'comments' || step === 'reports' || step === 'shares' ? undefined : outcome.position;
    }
  }
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: deletionKeys.deletion(id),
        UpdateExpression: `SET step = :step, erased = :erased, v = :next, updated_at = :now ${position ? ', #position = :position' : 'REMOVE #position'}`,
        ConditionExpression: 'v = :v',
        ExpressionAttributeNames: { '#position': 'position' },
        ExpressionAttributeValues: { ':step': step, ':erased': erased, ':v': d.v, ':next': d.v + 1, ':now': clock.nowIso(), ...(position ? { ':position': position } : {}) },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  return 'erasing';
}

/** The deletion a stream record of an erasing deletion record names, if it is one. */
function erasingDeletionOf(record: ChangeRecord): string | undefined {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return undefined;
  const raw = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
  if (raw?.entity?.S !== 'account_deletion' || raw.state?.S !== 'erasing') return undefined;
  return (unmarshall({ id: raw.id! }) as { id: string }).id;
}

/**
 * The stream's erasure records, in order: one run per deletion named (several changes of one record
 * in a batch make one run). A run that fails reports its record (Lambda retries from it; the local
 * poller hands it over again).
 */
export async function applyErasureRecords(records: ChangeRecord[]): Promise<{ failedFrom?: string; error?: unknown }> {
  const runs = new Map<string, ChangeRecord>();
  for (const record of records) {
    const id = erasingDeletionOf(record);
    if (id && !runs.has(id)) runs.set(id, record);
  }
  for (const [id, record] of runs) {
    try {
      await eraseSome(id);
    } catch (error) {
      logger.warn('erasure run failed; retried', { deletionId: id, errorName: (error as Error)?.name });
      return { failedFrom: record.dynamodb?.SequenceNumber, error };
    }
  }
  return {};
}

/** A record not moved on for this long is handed to the stream again by the sweeper. */
const STALLED_MS = 10 * 60_000;
/** An erasure still running this long after its request counts as overdue (alarm ErasureOverdue). */
const OVERDUE_MS = 60 * 60_000;

/**
 * The sweeper (deployed: every 10 minutes, infra/constructs/erasure.ts): every deletion still
 * erasing whose record has not moved for 10 minutes gets a `kick` (a change of the record, so the
 * stream runs the erasure again: a run that failed past the stream's retries, or a record whose
 * batch went to the on-failure queue, goes on). Publishes how many are overdue (asked for more than
 * an hour ago). Returns both counts.
 */
export async function sweepErasures(): Promise<{ kicked: number; overdue: number }> {
  const now = clock.now();
  let kicked = 0;
  let overdue = 0;
  for (let start: Record<string, unknown> | undefined, first = true; first || start; first = false) {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': deletionKeys.pendingPartition },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    start = out.LastEvaluatedKey;
    // The index holds the keys only (lib/platform/db/tables.ts projections): the record's id is in its pk.
    for (const entry of (out.Items ?? []) as { pk: string }[]) {
      const d = await getDeletion(deletionIdOf(entry.pk));
      if (!d || d.state !== 'erasing') continue;
      if (now - Date.parse(d.requested_at) > OVERDUE_MS) overdue++;
      if (now - Date.parse(d.updated_at) < STALLED_MS) continue;
      try {
        await db.send(
          new UpdateCommand({
            TableName: TABLE(),
            Key: deletionKeys.deletion(d.id),
            UpdateExpression: 'ADD kick :one',
            ConditionExpression: 'v = :v',
            ExpressionAttributeValues: { ':one': 1, ':v': d.v },
          }),
        );
        kicked++;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }
  }
  for (let i = 0; i < overdue; i++) countMetric('ErasuresOverdue');
  return { kicked, overdue };
}
