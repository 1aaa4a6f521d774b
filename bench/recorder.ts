import { db } from '../lib/platform/db/client.js';

/**
 * Counts every request the shared DynamoDB client (lib/platform/db/client.ts) sends while recording is on,
 * with the capacity DynamoDB reports (`ReturnConsumedCapacity: 'TOTAL'`) and the phase that sent it
 * (authorizer or function). Off, it adds nothing to the request.
 */
export interface DbRequest {
  phase: string;
  command: string;
  kind: 'read' | 'write';
  /** Capacity units DynamoDB reported, or undefined when it reported none (e.g. a failed condition). */
  capacity: number | undefined;
  /** The error name when the request failed (ConditionalCheckFailedException, ...). */
  failed?: string;
}

const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

let installed = false;
let active: DbRequest[] | undefined;
let phase = 'function';

function reportedCapacity(output: unknown): number | undefined {
  const cc = (output as { ConsumedCapacity?: unknown } | undefined)?.ConsumedCapacity;
  const list = (Array.isArray(cc) ? cc : cc ? [cc] : []) as { CapacityUnits?: number }[];
  if (list.length === 0) return undefined;
  return list.reduce((s, c) => s + (c.CapacityUnits ?? 0), 0);
}

export function installRecorder(): void {
  if (installed) return;
  installed = true;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const log = active;
      if (!log) return next(args);
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const command = context.commandName ?? 'unknown';
      const entry: DbRequest = { phase, command, kind: READS.has(command) ? 'read' : 'write', capacity: undefined };
      log.push(entry);
      try {
        const result = await next(args);
        entry.capacity = reportedCapacity(result.output);
        return result;
      } catch (error) {
        entry.failed = (error as Error).name;
        entry.capacity = reportedCapacity(error);
        throw error;
      }
    },
    { step: 'initialize', name: 'expohubBenchRecorder' },
  );
}

/** Runs `fn` with recording on; requests are attributed to `setPhase`'s current phase. */
export async function recordDb<T>(fn: () => Promise<T>): Promise<{ result: T; requests: DbRequest[] }> {
  installRecorder();
  const requests: DbRequest[] = [];
  const previous = active;
  active = requests;
  try {
    return { result: await fn(), requests };
  } finally {
    active = previous;
    phase = 'function';
  }
}

export function setPhase(name: string): void {
  phase = name;
}

export interface CostFigures {
  requests: number;
  reads: number;
  writes: number;
  rcu: number;
  wcu: number;
  /** Requests for which DynamoDB reported no capacity. */
  unreported: number;
  commands: string;
}

const SHORT: Record<string, string> = {
  GetItemCommand: 'Get',
  QueryCommand: 'Query',
  ScanCommand: 'SCAN',
  BatchGetItemCommand: 'BatchGet',
  TransactGetItemsCommand: 'TxGet',
  PutItemCommand: 'Put',
  UpdateItemCommand: 'Update',
  DeleteItemCommand: 'Delete',
  BatchWriteItemCommand: 'BatchWrite',
  TransactWriteItemsCommand: 'TxWrite',
};

export function costOf(requests: DbRequest[]): CostFigures {
  const sum = (kind: 'read' | 'write') => requests.filter((r) => r.kind === kind).reduce((s, r) => s + (r.capacity ?? 0), 0);
  return {
    requests: requests.length,
    reads: requests.filter((r) => r.kind === 'read').length,
    writes: requests.filter((r) => r.kind === 'write').length,
    rcu: sum('read'),
    wcu: sum('write'),
    unreported: requests.filter((r) => r.capacity === undefined).length,
    commands: requests.map((r) => (SHORT[r.command] ?? r.command) + (r.failed ? '!' : '')).join(' '),
  };
}
