import { timeKey, shardKey, allShards, SHARDS, shardOf } from '../../platform/db/keys.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const videoKeys = {
  /** The video and its counters. gsi1: VIDEOS#k / created_at#vid (order=new; k from the vid); gsi2: AUTHOR#openid / created_at#vid. */
  video: (vid: string) => ({ pk: `VIDEO#${vid}`, sk: 'VIDEO' }),
  /** A video a moderator removed (lib/features/moderation/actions.ts): its fields as they were; its vid is never published again. */
  removed: (vid: string) => ({ pk: `VIDEO#${vid}`, sk: 'REMOVED' }),
  videosIndex: (createdAt: string, vid: string) => ({ gsi1pk: shardKey('VIDEOS', vid, SHARDS.videos), gsi1sk: timeKey(createdAt, vid) }),
  authorIndex: (openid: string, createdAt: string, vid: string) => ({ gsi2pk: `AUTHOR#${openid}`, gsi2sk: timeKey(createdAt, vid) }),
  /** (author, external_id) -> vid: makes publishing idempotent per account. */
  externalId: (openid: string, externalId: string) => ({ pk: `ACCOUNT#${openid}`, sk: `EXTERNAL#${externalId}` }),
  /** Retry guard of publishing without external_id: (author, content digest) -> vid for a short window, with a TTL. */
  publishGuard: (openid: string, digest: string) => ({ pk: `ACCOUNT#${openid}`, sk: `PUBLISHED#${digest}` }),
  /** A video's place in the trending ranking (on the video item). gsi3: TRENDING#k / trend score (k from the vid). */
  trendingIndex: (vid: string, trend: number) => ({ gsi3pk: shardKey('TRENDING', vid, SHARDS.trending), gsi3sk: trend }),
  /** One tag of a video, ranked by the video's trend score. gsi3: TAG#tag / trend score. */
  videoTag: (vid: string, tag: string) => ({ pk: `VIDEO#${vid}`, sk: `TAG#${tag}` }),
  tagIndex: (tag: string, trend: number) => ({ gsi3pk: `TAG#${tag}`, gsi3sk: trend }),
  /** The videos most liked by the same people as vid: the feed's learned model (lib/features/recommend/neighbour-items.ts). */
  neighbours: (vid: string) => ({ pk: `VIDEO#${vid}`, sk: 'NEIGHBOURS' }),
  /** The newest videos of an author (capped list): the "authors you follow" candidate source. */
  authorLatest: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'LATEST_VIDEOS' }),
  /** How many videos carry a tag (`n`), and how many videos the catalog holds (`videos`): the feed's tag weights (idf). */
  tagStats: (tag: string) => ({ pk: `TAG#${tag}`, sk: 'STATS' }),
  catalogStats: () => ({ pk: 'CATALOG', sk: 'STATS' }),
};

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const videoPartitions = {
  /** Every shard of a sharded list, in shard order: readers Query them all and merge. */
  videos: allShards('VIDEOS', SHARDS.videos),
  trending: allShards('TRENDING', SHARDS.trending),
  /** The shard of an item in those lists. */
  videoShard: (vid: string) => shardOf(vid, SHARDS.videos),
  trendingShard: (vid: string) => shardOf(vid, SHARDS.trending),
  tag: (tag: string) => videoKeys.tagIndex(tag, 0).gsi3pk,
  author: (openid: string) => videoKeys.authorIndex(openid, '', '').gsi2pk,
};


/**
 * The catalog's items, built here once for both writers: putVideo (videos.ts) and the bulk import
 * (import.ts). Besides the video item, what the feed reads instead of scanning the catalog: the
 * per-tag ranking items and the author's latest-videos list (a video's neighbours come from the
 * learned model: lib/features/recommend/model-refresh.ts).
 */
