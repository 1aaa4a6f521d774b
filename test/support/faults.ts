import { ProvisionedThroughputExceededException, ThrottlingException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { db } from '../../lib/platform/db/client.js';

/**
 * Fault injection on the shared DynamoDB client (lib/platform/db/client.ts `db`): the N-th request sent after
 * `failAt` fails the way AWS makes it fail, and every other request reaches DynamoDB Local untouched.
 * Nothing of our code is replaced: the handlers, the authorizer and the stores run as deployed.
 *
 * The middleware sits at the top of the client's stack (step `initialize`), above the SDK's own
 * retries, so an injected fault is what our code sees once the SDK has given up: a throttle that
 * outlasted its attempts, a timeout on every attempt, a cancelled transaction (which the SDK does not
 * retry). A fault fires once; the request after it goes through again.
 *
 * Kinds, each with the error class, name, `$fault` and `$metadata` the SDK gives it:
 * - `throughput`: ProvisionedThroughputExceededException (a table or index over its capacity).
 * - `throttling`: ThrottlingException (request rate over the account's or table's limit).
 * - `timeout`: TimeoutError as @smithy/node-http-handler raises it; by default the request never
 *   reached DynamoDB. With `{ applied: true }` it did and was applied, and only the answer was lost
 *   (a socket timeout after the write): the case a retry guard exists for.
 * - `tx-throttled` / `tx-conflict`: TransactionCanceledException whose reasons hold `ThrottlingError`
 *   / `TransactionConflict` for one item (`None` for the others). These count transactions only:
 *   `failAt(2, 'tx-conflict')` cancels the operation's second TransactWriteItems.
 */
export const FAULT_KINDS = ['throughput', 'throttling', 'timeout', 'tx-throttled', 'tx-conflict'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  readonly kind: FaultKind;
  readonly at: number;
  readonly applied: boolean;
  /** The command that was made to fail (e.g. `TransactWriteItemsCommand`), once the fault fired. */
  fired?: string;
  /** The failed request's input (TableName, Key, TransactItems, ...), once the fault fired. */
  input?: Record<string, unknown>;
  /** How many requests it failed (1 for failAt; any number for failWhere). */
  failures: number;
}

interface Armed {
  fault: Fault;
  /** Matching requests seen since arming. */
  seen: number;
  /** Fails every matching request instead of the N-th only (see failWhere). */
  match?: (command: string, input: Record<string, unknown>) => boolean;
  /** With `match`: fail only the first that many. */
  times?: number;
}

const TRANSACTIONS = new Set(['TransactWriteItemsCommand', 'TransactGetItemsCommand']);
const isTransactionKind = (kind: FaultKind) => kind === 'tx-throttled' || kind === 'tx-conflict';

let armed: Armed | undefined;
let installed = false;
let requestIds = 0;

/** What every SDK service error carries: the HTTP status DynamoDB answered and the attempts made. */
const metadata = (status: number) => ({ httpStatusCode: status, requestId: `FAULT${++requestIds}`, attempts: 3, totalRetryDelay: 0 });

function faultError(kind: FaultKind, input: Record<string, unknown>): Error {
  switch (kind) {
    case 'throughput':
      return new ProvisionedThroughputExceededException({
        message: 'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.',
        $metadata: metadata(400),
      });
    case 'throttling':
      return new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: metadata(400) });
    case 'timeout':
      // No $metadata.httpStatusCode: no answer came back, so nobody knows whether it was applied.
      return Object.assign(new Error('@smithy/node-http-handler - the request socket timed out after 3000 ms of inactivity (configured by client requestHandler).'), {
        name: 'TimeoutError',
        $metadata: { attempts: 3, totalRetryDelay: 0 },
      });
    case 'tx-throttled':
    case 'tx-conflict': {
      const items = Array.isArray(input.TransactItems) ? input.TransactItems.length : 1;
      const code = kind === 'tx-throttled' ? 'ThrottlingError' : 'TransactionConflict';
      const message = kind === 'tx-throttled' ? 'Throughput exceeds the current capacity of your table or index.' : 'Transaction is ongoing for the item';
      // The last item is the one that could not be written: item 0 is often a guard the code inspects.
      const reasons = Array.from({ length: items }, (_, i) => (i === items - 1 ? { Code: code, Message: message } : { Code: 'None' }));
      return new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
        CancellationReasons: reasons,
        $metadata: metadata(400),
      });
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  addFaultInjection(db);
}

