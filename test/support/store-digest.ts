import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../lib/db/client.js';
import { settleStreams } from './stack.js';

/**
 * Everything stored in this test file's tables, item by item (`table|pk|sk` -> the item as JSON),
 * for "a failed request changed nothing" checks. A Scan is fine here: the tables are the test's own
 * and small.
 */
export async function storeSnapshot(): Promise<Map<string, string>> {
  // What the stream processor derives from earlier writes belongs to the state before the next call.
  await settleStreams();
  const items = new Map<string, string>();
  for (const table of [tableNames.hub, tableNames.apiKeys]) {
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
      for (const item of out.Items ?? []) items.set(`${table}|${String(item.pk)}|${String(item.sk)}`, stableJson(item));
      start = out.LastEvaluatedKey;
    } while (start);
  }
  return items;
}

/**
 * The item ids that differ between two snapshots (added, removed or changed). A key's `last_used_at`
 * is left out: a key that authenticated is used, whatever the request then answers (it is written at
 * most once a minute: docs/api-keys.md, "GET /api/v1/api-keys/verify").
 */
export function changedItems(before: Map<string, string>, after: Map<string, string>): string[] {
  const ids = new Set([...before.keys(), ...after.keys()]);
  const withoutUse = (json: string | undefined) => json?.replace(/"last_used_at":("[^"]*"|null),?/, '');
  return [...ids].filter((id) => withoutUse(before.get(id)) !== withoutUse(after.get(id))).sort();
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Set) return [...v].map(String).sort();
    if (v && typeof v === 'object' && !Array.isArray(v)) return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)));
    return v;
  });
}

/** Every item of this test file's two tables, with its table (a Scan: the test's own tables, in tests only). */
export async function allItems(): Promise<{ table: string; item: Record<string, unknown> }[]> {
  const out: { table: string; item: Record<string, unknown> }[] = [];
  for (const table of [tableNames.hub, tableNames.apiKeys]) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) out.push({ table, item });
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return out;
}
