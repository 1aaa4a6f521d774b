import { currentFilterTerms } from '../../lib/features/filter/terms.js';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { itemSizeBytes } from '../../bench/item-size.js';
import { importVideos } from '../../lib/entities/catalog/import.js';
import {
  normalizeSearchText,
  POSTING_ITEM_MAX_BYTES,
  postingEntry,
  postingItem,
  postingsPage,
  searchGrams,
  videoSearchText,
} from '../../lib/entities/catalog/search-index.js';
import type { ImportedVideo, VideoInput, VideoItem } from '../../lib/entities/catalog/video-items.js';
import type { VideoView } from '../../lib/entities/catalog/video-view-schema.js';
import { putVideo } from '../../lib/entities/catalog/videos.js';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { MAX_TRANSACTION_ITEMS } from '../../lib/platform/db/transact.js';
import { demoVideos } from '../../local/demo-catalog.js';
import { MAX_REQUESTS } from '../../lib/features/recommend/feed-context.js';
import { recordRequests, type RecordedRequest } from '../support/db-requests.js';
import { getHubItem, hub, putTestAccounts, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { searchKeys, searchPartitions } from '../../lib/entities/catalog/search-index.js';

/**
 * The search postings of `q` (lib/entities/catalog/search-index.ts): one small item per (gram, video), so that
 * no item grows with the catalog; written in the video's own transaction as far as they fit, the rest
 * right after; read newest first by the feed within its request budget.
 */
const api = useTestStack();

const at = (iso: string) => Date.parse(iso);
/** All posting sort keys of a gram, newest first, straight from the partition. */
async function storedEntries(gram: string): Promise<string[]> {
  const out = await db.send(
    new QueryCommand({ TableName: tableNames.hub, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': searchPartitions.gram(gram) }, ConsistentRead: true }),
  );
  return (out.Items ?? []).map((i) => String(i.sk)).sort((a, b) => (a < b ? 1 : -1));
}
/** Every entry of a gram's postings through postingsPage with pages of `limit`. */
async function pagedEntries(gram: string, limit: number, from?: string): Promise<string[]> {
  const all: string[] = [];
  let after = from;
  for (let page = 0; page < 10_000; page++) {
    const { entries, next } = await postingsPage(gram, after, limit);
    expect(entries.length).toBeLessThanOrEqual(limit);
    all.push(...entries);
    if (next === undefined) return all;
    after = next;
  }
  throw new Error('postingsPage never ended');
}
const newestFirst = (videos: { vid: string; created_at: string }[]) => videos.map((v) => postingEntry(v.created_at, v.vid)).sort((a, b) => (a < b ? 1 : -1));
const vidOf = (entry: string) => entry.slice(entry.lastIndexOf('#') + 1);

/** Follows a q walk to its end as `user`; returns the vids in the order served and the requests of each call. */
async function searchWalk(q: string, user: TestAccount, watchCount = 20): Promise<{ vids: string[]; requests: number[] }> {
  const vids: string[] = [];
  const requests: number[] = [];
  let cursor = '';
  for (let call = 0; call < 500; call++) {
    const { result, requests: sent } = await recordRequests(() =>
      hub<{ list: VideoView[]; fav_index: string }>(api, 'get_next_list', { openid: user.openid, token: user.token, q, watch_count: watchCount, fav_index: cursor }),
    );
    expect(result.status).toBe(200);
    requests.push(sent.length);
    vids.push(...result.data.list.map((v) => v.vid));
    cursor = result.data.fav_index;
    if (!cursor) return { vids, requests };
  }
  throw new Error('the cursor never ended');
}

const video = (vid: string, author: string, createdAt: string, title: string): ImportedVideo => ({
  vid,
  author_openid: author,
  title,
  description: 'Filmed on the show floor',
  cover_url: `https://cdn.example.com/${vid}.jpg`,
  video_url: `https://cdn.example.com/${vid}.mp4`,
  duration_s: 60,
  tags: ['expo'],
  created_at: createdAt,
});

/** A new video for putVideo (created now, by the clock). */
const newInput = (author: string, title: string): VideoInput => {
  const { vid: _drawn, created_at: _now, ...input } = video('', author, '', title);
  return input;
};

describe('a posting item', () => {
  it('is small whatever the gram, the time and the vid: at most POSTING_ITEM_MAX_BYTES, one write unit, far under the 400 KB item limit', () => {
    // The longest grams the index makes: three letters of 4 bytes each in UTF-8 (Deseret, lower-cased)
    // and a pair of 4-byte CJK characters (Extension B).
    const grams = searchGrams(normalizeSearchText('𐐀𐐁𐐂 𠀀𠀁'));
    expect(grams).toEqual(expect.arrayContaining(['𐐨𐐩𐐪', '𠀀𠀁']));
    // No text makes a longer gram: at most 3 code points, each at most 4 bytes.
    const texts = [...demoVideos(50, 0).map((v) => videoSearchText(v)), normalizeSearchText('𐐀𐐁𐐂𐐃 𠀀𠀁𠀂𠀃 ÅÆØẞ ﬃﬄ İstanbul Ⅻ ㈱ 🚀🚀🚀')];
    const longest = Math.max(...texts.flatMap((t) => searchGrams(t)).map((g) => Buffer.byteLength(g)));
    expect(longest).toBe(12);

    const worst = postingItem('𐐨𐐩𐐪', new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)).toISOString(), 'v'.repeat(64));
    expect(itemSizeBytes(worst)).toBe(POSTING_ITEM_MAX_BYTES);
    expect(POSTING_ITEM_MAX_BYTES).toBeLessThanOrEqual(1024);
    expect(itemSizeBytes(postingItem('展会', '2026-11-22T10:00:00.000Z', 'xLLUFglrEB'))).toBeLessThan(POSTING_ITEM_MAX_BYTES);
  });
});

describe('the postings of a common gram', () => {
  const COUNT = 230;
  let videos: VideoItem[];
  let reader: TestAccount;

  beforeAll(async () => {
    const [author, editor, user] = await putTestAccounts(3);
    reader = user!;
    // Over three months, and three published through putVideo (postings in their transaction).
    const imported = await importVideos(
      Array.from({ length: COUNT - 3 }, (_, i) => video(`vq${String(i).padStart(4, '0')}`, author!.openid, new Date(at('2026-01-01T00:00:00.000Z') + i * 9 * 3_600_000).toISOString(), `Quokka sighting ${i}`)),
    );
    const published: VideoItem[] = [];
    for (const [i, iso] of ['2026-04-02T08:00:00.000Z', '2026-04-02T08:00:00.000Z', '2026-04-03T09:30:00.000Z'].entries()) {
      clock.set(at(iso));
      published.push((await putVideo(newInput(editor!.openid, `Quokka encore ${i}`))).video);
    }
    clock.reset();
    videos = [...imported, ...published];
  });

  it('are one item per video, read newest first in pages of any size without gaps or repeats', async () => {
    const expected = newestFirst(videos);
    expect(await storedEntries('quo')).toEqual(expected);
    for (const limit of [1, 7, 100]) expect(await pagedEntries('quo', limit), `pages of ${limit}`).toEqual(expected);
    // A position continues strictly below it.
    expect(await pagedEntries('quo', 50, expected[99])).toEqual(expected.slice(100));
  });

  it('q serves every match newest first, each once, within the feed budget of 8 requests a call', async () => {
    const { vids, requests } = await searchWalk('QUOKKA', reader);
    expect(vids).toEqual(newestFirst(videos).map(vidOf));
    expect(Math.max(...requests)).toBeLessThanOrEqual(MAX_REQUESTS);
  });
});

describe('publishing', () => {
  let editor: TestAccount;
  beforeAll(async () => {
    [editor] = (await putTestAccounts(1, ['editor'])) as [TestAccount];
  });

  // The filter's term list read first: a function reads it at most once a minute (docs/moderation.md, "Filter").
  const publish = async (body: Record<string, unknown>) => {
    await currentFilterTerms();
    return recordRequests(() => api.post<{ video: { vid: string; created_at: string } }>('/api/v1/videos', { token: editor.token, body: { video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 90, ...body } }));
  };
  const gramKeys = (requests: RecordedRequest[]) =>
    requests.flatMap((r) => {
      if (r.command === 'TransactWriteItemsCommand') return (r.input.TransactItems as { Put?: { Item: { pk: string } } }[]).map((t) => t.Put?.Item.pk ?? '').filter((pk) => pk.startsWith('GRAM#'));
      if (r.command === 'BatchWriteItemCommand') return Object.values(r.input.RequestItems as Record<string, { PutRequest?: { Item: { pk: string } } }[]>).flat().map((w) => w.PutRequest?.Item.pk ?? '');
      return JSON.stringify(r.input).includes('"GRAM#') ? [`${r.command} touched a posting`] : [];
    });

  it('costs at most 10 requests for a video like the demo catalog\'s: its postings ride in its transaction', async () => {
    const [demo] = demoVideos(1, 0);
    const grams = searchGrams(videoSearchText(demo!));
    const { result, requests } = await publish({ title: demo!.title, description: demo!.description, tags: demo!.tags });
    expect(result.status).toBe(201);
    // Session, account (roles), author's latest list, the transaction, the counters of each tag and of the catalog.
    expect(requests.map((r) => r.command)).toEqual([
      'BatchGetItemCommand',
      'GetItemCommand',
      'GetItemCommand',
      'TransactWriteItemsCommand',
      ...demo!.tags!.map(() => 'UpdateItemCommand'),
      'UpdateItemCommand',
    ]);
    expect(requests.length).toBeLessThanOrEqual(10);
    const inTransaction = (requests[3]!.input.TransactItems as unknown[]).length;
    expect(inTransaction).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
    expect(gramKeys(requests).sort()).toEqual(grams.map((g) => searchPartitions.gram(g)).sort());
    expect(gramKeys([requests[3]!])).toHaveLength(grams.length);
  });

  it('writes the postings that do not fit in the transaction right after it, in BatchWrites of 25', async () => {
    const description = Array.from({ length: 60 }, (_, i) => `lot${i} item${i * 7}`).join(', ');
    const grams = searchGrams(videoSearchText({ title: 'Auction', description, tags: ['拍卖'] }));
    expect(grams.length).toBeGreaterThan(MAX_TRANSACTION_ITEMS);
    const { result, requests } = await publish({ title: 'Auction', description, tags: ['拍卖'] });
    expect(result.status).toBe(201);
    const inTransaction = (requests.find((r) => r.command === 'TransactWriteItemsCommand')!.input.TransactItems as unknown[]).length;
    expect(inTransaction).toBe(MAX_TRANSACTION_ITEMS);
    const batches = requests.filter((r) => r.command === 'BatchWriteItemCommand');
    const later = grams.length - gramKeys(requests.filter((r) => r.command === 'TransactWriteItemsCommand')).length;
    expect(batches).toHaveLength(Math.ceil(later / 25));
    expect(gramKeys(requests).sort()).toEqual(grams.map((g) => searchPartitions.gram(g)).sort());
    const { vid, created_at } = result.data.video;
    for (const gram of grams) expect(await getHubItem(searchKeys.searchPosting(gram, created_at, vid)), gram).toBeDefined();
  });

  it('changes the postings of a changed text in the same transaction: removed grams deleted, the others put', async () => {
    const first = await publish({ title: 'Okapi parade', external_id: 'okapi-1' });
    const { vid, created_at } = first.result.data.video;
    const { requests } = await publish({ title: 'Kinkajou parade', external_id: 'okapi-1' });
    expect(requests.filter((r) => gramKeys([r]).length > 0).map((r) => r.command)).toEqual(['TransactWriteItemsCommand']);
    expect(await getHubItem(searchKeys.searchPosting('oka', created_at, vid))).toBeUndefined();
    expect(await getHubItem(searchKeys.searchPosting('kin', created_at, vid))).toBeDefined();
    expect(await getHubItem(searchKeys.searchPosting('par', created_at, vid))).toBeDefined();
    expect((await searchWalk('okapi', editor)).vids).toEqual([]);
    expect((await searchWalk('kinkajou', editor)).vids).toEqual([vid]);
  });
});
