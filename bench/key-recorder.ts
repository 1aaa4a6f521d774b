import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db } from '../lib/platform/db/client.js';

/**
 * Attributes the capacity of every request on the shared DynamoDB client to the keys it touched:
 * each base-table item and partition key, and each GSI partition key the write landed on or the
 * Query read. Capacity comes from DynamoDB itself (`ReturnConsumedCapacity: 'INDEXES'`: per table
 * and per index); within one request it is shared among the items by their size, the way DynamoDB
 * charges (1 KB per write unit, 4 KB per read unit). To know an item's size and index keys after an
 * UpdateItem, the recorder reads the item (before and after the request) on a client of its own,
 * which is not recorded.
 */

type Item = Record<string, unknown>;

export interface KeyLoad {
  /** `<table> <pk>` for a base-table partition, `<table>/<index> <gsi pk>` for an index partition. */
  partition: string;
  rcu: number;
  wcu: number;
  requests: number;
}

export interface ItemLoad {
  /** `<table> <pk> | <sk>` */
  item: string;
  rcu: number;
  wcu: number;
}

export interface KeyLedger {
  partitions: Map<string, KeyLoad>;
  items: Map<string, ItemLoad>;
  requests: number;
}

interface IndexShape {
  hash: string;
  range?: string;
  /** Attributes the index holds besides the keys: 'ALL', or a list (KEYS_ONLY: empty). */
  projected: 'ALL' | string[];
}

interface TableShape {
  hash: string;
  range?: string;
  indexes: Map<string, IndexShape>;
}

const shapes = new Map<string, TableShape>();
let side: DynamoDBDocumentClient | undefined;
let installed = false;
let active: KeyLedger | undefined;
let pending: Promise<void>[] = [];

export function newLedger(): KeyLedger {
  return { partitions: new Map(), items: new Map(), requests: 0 };
}

/** Describes the tables once (their key attributes and each index's partition key). */
export async function prepareKeyRecorder(endpoint: string, tables: string[]): Promise<void> {
  const raw = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  side = DynamoDBDocumentClient.from(raw);
  for (const table of tables) {
    const { Table } = await raw.send(new DescribeTableCommand({ TableName: table }));
    const keyOf = (schema: { AttributeName?: string; KeyType?: string }[] | undefined, type: string) => schema?.find((k) => k.KeyType === type)?.AttributeName;
    shapes.set(table, {
      hash: keyOf(Table?.KeySchema, 'HASH')!,
      range: keyOf(Table?.KeySchema, 'RANGE'),
      indexes: new Map(
        (Table?.GlobalSecondaryIndexes ?? []).map((g) => [
          g.IndexName!,
          {
            hash: keyOf(g.KeySchema, 'HASH')!,
            range: keyOf(g.KeySchema, 'RANGE'),
            projected: g.Projection?.ProjectionType === 'ALL' ? 'ALL' : (g.Projection?.NonKeyAttributes ?? []),
          },
        ]),
      ),
    });
  }
}

