import { BatchWriteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { recordRequests, type RecordedRequest } from './db-requests.js';
import { clearFaults, failAt, type FaultKind } from './faults.js';
import { settleStreams, type ApiResponse } from './stack.js';
import { currentFilterTerms, forgetCachedFilterTerms } from '../../lib/features/filter/terms.js';

/**
 * A case's fixtures, then the filter's term list read afresh: a function reads it at most once a
 * minute (docs/moderation.md, "Filter"), so without this the run that counts the requests and the
 * faulted runs would not make the same ones. Afresh, right before the call: a list read at the
 * previous case could expire between the setup and the call on a slow machine.
 */
async function setUp<C>(sweep: Pick<FaultSweep<C>, 'setup'>): Promise<C> {
  const ctx = await sweep.setup();
  forgetCachedFilterTerms();
  await currentFilterTerms();
  return ctx;
}

/**
 * Fault sweeps: an operation is run once to count the DynamoDB requests it makes, then once per
 * planned fault (request N fails with a kind), each time on fresh state in empty tables, checking:
 * - the answer is 503 UNAVAILABLE in the contract's envelope with a Retry-After header, or the
 *   normal success when the failed request is one the operation tolerates by design (the sweep
 *   names the reason);
 * - after a 503 nothing is half-written: the whole store (both tables of this test file, every item
 *   and attribute) is exactly what it was before the call;
 * - the same request, sent again once the fault is gone, succeeds and everything happened exactly
 *   once (the operation's own `once` check: counts, items).
 */

type Snapshot = Map<string, string>;

/** JSON with sets sorted and object keys ordered, so that equal items give equal strings. */
function stable(value: unknown): unknown {
  if (value instanceof Set) return { $set: [...value].map(stable).sort() };
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, stable((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

async function scanAll(table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * Every item of this test file's tables (a Scan: fine in a test), keyed by table, pk and sk, once
 * the stream processor has applied what was written before (see settleStreams).
 */
export async function storeSnapshot(): Promise<Snapshot> {
  await settleStreams();
  const snapshot: Snapshot = new Map();
  // Both tables read at the same time (reads only), entered hub first.
  const [hub, apiKeys] = await Promise.all([scanAll(tableNames.hub), scanAll(tableNames.apiKeys)]);
  for (const item of hub) snapshot.set(`hub ${String(item.pk)} | ${String(item.sk)}`, JSON.stringify(stable(item)));
  for (const item of apiKeys) snapshot.set(`api_keys ${String(item.pk)} | ${String(item.sk)}`, JSON.stringify(stable(item)));
  return snapshot;
}

/** Items added, removed or changed between two snapshots (empty when equal), readable in a failure. */
export function snapshotDiff(before: Snapshot, after: Snapshot, ignoreAttributes: (item: string) => readonly string[] = () => []): string[] {
  // An item holding nothing but ignored attributes counts as absent (e.g. a counter a timeout created).
  const strip = (key: string, json: string | undefined) => {
    const ignored = ignoreAttributes(key);
    if (json === undefined || ignored.length === 0) return json;
    const item = JSON.parse(json) as Record<string, unknown>;
    for (const a of ignored) delete item[a];
    return Object.keys(item).every((a) => a === 'pk' || a === 'sk') ? undefined : JSON.stringify(item);
  };
  const diff: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const [a, b] = [strip(key, before.get(key)), strip(key, after.get(key))];
    if (a === b) continue;
    diff.push(a === undefined ? `added ${key}: ${b}` : b === undefined ? `removed ${key}` : `changed ${key}: ${a} -> ${b}`);
  }
  return diff;
}

/** Empties both tables of this test file, so that each case starts from its own fixtures only. */
export async function wipeStore(): Promise<void> {
  for (const table of [tableNames.hub, tableNames.apiKeys]) {
    const keys = (await scanAll(table)).map((i) => ({ pk: i.pk, sk: i.sk }));
    for (let i = 0; i < keys.length; i += 25) {
      let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      while (pending && pending.length > 0) {
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = out.UnprocessedItems?.[table] as Record<string, unknown>[] | undefined;
      }
    }
  }
}

/** The contract's answer to a dependency failure: 503, its envelope, a Retry-After in whole seconds. */
export function expectUnavailable(res: ApiResponse, label: string): void {
  expect(res.status, `${label}: status (body ${JSON.stringify(res.body)})`).toBe(503);
  expect(res.body, label).toEqual({ code: 'UNAVAILABLE', error: expect.any(String) });
  expect(res.headers.get('retry-after'), `${label}: Retry-After`).toMatch(/^[1-9]\d*$/);
  expect(res.headers.get('x-request-id'), label).toBeTruthy();
}

export interface PlannedFault {
  /** Position counted as failAt counts it: among all requests, or among transactions for tx-* kinds. */
  n: number;
  kind: FaultKind;
  /** The request it hits, from the counting run. */
  request: RecordedRequest;
  /** Its position among all requests (1-based). */
  position: number;
}

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);
const isTransaction = (r: RecordedRequest) => r.command === 'TransactWriteItemsCommand';

/**
 * Which faults a sweep injects, chosen to keep the run short while covering every request:
 * - every request once with `throughput` (ProvisionedThroughputExceeded, the usual DynamoDB failure):
 *   each position of the operation fails once;
 * - `throttling` at the first and the last request: it takes the same path as `throughput` (the
 *   error mapper) and the two ends show it does;
 * - `timeout` at every write the operation does not tolerate losing: there a timeout differs (nobody
 *   knows whether the write was applied, so nothing may be compensated as if it had been refused);
 *   and at the first tolerated write (best-effort and retried writes treat every failure alike);
 * - each transaction cancelled once with a ThrottlingError reason and once with a TransactionConflict
 *   reason (the latter is retried by lib/platform/db/transact.ts).
 */
export function planFaults(requests: RecordedRequest[], tolerated: (position: number) => boolean = () => false): PlannedFault[] {
  const plan: PlannedFault[] = [];
  const at = (position: number, kind: FaultKind, n = position) => plan.push({ n, kind, request: requests[position - 1]!, position });
  requests.forEach((_, i) => at(i + 1, 'throughput'));
  at(1, 'throttling');
  if (requests.length > 1) at(requests.length, 'throttling');
  const writes = requests.flatMap((r, i) => (WRITES.has(r.command) ? [i + 1] : []));
  const firstTolerated = writes.find(tolerated);
  for (const position of writes) if (!tolerated(position) || position === firstTolerated) at(position, 'timeout');
  let t = 0;
  requests.forEach((r, i) => {
    if (!isTransaction(r)) return;
    t++;
    at(i + 1, 'tx-throttled', t);
    at(i + 1, 'tx-conflict', t);
  });
  return plan;
}

export interface FaultSweep<C> {
  /** Fresh fixtures for one case (the tables are empty when it runs). */
  setup(): Promise<C>;
  /** The operation under test, as a client sends it. */
  call(ctx: C): Promise<ApiResponse<unknown>>;
  /** The status of success (200 unless said otherwise). */
  status?: number;
  /** After one success (the retry, or a tolerated fault): everything happened exactly once. */
  once(ctx: C, res: ApiResponse<unknown>): Promise<void>;
  /**
   * The reason the operation answers success although `fault` failed (a best-effort write, a read
   * after the commit), or undefined when it must answer 503. `requests` is the counting run.
   */
  tolerates?(fault: PlannedFault, requests: RecordedRequest[]): string | undefined;
  /**
   * What a failed call may leave changed although it answered 503, and the documented reason: the
   * `attributes` of the item named `hub|api_keys <pk> | <sk>` that `fault` may change (e.g. a
   * sequence number a timed-out write may have used, skipped for good).
   */
  mayChange?: { why: string; attributes(item: string, fault: PlannedFault): string[] };
  /** Why the operation answers success when its last write committed but the answer was lost (it checks), if it does. */
  recognizesLostCommit?: string;
  /** Faults go only at the requests this admits (the part under test; another sweep covers the rest). All of them when absent. */
  within?(request: RecordedRequest, position: number): boolean;
}

export interface SweepReport {
  requests: string[];
  cases: number;
  tolerated: string[];
}

/** Runs the sweep (see the top of this file); returns what was injected, for the test to assert on. */
export async function sweepFaults<C>(sweep: FaultSweep<C>): Promise<SweepReport> {
  const status = sweep.status ?? 200;
  await wipeStore();
  const counting = await setUp(sweep);
  const { result, requests } = await recordRequests(() => sweep.call(counting), { includeFailed: true });
  expect(result.status, `counting run: ${JSON.stringify(result.body)}`).toBe(status);
  await sweep.once(counting, result);

  const tolerated: string[] = [];
  const plan = planFaults(requests, (position) => !!sweep.tolerates?.({ n: position, kind: 'throughput', request: requests[position - 1]!, position }, requests)).filter(
    (planned) => sweep.within?.(planned.request, planned.position) ?? true,
  );
  for (const planned of plan) {
    const label = `${planned.kind} at request ${planned.position} (${planned.request.command})`;
    await wipeStore();
    const ctx = await setUp(sweep);
    const before = await storeSnapshot();
    const fault = failAt(planned.n, planned.kind);
    const res = await sweep.call(ctx).finally(clearFaults);
    expect(fault.fired, `${label}: the fault fired on the planned request`).toBe(planned.request.command);

    const reason = planned.kind === 'tx-conflict' ? 'a cancelled-by-conflict transaction is retried (lib/platform/db/transact.ts)' : sweep.tolerates?.(planned, requests);
    if (reason) {
      expect(res.status, `${label}: tolerated (${reason}), body ${JSON.stringify(res.body)}`).toBe(status);
      await sweep.once(ctx, res);
      tolerated.push(`${label}: ${reason}`);
      continue;
    }
    expectUnavailable(res, label);
    const ignore = (item: string) => sweep.mayChange?.attributes(item, planned) ?? [];
    expect(snapshotDiff(before, await storeSnapshot(), ignore), `${label}: nothing half-written`).toEqual([]);

    const retried = await sweep.call(ctx);
    expect(retried.status, `${label}: the retry succeeds, body ${JSON.stringify(retried.body)}`).toBe(status);
    await sweep.once(ctx, retried);
  }
  return { requests: requests.map((r) => r.command), cases: plan.length, tolerated };
}

/**
 * The answer to the operation's commit (its last transaction, or its last write when it has none) is
 * lost: a timeout after DynamoDB applied it. The client sees 503 and sends the same request again,
 * which must do nothing twice (the operation's `once`).
 */
export async function retryAfterLostAnswer<C>(sweep: FaultSweep<C>): Promise<void> {
  const status = sweep.status ?? 200;
  await wipeStore();
  const counting = await setUp(sweep);
  const { requests } = await recordRequests(() => sweep.call(counting), { includeFailed: true });
  const commands = requests.map((r) => r.command);
  const lastWrite = (commands.includes('TransactWriteItemsCommand') ? commands.lastIndexOf('TransactWriteItemsCommand') : requests.map((r) => WRITES.has(r.command)).lastIndexOf(true)) + 1;
  expect(lastWrite, 'the operation writes').toBeGreaterThan(0);

  await wipeStore();
  const ctx = await setUp(sweep);
  const lost = failAt(lastWrite, 'timeout', { applied: true });
  const res = await sweep.call(ctx).finally(clearFaults);
  expect(lost.fired).toBe(requests[lastWrite - 1]!.command);
  if (sweep.recognizesLostCommit) {
    expect(res.status, `answer of request ${lastWrite} lost, recognized (${sweep.recognizesLostCommit}): body ${JSON.stringify(res.body)}`).toBe(status);
    await sweep.once(ctx, res);
  } else {
    expectUnavailable(res, `answer of request ${lastWrite} lost`);
  }
  const retried = await sweep.call(ctx);
  expect(retried.status, `the retry succeeds, body ${JSON.stringify(retried.body)}`).toBe(status);
  await sweep.once(ctx, retried);
}
