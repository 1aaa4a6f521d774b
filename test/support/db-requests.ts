import { db } from '../../lib/platform/db/client.js';

export interface RecordedRequest {
  command: string;
  /** What was sent (TableName, Key, TransactItems, ...), as the document client took it. */
  input: Record<string, unknown>;
  consumedRead: number;
  consumedWrite: number;
  /** DynamoDB refused it (e.g. a condition failed): left out unless asked for. */
  failed: boolean;
}

const recorded: RecordedRequest[] = [];
let installed = false;

const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

/** Capacity units of a response; a total reported only as `CapacityUnits` (DynamoDB Local) counts as the command's kind. */
function capacity(output: unknown, command: string): { read: number; write: number } {
  const cc = (output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
  const list = (Array.isArray(cc) ? cc : cc ? [cc] : []) as { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }[];
  const write = WRITES.test(command);
  return {
    read: list.reduce((s, c) => s + (c.ReadCapacityUnits ?? (write ? 0 : (c.CapacityUnits ?? 0))), 0),
    write: list.reduce((s, c) => s + (c.WriteCapacityUnits ?? (write ? (c.CapacityUnits ?? 0) : 0)), 0),
  };
}

/**
 * Records every request the shared DynamoDB client sends, in the order sent (and the capacity DynamoDB
 * reports); `client`: another client's requests too (the stream processor's `streamDb`).
 */
export function installRequestRecorder(client?: Pick<typeof db, 'middlewareStack'>): void {
  if (!installed) addRecorder(db);
  installed = true;
  if (client && client !== db && !others.has(client)) {
    others.add(client);
    addRecorder(client);
  }
}

const others = new Set<unknown>();

function addRecorder(client: Pick<typeof db, 'middlewareStack'>): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      // Recorded in the order sent (parallel requests complete in any order), capacity filled in on return.
      const request: RecordedRequest = { command: context.commandName ?? 'unknown', input, consumedRead: 0, consumedWrite: 0, failed: false };
      recorded.push(request);
      const result = await next(args).catch((error: unknown) => {
        request.failed = true;
        throw error;
      });
      const { read, write } = capacity(result.output, request.command);
      request.consumedRead = read;
      request.consumedWrite = write;
      return result;
    },
    { step: 'initialize', name: 'expohubRequestRecorder' },
  );
}

/**
 * Runs `fn` and returns what it sent to DynamoDB (requests made concurrently by others are included):
 * the requests that succeeded, or with `includeFailed` every request sent (a write refused by its
 * condition included), which is what positions of fault injection count.
 */
export async function recordRequests<T>(fn: () => Promise<T>, options: { includeFailed?: boolean } = {}): Promise<{ result: T; requests: RecordedRequest[] }> {
  installRequestRecorder();
  const start = recorded.length;
  const result = await fn();
  const requests = recorded.slice(start);
  return { result, requests: options.includeFailed ? requests : requests.filter((r) => !r.failed) };
}