/** Approximate DynamoDB item size: attribute names plus values (strings as UTF-8, numbers ~ digits/2). */
export function itemSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((s: number, v) => s + itemSize(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((s: number, v) => s + 1 + itemSize(v), 0);
  return 3 + Object.entries(value as Item).reduce((s, [k, v]) => s + Buffer.byteLength(k) + 1 + itemSize(v), 0);
}

/** A key or item as the command carried it: plain (document client) or marshalled (base client). */
function plain(item: Item | undefined): Item | undefined {
  if (!item) return undefined;
  const first = Object.values(item)[0];
  const marshalled = first !== null && typeof first === 'object' && !Array.isArray(first) && !(first instanceof Set) && Object.keys(first as object).length === 1 && /^(S|N|B|SS|NS|BS|M|L|BOOL|NULL)$/.test(Object.keys(first as object)[0]!);
  return marshalled ? unmarshall(item as never) : item;
}

interface Touch {
  table: string;
  key: Item;
  /** The item as it was before and is after the request (undefined when absent). */
  before?: Item;
  after?: Item;
  /** Known from the request itself (PutItem's item). */
  given?: Item;
}

function keyOf(table: string, item: Item): Item {
  const shape = shapes.get(table);
  if (!shape) return item;
  const key: Item = { [shape.hash]: item[shape.hash] };
  if (shape.range) key[shape.range] = item[shape.range];
  return key;
}

function writesOf(command: string, input: Item): Touch[] {
  const touches: Touch[] = [];
  const add = (table: string, key: Item | undefined, given?: Item) => key && touches.push({ table, key: keyOf(table, key), given });
  if (command === 'PutItemCommand') add(input.TableName as string, plain(input.Item as Item), plain(input.Item as Item));
  else if (command === 'UpdateItemCommand' || command === 'DeleteItemCommand') add(input.TableName as string, plain(input.Key as Item));
  else if (command === 'TransactWriteItemsCommand') {
    for (const t of (input.TransactItems as Item[]) ?? []) {
      const [kind, body] = Object.entries(t)[0] as [string, Item];
      if (kind === 'Put') add(body.TableName as string, plain(body.Item as Item), plain(body.Item as Item));
      else add(body.TableName as string, plain(body.Key as Item));
    }
  } else if (command === 'BatchWriteItemCommand') {
    for (const [table, list] of Object.entries((input.RequestItems as Record<string, Item[]>) ?? {})) {
      for (const r of list) {
        const put = (r.PutRequest as Item | undefined)?.Item as Item | undefined;
        if (put) add(table, plain(put), plain(put));
        else add(table, plain((r.DeleteRequest as Item | undefined)?.Key as Item));
      }
    }
  }
  return touches;
}

function readsOf(command: string, input: Item, output: Item | undefined): Touch[] {
  const touches: Touch[] = [];
  if (command === 'GetItemCommand') {
    const table = input.TableName as string;
    touches.push({ table, key: plain(input.Key as Item)!, after: plain(output?.Item as Item | undefined) });
  } else if (command === 'BatchGetItemCommand') {
    const responses = (output?.Responses as Record<string, Item[]> | undefined) ?? {};
    for (const [table, request] of Object.entries((input.RequestItems as Record<string, { Keys: Item[] }>) ?? {})) {
      const found = new Map((responses[table] ?? []).map((i) => plain(i)!).map((i) => [JSON.stringify(keyOf(table, i)), i]));
      for (const k of request.Keys ?? []) {
        const key = keyOf(table, plain(k)!);
        touches.push({ table, key, after: found.get(JSON.stringify(key)) });
      }
    }
  }
  return touches;
}

function bump(ledger: KeyLedger, partition: string, rcu: number, wcu: number, request: boolean): void {
  const load = ledger.partitions.get(partition) ?? { partition, rcu: 0, wcu: 0, requests: 0 };
  load.rcu += rcu;
  load.wcu += wcu;
  if (request) load.requests += 1;
  ledger.partitions.set(partition, load);
}

function bumpItem(ledger: KeyLedger, table: string, key: Item, rcu: number, wcu: number): void {
  const shape = shapes.get(table);
  const name = `${table} ${String(key[shape?.hash ?? 'pk'])} | ${String(key[shape?.range ?? 'sk'] ?? '')}`;
  const load = ledger.items.get(name) ?? { item: name, rcu: 0, wcu: 0 };
  load.rcu += rcu;
  load.wcu += wcu;
  ledger.items.set(name, load);
}

interface Consumed {
  TableName?: string;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

function consumedByTable(output: Item | undefined): Map<string, Consumed> {
  const cc = output?.ConsumedCapacity as Consumed | Consumed[] | undefined;
  const list = Array.isArray(cc) ? cc : cc ? [cc] : [];
  return new Map(list.map((c) => [c.TableName ?? '', c]));
}

/** Shares `units` among touches by weight; returns each touch's share. */
function share(units: number, weights: number[]): number[] {
  const total = weights.reduce((s, w) => s + w, 0);
  return weights.map((w) => (total > 0 ? (units * w) / total : 0));
}

function attribute(ledger: KeyLedger, kind: 'read' | 'write', touches: Touch[], consumed: Map<string, Consumed>): void {
  const byTable = new Map<string, Touch[]>();
  for (const t of touches) byTable.set(t.table, [...(byTable.get(t.table) ?? []), t]);
  for (const [table, list] of byTable) {
    const shape = shapes.get(table);
    const c = consumed.get(table);
    const unit = kind === 'write' ? 1024 : 4096;
    const sizeOf = (t: Touch) => Math.max(itemSize(t.before ?? {}), itemSize(t.after ?? t.given ?? {}));
    const weights = list.map((t) => Math.max(1, Math.ceil(sizeOf(t) / unit)));
    const tableUnits = c?.Table?.CapacityUnits ?? 0;
    const shares = share(tableUnits, weights);
    const seen = new Set<string>();
    list.forEach((t, i) => {
      const partition = `${table} ${String(t.key[shape?.hash ?? 'pk'])}`;
      bump(ledger, partition, kind === 'read' ? shares[i]! : 0, kind === 'write' ? shares[i]! : 0, !seen.has(partition));
      seen.add(partition);
      bumpItem(ledger, table, t.key, kind === 'read' ? shares[i]! : 0, kind === 'write' ? shares[i]! : 0);
    });
    for (const [index, cap] of Object.entries(c?.GlobalSecondaryIndexes ?? {})) {
      const idx = shape?.indexes.get(index);
      if (!idx) continue;
      // DynamoDB reports an index's units per request, not per item: they belong to the items whose
      // index entry the request wrote (an entry appears, goes, moves, or a projected attribute changes).
      const carrying = list.map((t, i) => ({ t, w: weights[i]!, pk: (t.after ?? t.given ?? t.before)?.[idx.hash] ?? t.before?.[idx.hash] })).filter((x) => x.pk !== undefined);
      const written = carrying.filter((x) => entryWritten(x.t, idx, shape!));
      // Units with no entry seen to change (e.g. an item put again unchanged): shared by every carrier.
      const inIndex = written.length > 0 ? written : carrying;
      const parts = share(cap.CapacityUnits ?? 0, inIndex.map((x) => x.w));
      const seenIndex = new Set<string>();
      inIndex.forEach((x, i) => {
        const partition = `${table}/${index} ${String(x.pk)}`;
        bump(ledger, partition, 0, parts[i]!, !seenIndex.has(partition));
        seenIndex.add(partition);
      });
    }
  }
}

/**
 * A transaction's write units by DynamoDB's rules, item by item: DynamoDB Local reports a
 * TransactWriteItems as if it held one of its items (docs/performance.md, "How it measures"), which
 * would make a transaction of many items (the stream processor's batches) look almost free. Each
 * item: 2 units per KB of the larger of its sizes before and after (a ConditionCheck too); each index
 * entry it writes: 1 unit per KB of the entry, twice when the entry moves (a delete and a put).
 */
function attributeTransaction(ledger: KeyLedger, touches: Touch[]): void {
  const seen = new Set<string>();
  for (const t of touches) {
    const shape = shapes.get(t.table);
    const before = t.before;
    const after = t.after ?? t.given;
    const partition = `${t.table} ${String(t.key[shape?.hash ?? 'pk'])}`;
    const units = 2 * Math.max(1, Math.ceil(Math.max(itemSize(before ?? {}), itemSize(after ?? {})) / 1024));
    bump(ledger, partition, 0, units, !seen.has(partition));
    seen.add(partition);
    bumpItem(ledger, t.table, t.key, 0, units);
    for (const [index, idx] of shape?.indexes ?? []) {
      if (!shape || !entryWritten(t, idx, shape)) continue;
      const entry = (item: Item | undefined) => {
        if (item?.[idx.hash] === undefined || (idx.range !== undefined && item[idx.range] === undefined)) return undefined;
        const keep = idx.projected === 'ALL' ? Object.keys(item) : [idx.hash, idx.range, shape.hash, shape.range, ...idx.projected].filter((k): k is string => k !== undefined);
        return Object.fromEntries(keep.filter((k) => item[k] !== undefined).map((k) => [k, item[k]]));
      };
      const [old, now] = [entry(before), entry(after)];
      const moved = old && now && (!same(old[idx.hash], now[idx.hash]) || (idx.range !== undefined && !same(old[idx.range], now[idx.range])));
      const kb = (e: Item) => Math.max(1, Math.ceil(itemSize(e) / 1024));
      // A moved entry is a delete in its old partition and a put in its new one (the same key here but for the sort key).
      if (old && (moved || !now)) bump(ledger, `${t.table}/${index} ${String(old[idx.hash])}`, 0, kb(old), true);
      if (now) bump(ledger, `${t.table}/${index} ${String(now[idx.hash])}`, 0, kb(now), true);
    }
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a, (_, v: unknown) => (v instanceof Set ? [...v].sort() : v)) === JSON.stringify(b, (_, v: unknown) => (v instanceof Set ? [...v].sort() : v));

function entryWritten(t: Touch, idx: IndexShape, table: TableShape): boolean {
  const before = t.before;
  const after = t.after ?? t.given;
  const inBefore = before?.[idx.hash] !== undefined && (idx.range === undefined || before?.[idx.range] !== undefined);
  const inAfter = after?.[idx.hash] !== undefined && (idx.range === undefined || after?.[idx.range] !== undefined);
  if (inBefore !== inAfter) return true;
  if (!inAfter) return false;
  const keys = [idx.hash, idx.range, table.hash, table.range].filter((k): k is string => k !== undefined);
  const attributes = idx.projected === 'ALL' ? [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])] : [...keys, ...idx.projected];
  return attributes.some((a) => !same(before?.[a], after?.[a]));
}

/** The partition a Query reads: the value its key condition gives the table's or index's partition key. */
function queryPartition(input: Item): string | undefined {
  const table = input.TableName as string;
  const index = input.IndexName as string | undefined;
  const shape = shapes.get(table);
  const attr = index ? shape?.indexes.get(index)?.hash : shape?.hash;
  const names = (input.ExpressionAttributeNames as Record<string, string> | undefined) ?? {};
  const values = plain(input.ExpressionAttributeValues as Item | undefined) ?? {};
  for (const m of String(input.KeyConditionExpression ?? '').matchAll(/(#?[\w]+)\s*=\s*(:[\w]+)/g)) {
    const name = m[1]!.startsWith('#') ? names[m[1]!] : m[1];
    if (name === attr) return `${table}${index ? `/${index}` : ''} ${String(values[m[2]!])}`;
  }
  return undefined;
}

async function read(table: string, key: Item): Promise<Item | undefined> {
  return (await side!.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
}

export async function installKeyRecorder(): Promise<void> {
  if (installed) return;
  installed = true;
  // The stream processor's client too: the hotspots model records its batches in a ledger of their
  // own (bench/sections/hotspots.ts, settleInBatches).
  const { streamDb } = await import('../lib/features/streams/counters.js');
  for (const client of [db, streamDb]) addRecorder(client);
}

function addRecorder(client: typeof db): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const ledger = active;
      if (!ledger || !side) return next(args);
      const input = args.input as Item;
      input.ReturnConsumedCapacity = 'INDEXES';
      const command = context.commandName ?? 'unknown';
      const writes = writesOf(command, input);
      for (const t of writes) t.before = await read(t.table, t.key);
      let output: Item | undefined;
      try {
        const result = await next(args);
        output = result.output as Item;
        return result;
      } catch (error) {
        output = error as Item;
        throw error;
      } finally {
        ledger.requests += 1;
        const consumed = consumedByTable(output);
        const done = (async () => {
          if (writes.length > 0) {
            for (const t of writes) t.after = await read(t.table, t.key);
            if (command === 'TransactWriteItemsCommand' && !(output instanceof Error)) attributeTransaction(ledger, writes);
            else attribute(ledger, 'write', writes, consumed);
          } else if (command === 'QueryCommand' || command === 'ScanCommand') {
            const partition = queryPartition(input);
            const c = consumed.get(input.TableName as string);
            const units = (input.IndexName ? c?.GlobalSecondaryIndexes?.[input.IndexName as string]?.CapacityUnits : c?.Table?.CapacityUnits) ?? c?.Table?.CapacityUnits ?? 0;
            if (partition) bump(ledger, headQuery?.(input) ? `${HEAD_READ}${partition}` : partition, units, 0, true);
          } else {
            attribute(ledger, 'read', readsOf(command, input, output), consumed);
          }
        })();
        pending.push(done);
      }
    },
    { step: 'initialize', name: 'expohubKeyRecorder', priority: 'high' },
  );
}

/** The prefix of a ledger row holding the reads of a shared head (separateHeadReads). */
export const HEAD_READ = 'head ';
let headQuery: ((input: Item) => boolean) | undefined;

/**
 * Records the Queries `is` names (the feed's shared heads) in rows of their own, `head <partition>`:
 * the hotspots model rates them by warm containers, not by calls (bench/sections/hotspots.ts).
 */
export function separateHeadReads(is: ((input: Item) => boolean) | undefined): void {
  headQuery = is;
}

/** Runs `fn` with every request's capacity attributed to keys in `ledger`. */
export async function recordKeys<T>(ledger: KeyLedger, fn: () => Promise<T>): Promise<T> {
  await installKeyRecorder();
  const previous = active;
  active = ledger;
  try {
    return await fn();
  } finally {
    active = previous;
    const waiting = pending;
    pending = [];
    await Promise.all(waiting);
  }
}

/**
 * Waits for the attribution of the requests made so far (each reads its items again after it
 * answered): a write that follows at once on the same items (the stream processor's trend key
 * moves after its transaction) must not be seen as part of the earlier request.
 */
export async function recordedSoFar(): Promise<void> {
  const waiting = pending;
  pending = [];
  await Promise.all(waiting);
}
