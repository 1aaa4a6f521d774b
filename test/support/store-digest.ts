import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../lib/platform/db/client.js';
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
  for (const { table, item } of await allItems()) items.set(`${table}|${String(item.pk)}|${String(item.sk)}`, stableJson(item));
  return items;
}

/**
 * The item ids that differ between two snapshots (added, removed or changed). A key's use is left
 * out: `last_used_at`, and on its hash guard the use counters (the minute's slot, its window, the
 * day's count: lib/features/keys/key-use.ts): a key that authenticated is used, whatever the request then
 * answers (docs/api-keys.md, "Per-key rate limit").
 */
export function changedItems(before: Map<string, string>, after: Map<string, string>): string[] {
  const ids = new Set([...before.keys(), ...after.keys()]);
  const useAttribute = (id: string, name: string) => name === 'last_used_at' || (id.includes('KEYHASH#') && /^(rn\d+|rt\d+|u\d+|win)$/.test(name));
  const withoutUse = (id: string, json: string | undefined) =>
    json === undefined ? undefined : JSON.stringify(Object.entries(JSON.parse(json) as Record<string, unknown>).filter(([name]) => !useAttribute(id, name)));
  return [...ids].filter((id) => withoutUse(id, before.get(id)) !== withoutUse(id, after.get(id))).sort();
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
  // The two tables read at the same time (reads only: nothing here depends on which ends first), listed hub first.
  const tables = await Promise.all(
    [tableNames.hub, tableNames.apiKeys].map(async (table) => {
      const out: { table: string; item: Record<string, unknown> }[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) out.push({ table, item });
        start = page.LastEvaluatedKey;
      } while (start);
      return out;
    }),
  );
  return tables.flat();
}

/**
 * Every counter the hub table stores that a recount of its facts can check, against that recount:
 * an account's follow_count, follower_count (its relation items), like_count (its likes) and
 * liked_count (likes of videos it authored); a video's like_count and comment_count (its like and
 * comment items, tombstones included). Returns the mismatches, readably; [] when all agree.
 */
export async function counterMismatches(): Promise<string[]> {
  const items = (await allItems()).filter((i) => i.table === tableNames.hub).map((i) => i.item);
  const counted = new Map<string, number>();
  const add = (key: string) => counted.set(key, (counted.get(key) ?? 0) + 1);
  for (const x of items) {
    const sk = String(x.sk);
    const owner = String(x.pk).slice('ACCOUNT#'.length);
    if (sk.startsWith('FOLLOWS#')) add(`${owner}.follow_count`);
    if (sk.startsWith('FOLLOWER#')) add(`${owner}.follower_count`);
    if (x.entity === 'like') {
      add(`${String(x.openid)}.like_count`);
      add(`${String(x.author_openid)}.liked_count`);
      add(`${String(x.vid)}.video_like_count`);
    }
    if (x.entity === 'comment') add(`${String(x.vid)}.comment_count`);
  }
  const wrong: string[] = [];
  const check = (name: string, stored: unknown, key: string) => {
    if (Number(stored ?? 0) !== (counted.get(key) ?? 0)) wrong.push(`${name}: stored ${String(stored)}, recount ${counted.get(key) ?? 0}`);
  };
  for (const x of items) {
    if (x.entity === 'account') {
      const id = String(x.openid);
      for (const c of ['follow_count', 'follower_count', 'like_count', 'liked_count']) check(`${id}.${c}`, x[c], `${id}.${c}`);
    }
    if (x.entity === 'video') {
      const vid = String(x.vid);
      check(`${vid}.like_count`, x.like_count, `${vid}.video_like_count`);
      check(`${vid}.comment_count`, x.comment_count, `${vid}.comment_count`);
    }
  }
  return wrong;
}

