import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { LatestEntry, VideoItem } from '../../entities/catalog/video-items.js';
import { db, tableNames } from '../../platform/db/client.js';
import { timeKey } from '../../platform/db/keys.js';
import { videoKeys, videoPartitions } from '../../entities/catalog/video-items.js';
import { deviceFeedStateAndChunks, feedStateAndFollows } from './feed-state.js';
import { followKeys } from '../../entities/social/follows.js';
import { blockedIn } from '../../entities/social/block-items.js';
import { mergeShardPages } from '../../platform/db/shard-merge.js';
import { initialTrend } from '../../entities/catalog/trend.js';
import { CHUNK_READ_CAP, LIKED_CHUNKS_READ } from './feed-state.js';
import { sharedHead } from '../../entities/catalog/shared-heads.js';
import type { Candidate } from './scoring.js';

/**
 * The reads of the feed, each ONE DynamoDB request whose size is bounded by its limit, whatever the
 * catalog size or the caller's history (docs/feed.md, "Design rule: the request path never scans").
 */
const TABLE = () => tableNames.hub;

export type CandidateFields = Omit<Candidate, 'sources' | 'cf'> & { cf?: number };

async function query(input: Omit<QueryCommandInput, 'TableName'>): Promise<{ items: Record<string, unknown>[]; lastKey?: Record<string, unknown> }> {
  const out = await db.send(new QueryCommand({ TableName: TABLE(), ...input }));
  return { items: (out.Items ?? []) as Record<string, unknown>[], lastKey: out.LastEvaluatedKey };
}

/**
 * Candidate reads return only what ranking needs; the few videos an answer shows are read whole
 * afterwards. Smaller pages on the wire, and more candidates per request (a Query reads up to 1 MB).
 * The indexes project just these attributes (lib/platform/db/tables.ts); the trend score `gsi3sk` only in
 * gsi3, where it is the sort key: it changes with every like, and projecting it elsewhere would make
 * every like write gsi1 and gsi2 as well.
 */
const RANKING_ATTRIBUTES = {
  ProjectionExpression: '#vid, #author, #tags, #created',
  ExpressionAttributeNames: { '#vid': 'vid', '#author': 'author_openid', '#tags': 'tags', '#created': 'created_at' },
};
export const RANKED_ATTRIBUTES = {
  ProjectionExpression: `${RANKING_ATTRIBUTES.ProjectionExpression}, #trend`,
  ExpressionAttributeNames: { ...RANKING_ATTRIBUTES.ExpressionAttributeNames, '#trend': 'gsi3sk' },
};

/**
 * A candidate of a video. Read from gsi1 or gsi2 it has no trend score: it counts with the trend it
 * was created with (lib/entities/catalog/trend.ts), which its score can only have grown from; when trending
 * lists it too, the candidate pool keeps the higher one.
 */
export const videoCandidate = (v: VideoItem): CandidateFields => ({
  vid: v.vid,
  author_openid: v.author_openid,
  tags: v.tags ?? [],
  created_at: v.created_at,
  trend: typeof v.gsi3sk === 'number' ? v.gsi3sk : initialTrend(Date.parse(v.created_at) || 0),
});

/**
 * Which shard the next one-request read of a sharded list takes: reads that must stay ONE request
 * (the rec sources, docs/feed.md, "Design rule: the request path never scans") take the shards in
 * turn, call after call.
 */
const turns = { trending: 0, newest: 0 };
const nextShard = (list: keyof typeof turns, count: number) => turns[list]++ % count;

/**
 * The heads the feed reads from the per-container cache (lib/entities/catalog/shared-heads.ts; docs/feed.md,
 * "The shared heads' cache"): the top of each list, as deep as the deepest read of it that starts
 * there (a `new` or `hot` page takes LIMITS.walkPage / 2 a shard, a heavy viewer's exploration page
 * 500, a tag ranking 50, "more like this" an author's 10).
 */
export const HEAD_DEPTH = { trending: 150, newest: 500, tag: 50, author: 10 };

interface Head {
  items: Record<string, unknown>[];
  /** The Query stopped at its Limit: the list may go on below the head. */
  more: boolean;
}

