import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { DEMO_AUTHORS, demoVideos, seedDemoCatalog } from '../../local/demo-catalog.js';
import { cachedTagFrequencies, forgetTagFrequencies } from '../../lib/entities/catalog/tag-stats.js';
import { MAX_REQUESTS } from '../../lib/features/recommend/feed-context.js';
import { CHUNK_TTL_DAYS, LIKED_CHUNK, likedHash, tagAttribute, tasteUnit } from '../../lib/features/recommend/feed-state.js';
import { refreshRecommendationModel } from '../../lib/features/recommend/model-refresh.js';
import { recordRequests } from '../support/db-requests.js';
import { hub, putTestAccounts } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { feedKeys } from '../../lib/features/recommend/feed-state.js';
import { blockKeys } from '../../lib/entities/social/block-items.js';

/**
 * The cost of get_next_list: every call makes at most MAX_REQUESTS (8) DynamoDB requests, counted
 * at the shared client (the token check included), and never a Scan, for a caller with a long
 * history (10,000 seen entries, 500 dislikes, 25 likes and 10,000 older ones, follows, 500 blocked
 * accounts, the learned model's neighbour lists of its likes) on a 1,000-video catalog as for a new
 * caller. A cost assertion, not a timing one.
 */
const CATALOG_SIZE = 1000;
const HISTORY = 10_000;
const OLD_LIKES = 10_000;
const catalog = demoVideos(CATALOG_SIZE, 0);

type User = { openid: string; token: string };
interface Feed {
  list: { vid: string }[];
  fav_index: string;
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let heavy: User;
let fresh: User;
let shareid: string;

async function batchPut(items: Record<string, unknown>[]) {
  for (let i = 0; i < items.length; i += 25) {
    const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableNames.hub]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    expect(out.UnprocessedItems?.[tableNames.hub] ?? []).toEqual([]);
  }
}

