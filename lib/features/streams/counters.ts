import { clock } from '../../platform/clock.js';
import { createDocumentClient, tableNames } from '../../platform/db/client.js';
import { accountCounterDelta } from '../../entities/accounts/accounts.js';
import { videoCounterDelta } from '../../entities/catalog/videos.js';
import { commentGapDelta } from '../../entities/comments/comments.js';
import { cancellationCode, MAX_TRANSACTION_ITEMS, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { logger } from '../../platform/logger.js';
import { factOf, type ChangeRecord, type Fact } from './facts.js';
import { dueTrendKeys, moveTrendKeys } from './trend-keys.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const streamKeys = {
  /** "Stream record `eventId` has been applied": written with its counter deltas in one transaction, with a TTL. */
  streamApplied: (eventId: string) => ({ pk: `STREAMED#${eventId}`, sk: 'APPLIED' }),
};


/**
 * Derived counters, applied from the hub table's change stream (docs/data-model.md, "Counters").
 *
 * A like or a comment commits alone (its own items and the actor's exact counters); the numbers
 * every other reaction also moves (a video's like_count, comment_count and trend, the trend on its
 * tag ranking items, the author's liked_count) follow here. Many facts on one video become ONE
 * update of the video per batch, instead of one transaction per fact contending on the same item.
 *
 * Exactly once: each record's deltas commit in one transaction with a marker item named by the
 * record's eventID (conditional on not existing). A batch delivered again (Lambda retries, the local
 * poller starting over) finds its markers and adds nothing twice; a record whose marker exists is
 * dropped and the rest of its chunk applied. Markers expire after MARKER_TTL_S, well past the
 * stream's 24 h retention, after which a record can no longer be delivered.
 */

/** Its own client: the processor is a function of its own in AWS, and tests count the hub's requests apart from it. */
export const streamDb = createDocumentClient();
const TABLE = () => tableNames.hub;
const MARKER_TTL_S = 3 * 86_400;
/**
 * The most numbers a comment sequence's `gaps` may hold (docs/data-model.md, "Comment numbers"):
 * about 5 bytes each, so the item stays under 6 KB. Only failed writes make gaps; past the cap a gap
 * is not recorded (logged), rather than growing the item until its update fails for every record
 * of the video.
 */
export const MAX_COMMENT_GAPS = 1000;

type Key = { pk: string; sk: string };

interface Target {
  key: Key;
  /** Number attributes and the amount added to each. */
  add: Map<string, number>;
  /** Numbers added to a number set (a comment sequence's gaps), while it holds fewer than `cap`. */
  addToSet?: { attribute: string; values: Set<number>; cap: number };
  /** An ADD must not create the item (a video or an account that is gone, or deleted, is left alone). */
  mustExist: boolean;
}

interface Applicable {
  eventId: string;
  fact: Fact;
  /** The record's position in the batch. */
  index: number;
}

const keyId = (key: Key) => `${key.pk}|${key.sk}`;

/** Every counter a fact moves, with its delta. */
function deltasOf(fact: Fact): { key: Key; attribute: string; delta: number; mustExist: boolean; set?: boolean }[] {
  switch (fact.kind) {
    case 'like': {
      const { like, sign } = fact;
      const trend = sign * (like.trend_add ?? 0);
      return [
        { ...videoCounterDelta(like.vid, 'like_count', sign), mustExist: true },
        // The exact trend, in no index: its key (gsi3sk, and the tag rankings' copies) follows at most once per interval (trend-keys.ts).
        { ...videoCounterDelta(like.vid, 'trend', trend), mustExist: true },
        { ...accountCounterDelta(like.author_openid, 'liked_count', sign), mustExist: true },
      ];
    }
    case 'comment':
      return [{ ...videoCounterDelta(fact.comment.vid, 'comment_count', fact.sign), mustExist: true }];
    case 'comment_gap':
      return [{ ...commentGapDelta(fact.comment.vid, fact.comment.seq), mustExist: false, set: true }];
  }
}