/** The top `depth` entries of a partition, newest or hottest first, ONE request on a miss. */
function head(key: string, input: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ScanIndexForward'>, depth: number): Promise<Head> {
  return sharedHead(`${key} ${depth}`, async () => {
    const { items, lastKey } = await query({ ...input, ScanIndexForward: false, Limit: depth });
    return { items, more: !!lastKey };
  });
}

const trendingHead = (partition: string) =>
  head(`gsi3 ${partition}`, { ...RANKED_ATTRIBUTES, IndexName: 'gsi3', KeyConditionExpression: 'gsi3pk = :p', ExpressionAttributeValues: { ':p': partition } }, HEAD_DEPTH.trending);

/**
 * The first `limit` entries of a head, as a Query with that Limit would answer them (`done` when
 * the Query would have returned no LastEvaluatedKey), or undefined when the head is too short.
 */
function topOf(h: Head, limit: number): { items: Record<string, unknown>[]; done: boolean } | undefined {
  if (h.items.length >= limit) return { items: h.items.slice(0, limit), done: false };
  return h.more ? undefined : { items: h.items, done: true };
}

/** The top of the trending ranking (ranking attributes): one shard's top, the shards in turn across calls, ONE request (none from a kept head). */
export async function trendingVideos(limit: number): Promise<VideoItem[]> {
  const partitions = videoPartitions.trending;
  const partition = partitions[nextShard('trending', partitions.length)]!;
  const top = limit <= HEAD_DEPTH.trending ? topOf(await trendingHead(partition), limit) : undefined;
  if (top) return top.items as unknown as VideoItem[];
  const { items } = await query({
    ...RANKED_ATTRIBUTES,
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :p',
    ExpressionAttributeValues: { ':p': partition },
    ScanIndexForward: false,
    Limit: limit,
  });
  return items as unknown as VideoItem[];
}

/** Trend descending; at equal trends the lower shard first (mergeShardPages), then the shard's own order. */
const hotter = (a: VideoItem, b: VideoItem) => a.gsi3sk > b.gsi3sk;

/**
 * A page of the whole trending ranking after position (trend, vid), for order=hot: every shard
 * queried in parallel (videoPartitions.trending.length requests), merged. The position is that of the
 * last video served, in the merged order: in its own shard the page continues right after it; the
 * lower shards, whose equal trends came first, continue below its trend, the higher ones at it.
 */
export async function trendingPage(after: { t: number; v: string } | undefined, limit: number): Promise<{ videos: VideoItem[]; done: boolean }> {
  const partitions = videoPartitions.trending;
  const at = after ? videoPartitions.trendingShard(after.v) : -1;
  const pages = await Promise.all(
    partitions.map(async (partition, shard) => {
      // The first page (no position) is the top of each shard: the kept head when it is deep enough.
      const top = !after && Math.ceil(limit / partitions.length) <= HEAD_DEPTH.trending ? topOf(await trendingHead(partition), Math.ceil(limit / partitions.length)) : undefined;
      if (top) return { items: top.items as unknown as VideoItem[], done: top.done };
      const range = !after || shard === at ? '' : shard < at ? ' AND gsi3sk < :t' : ' AND gsi3sk <= :t';
      const { items, lastKey } = await query({
        ...RANKED_ATTRIBUTES,
        IndexName: 'gsi3',
        KeyConditionExpression: `gsi3pk = :p${range}`,
        ExpressionAttributeValues: { ':p': partition, ...(range ? { ':t': after!.t } : {}) },
        ScanIndexForward: false,
        Limit: Math.ceil(limit / partitions.length),
        ...(after && shard === at ? { ExclusiveStartKey: { ...videoKeys.video(after.v), ...videoKeys.trendingIndex(after.v, after.t) } } : {}),
      });
      return { items: items as unknown as VideoItem[], done: !lastKey };
    }),
  );
  const { items, done } = mergeShardPages(pages, hotter);
  return { videos: items, done };
}

const newestFirst = (a: VideoItem, b: VideoItem) => timeKey(a.created_at, a.vid) > timeKey(b.created_at, b.vid);

