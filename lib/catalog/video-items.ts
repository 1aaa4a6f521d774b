import { hubItems } from '../db/hub-items.js';

/**
 * The catalog's items, built here once for both writers: putVideo (videos.ts) and the bulk import
 * (import.ts). Besides the video item, what the feed reads instead of scanning the catalog: the
 * per-tag ranking items, the co-likes item and the author's latest-videos list.
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
  /** The trend score (lib/catalog/trend.ts), stored as the gsi3 sort key of the TRENDING ranking. */
  gsi3sk: number;
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

/** How many videos an author's latest list keeps, and how many co-liked videos one video tracks. */
const LATEST_CAP = 5;
export const COLIKES_CAP = 200;

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
    ...hubItems.video(video.vid),
    ...hubItems.videosIndex(video.created_at, video.vid),
    ...hubItems.authorIndex(video.author_openid, video.created_at, video.vid),
    ...video,
    ...hubItems.trendingIndex(video.vid, video.gsi3sk),
    entity: 'video',
  };
}

/** A tag's ranking item: carries what scoring needs, so the feed ranks it without reading the video. */
export function tagItem(video: VideoItem, tag: string) {
  return {
    ...hubItems.videoTag(video.vid, tag),
    ...hubItems.tagIndex(tag, video.gsi3sk),
    entity: 'video_tag',
    vid: video.vid,
    tag,
    tags: video.tags,
    author_openid: video.author_openid,
    created_at: video.created_at,
  };
}

export const coLikesItem = (vid: string) => ({ ...hubItems.coLikes(vid), entity: 'colikes', vid, n: {}, m: {} });

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
  return { ...hubItems.authorLatest(author), entity: 'author_latest', openid: author, videos: mergeLatest(current?.videos ?? [], added), version: (current?.version ?? 0) + 1 };
}

/** (author, external_id) -> vid: the publisher's own id finds the video again. */
export function externalIdItem(video: VideoItem, externalId: string) {
  return { ...hubItems.externalId(video.author_openid, externalId), entity: 'external_id', vid: video.vid, external_id: externalId };
}