export interface VideoItem {
  vid: string;
  title: string;
  description: string;
  cover_url: string;
  video_url: string;
  duration_s: number;
  tags: string[];
  author_openid: string;
  created_at: string;
  updated_at: string;
  like_count: number;
  comment_count: number;
  share_count: number;
  external_id?: string;
  /**
   * The trend score's index key (lib/entities/catalog/trend.ts), the gsi3 sort key of the TRENDING ranking and
   * copied to the tag rankings: the exact trend as of its last move (TREND_KEY_INTERVAL_MS).
   */
  gsi3sk: number;
  /** The exact trend (every applied like), in no index; absent on items from before it: then `gsi3sk` (exactTrend). */
  trend?: number;
  /** When the stream processor last copied `trend` to `gsi3sk` (epoch ms; lib/features/streams/trend-keys.ts). */
  trend_key_at?: number;
}

export interface VideoInput {
  /** Update (or create with) this vid; without it a new vid is drawn, or `external_id` finds the video. */
  vid?: string;
  author_openid: string;
  title: string;
  description?: string;
  cover_url: string;
  video_url: string;
  duration_s: number;
  tags?: string[];
  /** The publisher's own id: the same (author, external_id) updates that video instead of adding one. */
  external_id?: string;
}

/** A video brought in by bulk import (the demo catalog), with its history already decided. */
export interface ImportedVideo extends VideoInput {
  vid: string;
  created_at: string;
  like_count?: number;
}

/** One entry of an author's latest-videos list: enough to score it without reading the video. */
export interface LatestEntry {
  vid: string;
  tags: string[];
  created_at: string;
}

/** How many videos an author's latest list keeps. */
const LATEST_CAP = 5;

export type VideoFields = Pick<VideoItem, 'title' | 'description' | 'cover_url' | 'video_url' | 'duration_s' | 'tags'>;

/** The content fields of an input, trimmed, tags de-duplicated. */
export function cleanFields(input: VideoInput): VideoFields {
  const tags = [...new Set((input.tags ?? []).map((t) => t.trim()).filter(Boolean))];
  return {
    title: input.title.trim(),
    description: (input.description ?? '').trim(),
    cover_url: input.cover_url,
    video_url: input.video_url,
    duration_s: input.duration_s,
    tags,
  };
}

export function videoItem(video: VideoItem) {
  return {
    ...videoKeys.video(video.vid),
    ...videoKeys.videosIndex(video.created_at, video.vid),
    ...videoKeys.authorIndex(video.author_openid, video.created_at, video.vid),
    ...video,
    ...videoKeys.trendingIndex(video.vid, video.gsi3sk),
    entity: 'video',
  };
}

/** A tag's ranking item: carries what scoring needs, so the feed ranks it without reading the video. */
export function tagItem(video: VideoItem, tag: string) {
  return {
    ...videoKeys.videoTag(video.vid, tag),
    ...videoKeys.tagIndex(tag, video.gsi3sk),
    entity: 'video_tag',
    vid: video.vid,
    tag,
    tags: video.tags,
    author_openid: video.author_openid,
    created_at: video.created_at,
  };
}

export const latestEntry = (video: VideoItem): LatestEntry => ({ vid: video.vid, tags: video.tags, created_at: video.created_at });

function mergeLatest(current: LatestEntry[], added: LatestEntry[]): LatestEntry[] {
  const byVid = new Map([...current, ...added].map((e) => [e.vid, e]));
  return [...byVid.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).slice(0, LATEST_CAP);
}

/** An author's latest-videos item as stored; `version` guards its read-modify-write. */
export interface StoredLatest {
  videos?: LatestEntry[];
  version?: number;
}

/** The author's latest-videos item with `added` merged in, one version on. */
export function authorLatestItem(author: string, current: StoredLatest | undefined, added: LatestEntry[]) {
  return { ...videoKeys.authorLatest(author), entity: 'author_latest', openid: author, videos: mergeLatest(current?.videos ?? [], added), version: (current?.version ?? 0) + 1 };
}

/** (author, external_id) -> vid: the publisher's own id finds the video again. */
export function externalIdItem(video: VideoItem, externalId: string) {
  return { ...videoKeys.externalId(video.author_openid, externalId), entity: 'external_id', vid: video.vid, external_id: externalId };
}