/**
 * One shard of the catalog, newest first, below position `created_at#vid` (ranking attributes):
 * answered from the shard's kept head when the head holds `limit` entries below the position (or
 * the rest of the shard), as the Query would answer; otherwise ONE Query.
 */
async function newestOfShard(partition: string, after: string | undefined, limit: number): Promise<{ videos: VideoItem[]; done: boolean }> {
  if (limit <= HEAD_DEPTH.newest) {
    const h = await head(`gsi1 ${partition}`, { ...RANKING_ATTRIBUTES, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': partition } }, HEAD_DEPTH.newest);
    const below = after === undefined ? 0 : h.items.findIndex((v) => timeKey(String(v.created_at), String(v.vid)) < after);
    const top = topOf({ items: below < 0 ? [] : h.items.slice(below), more: h.more }, limit);
    // A position below the whole head (found nowhere in it) of a shard that goes on: read it.
    if (top && !(below < 0 && h.more)) return { videos: top.items as unknown as VideoItem[], done: top.done };
  }
  const { items, lastKey } = await query({
    ...RANKING_ATTRIBUTES,
    IndexName: 'gsi1',
    KeyConditionExpression: after ? 'gsi1pk = :p AND gsi1sk < :after' : 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': partition, ...(after ? { ':after': after } : {}) },
    ScanIndexForward: false,
    Limit: limit,
  });
  return { videos: items as unknown as VideoItem[], done: !lastKey };
}

/**
 * The exploration walk of rec: ONE request a step, one shard of the catalog newest first. The walk
 * starts in a shard taken in turn (so walks spread their reads over the shards), covers it, then the
 * next shard from its top, and so on until it is back at the shard it started in: `next` is null
 * once every shard is covered. A position (the `next` of a step) is `<start shard>|<created_at>#<vid>`
 * (continue below that video, in its shard) or `<start shard>|@<shard>` (the top of that shard).
 */
export async function exploreStep(position: string | undefined, limit: number): Promise<{ videos: VideoItem[]; next: string | null }> {
  const partitions = videoPartitions.videos;
  const count = partitions.length;
  const inRange = (n: number) => Number.isInteger(n) && n >= 0 && n < count;
  let start: number;
  let shard: number;
  let after: string | undefined;
  const bar = position ? position.indexOf('|') : -1;
  if (!position || bar < 0) {
    start = shard = nextShard('newest', count);
  } else {
    const at = position.slice(bar + 1);
    if (at.startsWith('@')) {
      const top = Number(at.slice(1));
      shard = inRange(top) ? top : 0;
    } else {
      after = at;
      shard = videoPartitions.videoShard(at.slice(at.lastIndexOf('#') + 1));
    }
    const startText = Number(position.slice(0, bar));
    start = inRange(startText) ? startText : shard;
  }
  const { videos, done } = await newestOfShard(partitions[shard]!, after, limit);
  const last = videos[videos.length - 1];
  if (!done && last) return { videos, next: `${start}|${last.created_at}#${last.vid}` };
  const following = (shard + 1) % count;
  return { videos, next: following === start ? null : `${start}|@${following}` };
}

/**
 * A page of the whole catalog, newest first, after position `created_at#vid` (order=new, and q without
 * an indexable gram): every shard queried in parallel (videoPartitions.videos.length requests), each
 * for its share of `limit`, merged (sort keys are unique, so one position holds for every shard).
 */
export async function catalogPage(after: string | undefined, limit: number): Promise<{ videos: VideoItem[]; done: boolean }> {
  const partitions = videoPartitions.videos;
  const pages = await Promise.all(partitions.map((partition) => newestOfShard(partition, after, Math.ceil(limit / partitions.length))));
  const { items, done } = mergeShardPages(
    pages.map((p) => ({ items: p.videos, done: p.done })),
    newestFirst,
  );
  return { videos: items, done };
}

/** The best-ranked videos of one tag (tag ranking items carry what scoring needs). */
export async function tagCandidates(tag: string, limit: number): Promise<CandidateFields[]> {
  const partition = videoPartitions.tag(tag);
  const input = { IndexName: 'gsi3', KeyConditionExpression: 'gsi3pk = :p', ExpressionAttributeValues: { ':p': partition } };
  const top = limit <= HEAD_DEPTH.tag ? topOf(await head(`gsi3 ${partition}`, input, HEAD_DEPTH.tag), limit) : undefined;
  const items = top ? top.items : (await query({ ...input, ScanIndexForward: false, Limit: limit })).items;
  return items.map((i) => ({
    vid: String(i.vid),
    author_openid: String(i.author_openid),
    tags: (i.tags as string[]) ?? [],
    created_at: String(i.created_at),
    trend: typeof i.gsi3sk === 'number' ? i.gsi3sk : 0,
  }));
}

/** An author's newest videos (ranking attributes only). */
export async function authorVideos(openid: string, limit: number): Promise<VideoItem[]> {
  const partition = videoPartitions.author(openid);
  const input = { ...RANKING_ATTRIBUTES, IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :p', ExpressionAttributeValues: { ':p': partition } };
  const top = limit <= HEAD_DEPTH.author ? topOf(await head(`gsi2 ${partition}`, input, HEAD_DEPTH.author), limit) : undefined;
  const items = top ? top.items : (await query({ ...input, ScanIndexForward: false, Limit: limit })).items;
  return items as unknown as VideoItem[];
}

/** What the first read of get_next_list returns: the state item, the call records, the followed accounts. */
export interface StateRead {
  state?: Record<string, unknown>;
  chunks: Record<string, unknown>[];
  /** The liked chunks (feedKeys.likedChunk), newest first. */
  likedChunks: Record<string, unknown>[];
  followees: string[];
  /** The accounts the caller blocked (lib/entities/social/blocks.ts). */
  blocked: Set<string>;
}

/**
 * The caller's block list, feed state, liked chunks (newest first, at most LIKED_CHUNKS_READ), its
 * call records (newest first, at most CHUNK_READ_CAP) and up to `limit` followed accounts, with ONE
 * Query: they sort in that order (blockKeys.blockList, feedKeys.feedState, feedKeys.likedChunk,
 * feedKeys.feedChunk, followKeys.follows). The block list comes first, so the
 * Query's 1 MB page never cuts it (at most MAX_BLOCKS entries, about 50 KB). A caller with fewer
 * records reads more FOLLOWS# items instead (the Limit counts items), never more than the Limit.
 */
export async function feedStateWithFollows(openid: string, limit: number): Promise<StateRead> {
  const range = feedStateAndFollows(openid);
  const { items } = await query({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
    Limit: 2 + LIKED_CHUNKS_READ + CHUNK_READ_CAP + limit,
  });
  const prefix = followKeys.follows(openid, '').sk;
  const state = items.find((i) => i.sk === range.state);
  const blocked = blockedIn(items.find((i) => i.sk === range.from));
  const chunks = items.filter((i) => String(i.sk).startsWith(range.chunkPrefix));
  const likedChunks = items.filter((i) => String(i.sk).startsWith(range.likedPrefix));
  const followees = items
    .filter((i) => String(i.sk).startsWith(prefix))
    .map((i) => (typeof i.followee === 'string' ? i.followee : String(i.sk).slice(prefix.length)))
    .filter(Boolean)
    .slice(0, limit);
  return { state, chunks, likedChunks, followees, blocked };
}

/**
 * An anonymous device's feed state: its call records (feedKeys.deviceFeedChunk), with ONE Query. A
 * device has no state item (it cannot like or dislike, which write one).
 */
export async function deviceFeedState(deviceId: string): Promise<StateRead> {
  const range = deviceFeedStateAndChunks(deviceId);
  const { items } = await query({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
    Limit: 1 + CHUNK_READ_CAP,
  });
  return { state: undefined, chunks: items.filter((i) => String(i.sk).startsWith(range.chunkPrefix)), likedChunks: [], followees: [], blocked: new Set() };
}

/** Candidates of an author's latest-videos item. */
export function latestCandidates(author: string, item: Record<string, unknown> | undefined): CandidateFields[] {
  const videos = (item?.videos ?? []) as LatestEntry[];
  return videos.map((v) => ({ vid: v.vid, author_openid: author, tags: v.tags ?? [], created_at: v.created_at, trend: 0 }));
}