/** The deltas of several facts summed per item: one update per video, account or tag item. */
function targetsOf(facts: Applicable[], gone: Set<string>): Target[] {
  const targets = new Map<string, Target>();
  for (const { fact } of facts) {
    for (const d of deltasOf(fact)) {
      const id = keyId(d.key);
      if (gone.has(id)) continue;
      let target = targets.get(id);
      if (!target) targets.set(id, (target = { key: d.key, add: new Map(), mustExist: d.mustExist }));
      if (d.set) {
        target.addToSet ??= { attribute: d.attribute, values: new Set(), cap: MAX_COMMENT_GAPS };
        target.addToSet.values.add(d.delta);
      } else {
        target.add.set(d.attribute, (target.add.get(d.attribute) ?? 0) + d.delta);
      }
    }
  }
  // Deltas that cancel out (a like and its removal in one batch) write nothing.
  for (const target of targets.values()) for (const [attribute, sum] of target.add) if (sum === 0) target.add.delete(attribute);
  return [...targets.values()].filter((t) => t.add.size > 0 || t.addToSet);
}

function updateOf(target: Target): TransactItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  let n = 0;
  const sets: string[] = [];
  for (const [attribute, delta] of target.add) {
    names[`#a${n}`] = attribute;
    values[`:v${n}`] = delta;
    // The exact trend starts from the key on items written before it existed (no migration).
    if (attribute === 'trend') {
      sets.push(`#a${n} = if_not_exists(#a${n}, if_not_exists(gsi3sk, :zero)) + :v${n}`);
      values[':zero'] = 0;
    } else clauses.push(`#a${n} :v${n}`);
    n++;
  }
  // A deleted account's item (lib/features/deletion/deletion.ts) counts nothing more: its tombstone stays bare.
  const conditions = target.mustExist ? ['attribute_exists(pk)', 'attribute_not_exists(deleted_at)'] : [];
  if (target.addToSet) {
    names[`#a${n}`] = target.addToSet.attribute;
    values[`:v${n}`] = target.addToSet.values;
    values[':cap'] = target.addToSet.cap;
    clauses.push(`#a${n} :v${n}`);
    conditions.push(`(attribute_not_exists(#a${n}) OR size(#a${n}) < :cap)`);
  }
  return {
    Update: {
      TableName: TABLE(),
      Key: target.key,
      UpdateExpression: [sets.length > 0 ? `SET ${sets.join(', ')}` : '', clauses.length > 0 ? `ADD ${clauses.join(', ')}` : ''].filter(Boolean).join(' '),
      ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

const markerOf = (eventId: string, expiresAt: number): TransactItem => ({
  Put: {
    TableName: TABLE(),
    Item: { ...streamKeys.streamApplied(eventId), entity: 'stream_applied', ttl: expiresAt },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * Applies one chunk (markers and targets within one transaction) and returns the facts it applied
 * now: without those already applied by an earlier delivery.
 */
async function applyChunk(chunk: Applicable[]): Promise<Applicable[]> {
  let pending = chunk;
  const gone = new Set<string>();
  const expiresAt = Math.ceil(clock.now() / 1000) + MARKER_TTL_S;
  for (;;) {
    if (pending.length === 0) return [];
    const targets = targetsOf(pending, gone);
    const items = [...pending.map((f) => markerOf(f.eventId, expiresAt)), ...targets.map(updateOf)];
    try {
      await transactWrite(items, 6, streamDb);
      return pending;
    } catch (error) {
      const failed = (i: number) => cancellationCode(error, i) === 'ConditionalCheckFailed';
      const applied = new Set(pending.filter((_, i) => failed(i)));
      const missing = targets.filter((_, j) => failed(pending.length + j));
      if (applied.size === 0 && missing.length === 0) throw error;
      for (const target of missing) {
        gone.add(keyId(target.key));
        if (target.addToSet) logger.error('comment gaps at their cap: gaps not recorded', { key: target.key.pk, gaps: [...target.addToSet.values].length });
      }
      pending = pending.filter((f) => !applied.has(f));
    }
  }
}

/**
 * What orders a batch's facts before they are cut into transactions: an author's likes together, a
 * video's together within them, a video's comments together. A transaction holds at most 100 items
 * (one marker per record, one update per distinct item), so a batch is one or more transactions;
 * grouped this way an author or a video that many records of the batch move is updated in as few of
 * them as fit (one when its records and their items fit in one), instead of once per record.
 */
function groupOf(fact: Fact): string {
  if (fact.kind === 'like') return `A ${fact.like.author_openid} V ${fact.like.vid}`;
  return `V ${fact.comment.vid}`;
}

/**
 * Splits facts into chunks whose markers and distinct targets fit in one transaction. A group
 * (groupOf: one author's likes of one video, one video's comments) starts a new chunk rather than
 * straddle two, unless it is too big for one by itself.
 */
function chunksOf(facts: Applicable[]): Applicable[][] {
  const grouped = facts.map((f) => ({ f, group: groupOf(f.fact), keys: deltasOf(f.fact).map((d) => keyId(d.key)) }));
  grouped.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : a.f.index - b.f.index));
  const chunks: Applicable[][] = [];
  let current: Applicable[] = [];
  let targets = new Set<string>();
  const fits = (count: number, keys: Set<string>) => count + keys.size <= MAX_TRANSACTION_ITEMS;
  for (let start = 0; start < grouped.length; ) {
    let end = start + 1;
    while (end < grouped.length && grouped[end]!.group === grouped[start]!.group) end++;
    const group = grouped.slice(start, end);
    if (current.length > 0 && !fits(current.length + group.length, new Set([...targets, ...group.flatMap((g) => g.keys)]))) {
      chunks.push(current);
      [current, targets] = [[], new Set()];
    }
    for (const { f, keys } of group) {
      const merged = new Set([...targets, ...keys]);
      if (current.length > 0 && !fits(current.length + 1, merged)) {
        chunks.push(current);
        [current, targets] = [[], new Set(keys)];
      } else {
        targets = merged;
      }
      current.push(f);
    }
    start = end;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export interface BatchOutcome {
  /** Records applied by this call (not counting those an earlier delivery had applied). */
  applied: number;
  /** The sequence number of the first record not applied, when a chunk failed: Lambda retries from it. */
  failedFrom?: string;
  error?: unknown;
}

/**
 * Applies the derived counters of a batch of stream records, chunk by chunk (grouped: groupOf). A
 * chunk that fails stops the batch: the records from the earliest one not applied (in the batch's
 * order) on are reported failed and delivered again (by Lambda, or by the local poller); those of
 * them that a chunk before the failure applied find their markers then and add nothing.
 */
export async function applyChangeRecords(records: ChangeRecord[], options: { moveKeys?: (vids: string[]) => Promise<unknown> } = {}): Promise<BatchOutcome> {
  const facts: Applicable[] = [];
  for (const [index, record] of records.entries()) {
    const fact = factOf(record);
    if (fact && record.eventID) facts.push({ eventId: record.eventID, fact, index });
  }
  let applied = 0;
  let outcome: BatchOutcome | undefined;
  const trendChanged = new Set<string>();
  const chunks = chunksOf(facts);
  for (const [n, chunk] of chunks.entries()) {
    try {
      const done = await applyChunk(chunk);
      applied += done.length;
      for (const { fact } of done) if (fact.kind === 'like') trendChanged.add(fact.like.vid);
    } catch (error) {
      const first = Math.min(...chunks.slice(n).flat().map((f) => f.index));
      outcome = { applied, failedFrom: records[first]!.dynamodb?.SequenceNumber, error };
      break;
    }
  }
  // The trend keys of what was applied, and of this container's pending videos now due: never fails
  // the batch (trend-keys.ts). Only on batches of facts, as the deployed mapping's filter invokes.
  if (facts.length > 0) await (options.moveKeys ?? moveDueTrendKeys)([...trendChanged]).catch((error: unknown) => logger.error('trend keys not moved', { error: (error as Error).name }));
  return outcome ?? { applied };
}

/** The processor's trend keys after a batch: those due among the videos it changed and its pending ones (trend-keys.ts). */
export const moveDueTrendKeys = async (vids: string[]) => moveTrendKeys(streamDb, await dueTrendKeys(streamDb, vids));