beforeAll(async () => {
  stack = await startTestStack();
  api = apiClient(stack.url);
  expect(await seedDemoCatalog(CATALOG_SIZE)).toBe(CATALOG_SIZE);
  const accounts = await putTestAccounts(2);
  [heavy, fresh] = [accounts[0]!, accounts[1]!];

  // Real reactions and follows through the API: likes, dislikes, follows; then the learned model's refresh.
  for (const v of catalog.slice(0, 25)) expect((await hub(api, 'like', { openid: heavy.openid, token: heavy.token, vid: v.vid })).status).toBe(200);
  for (const v of catalog.slice(25, 35)) expect((await hub(api, 'dislike', { openid: heavy.openid, token: heavy.token, vid: v.vid, action: 'dislike' })).status).toBe(200);
  for (const a of DEMO_AUTHORS) expect((await hub(api, 'follow_user', { openid: heavy.openid, token: heavy.token, follow_user: a.openid })).status).toBe(200);

  // A long history written straight into the store: 10,000 seen entries over the last days (in
  // call records, as get_next_list writes them, 100 vids each, and as history items), 500 more
  // dislikes, a taste over every tag.
  const now = clock.now();
  const seenVids = Array.from({ length: HISTORY }, (_, i) => (i < CATALOG_SIZE - 40 ? catalog[i + 40]!.vid : `gone${i}`));
  const recordAt = (r: number) => now - (r % 7) * 86_400_000 - r - 1;
  const records = Array.from({ length: HISTORY / 100 }, (_, r) => ({
    ...feedKeys.feedChunk(heavy.openid, recordAt(r), `seed${r}`),
    entity: 'feed_chunk',
    at: recordAt(r),
    n: 0,
    v: seenVids.slice(r * 100, (r + 1) * 100),
    ttl: Math.floor(now / 1000) + CHUNK_TTL_DAYS * 86_400,
  }));
  await batchPut(records);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const adds: string[] = [];
  names['#disliked'] = 'disliked';
  values[':disliked'] = new Set(Array.from({ length: 500 }, (_, i) => `old${i}`));
  adds.push('#disliked :disliked');
  const tags = [...new Set(catalog.flatMap((v) => v.tags ?? []))];
  tags.forEach((tag, i) => {
    names[`#t${i}`] = tagAttribute(tag);
    values[`:t${i}`] = (i + 1) * tasteUnit(now);
    adds.push(`#t${i} :t${i}`);
  });
  await db.send(new UpdateCommand({ TableName: tableNames.hub, Key: feedKeys.feedState(heavy.openid), UpdateExpression: `ADD ${adds.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values }));
  const seenAt = (i: number) => new Date(now - (i % 7) * 86_400_000 - i).toISOString();
  await batchPut(
    seenVids.map((vid, i) => ({ ...feedKeys.viewHistory(heavy.openid, seenAt(i), vid), ...feedKeys.viewHistoryIndex(heavy.openid, seenAt(i), [vid]), entity: 'history', openid: heavy.openid, seen_at: seenAt(i) })),
  );

  // 10,000 older likes, their hashes in liked chunks as like writes them (feedKeys.likedChunk):
  // the first Query reads them all. Then the learned model, built from the likes above.
  await batchPut(
    Array.from({ length: Math.ceil(OLD_LIKES / LIKED_CHUNK) }, (_, c) => ({
      ...feedKeys.likedChunk(heavy.openid, c + 1),
      entity: 'liked_hashes',
      h: new Set(Array.from({ length: LIKED_CHUNK }, (_, i) => likedHash(`oldlike${c * LIKED_CHUNK + i}`))),
    })),
  );
  expect((await refreshRecommendationModel()).lists).toBeGreaterThanOrEqual(25);

  // 500 blocked accounts (docs/moderation.md, "Blocking"): the list item as block_user writes it,
  // read by the feed's first Query.
  const blockedAt = (i: number) => new Date(now - i * 1000).toISOString();
  await batchPut([{ ...blockKeys.blockList(heavy.openid), entity: 'blocks', openid: heavy.openid, version: 500, blocked: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`u_blocked${String(i).padStart(15, '0')}`, blockedAt(i)])) }]);

  const shared = await hub<{ shareid: string }>(api, 'sharetext', { d: 'dev', openid: heavy.openid, vid: catalog[500]!.vid, locale: 'en', country: '' });
  expect(shared.status).toBe(200);
  shareid = shared.data.shareid;
}, 600_000);
afterAll(async () => stack?.stop());

const params = (user: User | undefined, extra: Record<string, string | number>) => ({ openid: user?.openid ?? 'anonymous', ...(user ? { token: user.token } : {}), ...extra });

async function measured(user: User | undefined, extra: Record<string, string | number>) {
  const { result, requests } = await recordRequests(() => hub<Feed>(api, 'get_next_list', params(user, extra)));
  expect(result.status).toBe(200);
  expect(requests.map((r) => r.command)).not.toContain('ScanCommand');
  const writes = requests.filter((r) => r.consumedWrite > 0 || /Write|Put|Update|Delete/.test(r.command));
  return { res: result, count: requests.length, commands: requests.map((r) => r.command), writes, writeUnits: requests.reduce((sum, r) => sum + r.consumedWrite, 0) };
}

const viewTen = catalog
  .slice(900, 910)
  .map((v) => v.vid)
  .join(',');
const viewList = catalog
  .slice(960, 1000)
  .map((v) => v.vid)
  .join(',');

describe.each([
  ['a caller with 10,000 seen entries, 10,025 likes, dislikes, follows and 500 blocked accounts', () => heavy],
  ['a new caller', () => fresh],
  ['an anonymous caller', () => undefined],
])('get_next_list costs at most 8 requests for %s', (_label, who) => {
  it.each([
    ['rec', {}],
    ['rec with a full view_list, a share and a device id', { view_list: viewList, shareid: '', d: 'phone-1' }],
    // The answer's read past 100 keys (20 videos' items, authors, likes and "commented" items, 40 viewed): two requests, reserved.
    ['rec of 20 videos with a full view_list', { cmd: 'refresh', watch_count: 20, view_list: viewList }],
    ['rec after cmd=refresh', { cmd: 'refresh', watch_count: 20 }],
    ['more like this, opened from a share', { vid: catalog[3]!.vid, shareid: '', watch_count: 20 }],
    ['hot', { order: 'hot', watch_count: 20 }],
    ['q in Chinese', { q: '机器人', watch_count: 20 }],
    ['q in English', { q: 'robots', watch_count: 20 }],
    ['q with a term too short for the index', { q: 'ai', watch_count: 20 }],
  ])('%s', async (_mode, extra) => {
    const withShare = 'shareid' in extra ? { ...extra, shareid } : extra;
    const { res, count, commands } = await measured(who(), withShare as Record<string, string | number>);
    expect(count, commands.join(', ')).toBeLessThanOrEqual(MAX_REQUESTS);
    // A page may come back empty for a heavy viewer while the walk continues past seen videos.
    expect(res.data.list.length > 0 || res.data.fav_index !== '').toBe(true);
  });

  it.each([
    ['rec', { cmd: 'refresh' }],
    ['more like this', { vid: catalog[3]!.vid }],
  ])('%s with the tag counters not cached yet (the first call of a container)', async (mode, extra) => {
    forgetTagFrequencies();
    const { count, commands } = await measured(who(), extra as Record<string, string>);
    expect(count, commands.join(', ')).toBeLessThanOrEqual(MAX_REQUESTS);
    // The counters were read within that budget where the call needed them: a caller with a taste, or "more like this".
    if (mode === 'more like this' || who() === heavy) expect(cachedTagFrequencies(catalog[3]!.tags ?? []).stale).toBe(false);
  });

  // Write units as DynamoDB reports them to the client (ReturnConsumedCapacity TOTAL, indexes included).
  it.each([
    ['rec with a view_list of 10', { view_list: viewTen }],
    ['rec after cmd=refresh with a view_list of 10', { cmd: 'refresh', view_list: viewTen, watch_count: 20 }],
    ['more like this with a view_list of 10', { vid: catalog[3]!.vid, view_list: viewTen }],
    ['hot with a view_list of 10', { order: 'hot', view_list: viewTen, watch_count: 20 }],
    ['q with a view_list of 10', { q: '机器人', view_list: viewTen }],
  ])('%s writes at most 4 write units, with one plain BatchWrite of new items', async (_mode, extra) => {
    const user = who();
    const { writes, writeUnits } = await measured(user, { d: 'phone-1', ...extra });
    expect(writes.map((w) => w.command)).toEqual(['BatchWriteItemCommand']);
    expect(writeUnits).toBeGreaterThan(0);
    expect(writeUnits).toBeLessThanOrEqual(4);
    // Never the state item (like and dislike write it): a call record, and a history item when signed in.
    const puts = ((writes[0]!.input.RequestItems as Record<string, { PutRequest: { Item: { pk: string; sk: string } } }[]>)[tableNames.hub] ?? []).map((r) => r.PutRequest.Item);
    const chunkPrefix = user ? `${feedKeys.feedState(user.openid).sk}#` : `${feedKeys.deviceFeedState('phone-1').sk}#`;
    expect(puts.map((i) => (i.sk.startsWith(chunkPrefix) ? 'record' : i.sk.split('#')[0]))).toEqual(user ? ['record', 'HISTORY'] : ['record']);
  });

  it('every page of a whole order=new walk', async () => {
    let cursor = '';
    let pages = 0;
    let served = 0;
    let maxWrite = 0;
    do {
      const { res, count, commands, writeUnits } = await measured(who(), { order: 'new', watch_count: 20, fav_index: cursor, ...(pages === 0 ? { shareid } : {}) });
      expect(count, commands.join(', ')).toBeLessThanOrEqual(MAX_REQUESTS);
      maxWrite = Math.max(maxWrite, writeUnits);
      served += res.data.list.length;
      cursor = res.data.fav_index;
      pages++;
    } while (cursor && pages < 200);
    expect(cursor).toBe('');
    expect(served).toBeGreaterThanOrEqual(CATALOG_SIZE - 35);
    // A page that defers many seen videos stops at WALK_SKIP_PER_CALL: its record stays small.
    expect(maxWrite).toBeLessThanOrEqual(4);
  });
});

it('the heavy caller gets every unseen video before any seen one, on its first call after a refresh', async () => {
  // Never seen and not disliked: catalog[35..39]. (25..34 are disliked, 40.. are in the seen
  // history; 0..24 are liked: every like comes after what is unseen and seen.)
  const unseen = catalog.slice(35, 40).map((v) => v.vid);
  const history = new Set(catalog.slice(40).map((v) => v.vid));
  const { res } = await measured(heavy, { cmd: 'refresh', watch_count: 10 });
  const vids = res.data.list.map((v) => v.vid);
  expect(vids).toHaveLength(10);
  for (const vid of unseen) expect(vids).toContain(vid);
  const lastUnseen = Math.max(...unseen.map((vid) => vids.indexOf(vid)));
  expect(vids.slice(0, lastUnseen).filter((vid) => history.has(vid))).toEqual([]);
});
