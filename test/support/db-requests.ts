import { db } from '../../lib/db/client.js';

export interface RecordedRequest {
  command: string;
  consumedRead: number;
  consumedWrite: number;
}

const recorded: RecordedRequest[] = [];
let installed = false;

function capacity(output: unknown): { read: number; write: number } {
  const cc = (output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
  const list = (Array.isArray(cc) ? cc : cc ? [cc] : []) as { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number }[];
  return {
    read: list.reduce((s, c) => s + (c.ReadCapacityUnits ?? 0), 0),
    write: list.reduce((s, c) => s + (c.WriteCapacityUnits ?? 0), 0),
  };
}

/** Counts every request the shared DynamoDB client sends (and the capacity DynamoDB reports). */
export function installRequestRecorder(): void {
  if (installed) return;
  installed = true;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      const { read, write } = capacity(result.output);
      recorded.push({ command: context.commandName ?? 'unknown', consumedRead: read, consumedWrite: write });
      return result;
    },
    { step: 'initialize', name: 'expohubRequestRecorder' },
  );
}

/** Runs `fn` and returns what it sent to DynamoDB (requests made concurrently by others are included). */
export async function recordRequests<T>(fn: () => Promise<T>): Promise<{ result: T; requests: RecordedRequest[] }> {
  installRequestRecorder();
  const start = recorded.length;
  const result = await fn();
  return { result, requests: recorded.slice(start) };
}