/**
 * Arms another client with the same faults (the stream processor's own, lib/features/streams/counters.ts
 * `streamDb`): from then on the positions of failAt count that client's requests too.
 */
export function injectFaultsInto(client: Pick<typeof db, 'middlewareStack'>): void {
  install();
  addFaultInjection(client);
}

function addFaultInjection(client: Pick<typeof db, 'middlewareStack'>): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const current = armed;
      const command = context.commandName ?? 'unknown';
      const input = args.input as Record<string, unknown>;
      if (!current || (isTransactionKind(current.fault.kind) && !TRANSACTIONS.has(command))) return next(args);
      if (current.match ? !current.match(command, input) || (current.times !== undefined && current.fault.failures >= current.times) : ++current.seen !== current.fault.at) return next(args);
      current.fault.fired ??= command;
      current.fault.input ??= input;
      current.fault.failures++;
      if (current.fault.applied) await next(args);
      throw faultError(current.fault.kind, input);
    },
    // Above the request recorder and the SDK's retries: see the comment at the top.
    { step: 'initialize', priority: 'high', name: 'expohubFaultInjection' },
  );
}

/**
 * Makes the `n`-th request from now (the `n`-th transaction for the tx-* kinds) fail with `kind`.
 * Replaces any fault armed before. Check `fired` afterwards: a fault that never fired tested nothing.
 */
export function failAt(n: number, kind: FaultKind, options: { applied?: boolean } = {}): Fault {
  install();
  if (!Number.isInteger(n) || n < 1) throw new Error(`failAt: n must be a positive integer, got ${n}`);
  if (options.applied && kind !== 'timeout') throw new Error('failAt: only a timeout can hide an applied request');
  const fault: Fault = { kind, at: n, applied: options.applied ?? false, failures: 0 };
  armed = { fault, seen: 0 };
  return fault;
}

/**
 * Makes EVERY request that `match` accepts fail with `kind` until clearFaults: a dependency that stays
 * down. `times`: only the first that many (a request picked by what it is, not by its position, which
 * a cache read or not read would move); `applied`: a timeout whose request was applied.
 */
export function failWhere(kind: FaultKind, match: (command: string, input: Record<string, unknown>) => boolean, options: { times?: number; applied?: boolean } = {}): Fault {
  install();
  if (options.applied && kind !== 'timeout') throw new Error('failWhere: only a timeout can hide an applied request');
  const fault: Fault = { kind, at: 0, applied: options.applied ?? false, failures: 0 };
  armed = { fault, seen: 0, match, times: options.times };
  return fault;
}

export function clearFaults(): void {
  armed = undefined;
}

/**
 * An index that lags behind its table, as a global secondary index may in AWS (DynamoDB Local's are
 * immediately consistent): every Query of an index (`IndexName`) whose input `match` accepts answers
 * without the items `hides` picks, as if they had not reached the index yet, until clearIndexLag.
 * `hidden` counts the items it held back: a lag that hid nothing tested nothing.
 */
export interface IndexLag {
  hidden: number;
}

let lagging: { lag: IndexLag; match: (input: Record<string, unknown>) => boolean; hides: (item: Record<string, unknown>) => boolean } | undefined;
let lagInstalled = false;

export function lagIndex(match: (input: Record<string, unknown>) => boolean, hides: (item: Record<string, unknown>) => boolean = () => true): IndexLag {
  if (!lagInstalled) {
    lagInstalled = true;
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const input = args.input as Record<string, unknown>;
        const current = lagging;
        if (!current || context.commandName !== 'QueryCommand' || typeof input.IndexName !== 'string' || !current.match(input)) return result;
        const output = result.output as { Items?: Record<string, unknown>[]; Count?: number };
        const kept = (output.Items ?? []).filter((item) => !current.hides(item));
        current.lag.hidden += (output.Items ?? []).length - kept.length;
        output.Items = kept;
        output.Count = kept.length;
        return result;
      },
      // Where the fault injection sits (above the document client's unmarshalling): plain items.
      { step: 'initialize', priority: 'high', name: 'expohubIndexLag' },
    );
  }
  const lag: IndexLag = { hidden: 0 };
  lagging = { lag, match, hides };
  return lag;
}

export function clearIndexLag(): void {
  lagging = undefined;
}
