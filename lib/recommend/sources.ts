import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { LatestEntry, VideoItem } from '../catalog/video-items.js';
import { db, tableNames } from '../db/client.js';
import { deviceFeedStateAndChunks, feedStateAndFollows, hubItems, hubPartitions } from '../db/hub-items.js';
import { CHUNK_READ_CAP } from './feed-state.js';
import type { Candidate } from './scoring.js';

/**
 * The reads of the feed, each ONE DynamoDB request whose size is bounded by its limit, whatever the
 * catalog size or the caller's history (docs/feed.md "Request budget").
 */
const TABLE = () => tableNames.hub;

export type CandidateFields = Omit<Candidate, 'sources' | 'colike'> & { colike?: number };

async function query(input: Omit<QueryCommandInput, 'TableName'>): Promise<{ items: Record<string, unknown>[]; lastKey?: Record<string, unknown> }> {
  const out = await db.send(new QueryCommand({ TableName: TABLE(), ...input }));
  return { items: (out.Items ?? []) as Record<string, unknown>[], lastKey: out.LastEvaluatedKey };
}

/**
 * Candidate reads return only what ranking needs; the few videos an answer shows are read whole
 * afterwards. Smaller pages on the wire, and more candidates per request (a Query reads up to 1 MB).
 */
const RANKING_ATTRIBUTES = {
  ProjectionExpression: '#vid, #author, #tags, #created, #trend',
  ExpressionAttributeNames: { '#vid': 'vid', '#author': 'author_openid', '#tags': 'tags', '#created': 'created_at', '#trend': 'gsi3sk' },
};

export const videoCandidate = (v: VideoItem): CandidateFields => ({
  vid: v.vid,
  author_openid: v.author_openid,
  tags: v.tags ?? [],
  created_at: v.created_at,
  trend: typeof v.gsi3sk === 'number' ? v.gsi3sk : 0,
});

/** The top of the trending ranking (ranking attributes only). */
export async function trendingVideos(limit: number): Promise<VideoItem[]> {
  const { items } = await query({
    ...RANKING_ATTRIBUTES,
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :p',
    ExpressionAttributeValues: { ':p': hubPartitions.trending },
    ScanIndexForward: false,
    Limit: limit,
  });
  return items as unknown as VideoItem[];
}

/** A page of the trending ranking after position (trend, vid), for order=hot. */
export async function trendingPage(after: { t: number; v: string } | undefined, limit: number): Promise<{ videos: VideoItem[]; done: boolean }> {
  const { items, lastKey } = await query({
    ...RANKING_ATTRIBUTES,
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :p',
    ExpressionAttributeValues: { ':p': hubPartitions.trending },
    ScanIndexForward: false,
    Limit: limit,
    ...(after ? { ExclusiveStartKey: { ...hubItems.video(after.v), ...hubItems.trendingIndex(after.t) } } : {}),
  });
  return { videos: items as unknown as VideoItem[], done: !lastKey };
}

/**
 * A page of the catalog, newest first, after position `created_at#vid` (order=new, exploration):
 * ranking attributes only, or whole items when `whole` (a search must read the text).
 */
export async function newestPage(after: string | undefined, limit: number, whole = false): Promise<{ videos: VideoItem[]; done: boolean }> {
  let start: Record<string, unknown> | undefined;
  if (after) {
    const vid = after.slice(after.lastIndexOf('#') + 1);
    start = { ...hubItems.video(vid), gsi1pk: hubPartitions.videos, gsi1sk: after };
  }
  const { items, lastKey } = await query({
    ...(whole ? {} : RANKING_ATTRIBUTES),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': hubPartitions.videos },
    ScanIndexForward: false,
    Limit: limit,
    ...(start ? { ExclusiveStartKey: start } : {}),
  });
  return { videos: items as unknown as VideoItem[], done: !lastKey };
}

/** The best-ranked videos of one tag (tag ranking items carry what scoring needs). */
export async function tagCandidates(tag: string, limit: number): Promise<CandidateFields[]> {
  const { items } = await query({
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :p',
    ExpressionAttributeValues: { ':p': hubPartitions.tag(tag) },
    ScanIndexForward: false,
    Limit: limit,
  });
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
  const { items } = await query({
    ...RANKING_ATTRIBUTES,
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :p',
    ExpressionAttributeValues: { ':p': hubPartitions.author(openid) },
    ScanIndexForward: false,
    Limit: limit,
  });
  return items as unknown as VideoItem[];
}

/** What the first read of get_next_list returns: the state item, the call records, the followed accounts. */
export interface StateRead {
  state?: Record<string, unknown>;
  chunks: Record<string, unknown>[];
  followees: string[];
}

/**
 * The caller's feed state, its call records (newest first, at most CHUNK_READ_CAP) and up to
 * `limit` followed accounts, with ONE Query: they sort in that order (hubItems.feedState,
 * hubItems.feedChunk, hubItems.follows). A caller with fewer records reads more FOLLOWS# items
 * instead (the Limit counts items), never more than the Limit.
 */
export async function feedStateWithFollows(openid: string, limit: number): Promise<StateRead> {
  const range = feedStateAndFollows(openid);
  const { items } = await query({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
    Limit: 1 + CHUNK_READ_CAP + limit,
  });
  const prefix = hubItems.follows(openid, '').sk;
  const state = items.find((i) => i.sk === range.from);
  const chunks = items.filter((i) => String(i.sk).startsWith(range.chunkPrefix));
  const followees = items
    .filter((i) => String(i.sk).startsWith(prefix))
    .map((i) => (typeof i.followee === 'string' ? i.followee : String(i.sk).slice(prefix.length)))
    .filter(Boolean)
    .slice(0, limit);
  return { state, chunks, followees };
}

/** An anonymous device's feed state and its call records, with ONE Query (hubItems.deviceFeedChunk). */
export async function deviceFeedState(deviceId: string): Promise<StateRead> {
  const range = deviceFeedStateAndChunks(deviceId);
  const { items } = await query({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
    Limit: 1 + CHUNK_READ_CAP,
  });
  return { state: items.find((i) => i.sk === range.from), chunks: items.filter((i) => String(i.sk).startsWith(range.chunkPrefix)), followees: [] };
}

/** Candidates of a co-likes item: `n` counts, `m` what scoring needs. */
export function coLikeCandidates(item: Record<string, unknown> | undefined): CandidateFields[] {
  const counts = (item?.n ?? {}) as Record<string, number>;
  const meta = (item?.m ?? {}) as Record<string, { a?: string; t?: string[]; c?: string }>;
  return Object.entries(counts)
    .filter(([vid]) => meta[vid]?.a)
    .map(([vid, n]) => ({ vid, author_openid: meta[vid]!.a!, tags: meta[vid]!.t ?? [], created_at: meta[vid]!.c ?? new Date(0).toISOString(), trend: 0, colike: n }));
}

/** Candidates of an author's latest-videos item. */
export function latestCandidates(author: string, item: Record<string, unknown> | undefined): CandidateFields[] {
  const videos = (item?.videos ?? []) as LatestEntry[];
  return videos.map((v) => ({ vid: v.vid, author_openid: author, tags: v.tags ?? [], created_at: v.created_at, trend: 0 }));
}
