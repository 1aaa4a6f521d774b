import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../clock.js';
import { backoff } from '../db/backoff.js';
import { batchGetHubItems, batchPutHubItems, inParallel, itemId } from '../db/batch.js';
import { db, tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { cancellationCode, transactWrite, type TransactItem } from '../db/transact.js';
import { NotFoundError, UnavailableError } from '../errors.js';
import { newVid } from '../ids.js';
import { postingEntry, postingMonth, searchGrams, videoSearchText } from './search-index.js';
import { initialTrend } from './trend.js';

/**
 * The video store: the only way a video enters or changes in the catalog. Besides the video item
 * it keeps, in the same transaction, what the feed reads instead of scanning the catalog: the
 * per-tag ranking items, the co-likes item, the author's latest-videos list and the author's
 * video_count; and, right after, the search postings of `q` (docs/feed.md).
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
export const LATEST_CAP = 5;
export const COLIKES_CAP = 200;

const TABLE = () => tableNames.hub;

type Fields = Pick<VideoItem, 'title' | 'description' | 'cover_url' | 'video_url' | 'duration_s' | 'tags'>;

function cleanFields(input: VideoInput): Fields {
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

export async function getVideo(vid: string, consistent = false): Promise<VideoItem | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: hubItems.video(vid), ConsistentRead: consistent }));
  return out.Item as VideoItem | undefined;
}

/** Several videos with BatchGet, in the order asked, unknown vids dropped. */
export async function getVideos(vids: string[]): Promise<VideoItem[]> {
  const found = await batchGetHubItems<VideoItem>(vids.map((vid) => hubItems.video(vid)));
  return vids.map((vid) => found.get(itemId(hubItems.video(vid)))).filter((v): v is VideoItem => v !== undefined);
}

// Items ----------------------------------------------------------------------------------------------

function videoItem(video: VideoItem) {
  return {
    ...hubItems.video(video.vid),
    ...hubItems.videosIndex(video.created_at, video.vid),
    ...hubItems.authorIndex(video.author_openid, video.created_at, video.vid),
    ...video,
    ...hubItems.trendingIndex(video.gsi3sk),
    entity: 'video',
  };
}

/** A tag's ranking item: carries what scoring needs, so the feed ranks it without reading the video. */
function tagItem(video: VideoItem, tag: string) {
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

const coLikesItem = (vid: string) => ({ ...hubItems.coLikes(vid), entity: 'colikes', vid, n: {}, m: {} });

const latestEntry = (video: VideoItem): LatestEntry => ({ vid: video.vid, tags: video.tags, created_at: video.created_at });

function mergeLatest(current: LatestEntry[], added: LatestEntry[]): LatestEntry[] {
  const byVid = new Map([...current, ...added].map((e) => [e.vid, e]));
  return [...byVid.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : -1)).slice(0, LATEST_CAP);
}

// Search postings (outside the transaction: a retry of putVideo rewrites them, ADD/DELETE are idempotent)

async function changePostings(action: 'ADD' | 'DELETE', buckets: Map<string, string[]>): Promise<void> {
  const tasks = [...buckets.entries()];
  await inParallel(tasks, 16, ([bucket, entries]) => {
    const [gram, month] = JSON.parse(bucket) as [string, string];
    return db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: hubItems.searchGram(gram, month),
        UpdateExpression: action === 'ADD' ? 'ADD e :entries SET entity = :entity' : 'DELETE e :entries',
        ExpressionAttributeValues: action === 'ADD' ? { ':entries': new Set(entries), ':entity': 'search_postings' } : { ':entries': new Set(entries) },
      }),
    );
  });
}

function postingBuckets(videos: { vid: string; created_at: string; grams: string[] }[]): Map<string, string[]> {
  const buckets = new Map<string, string[]>();
  for (const v of videos) {
    const entry = postingEntry(v.created_at, v.vid);
    for (const gram of v.grams) {
      const key = JSON.stringify([gram, postingMonth(v.created_at)]);
      const list = buckets.get(key);
      if (list) list.push(entry);
      else buckets.set(key, [entry]);
    }
  }
  return buckets;
}

// Create / update --------------------------------------------------------------------------------------

class RetryPut extends Error {}

async function createVideo(input: VideoInput, fields: Fields): Promise<VideoItem> {
  const nowIso = clock.nowIso();
  const video: VideoItem = {
    vid: input.vid ?? newVid(),
    ...fields,
    author_openid: input.author_openid,
    created_at: nowIso,
    updated_at: nowIso,
    like_count: 0,
    comment_count: 0,
    share_count: 0,
    ...(input.external_id ? { external_id: input.external_id } : {}),
    gsi3sk: initialTrend(clock.now()),
  };
  const latestKey = hubItems.authorLatest(video.author_openid);
  const latest = (await db.send(new GetCommand({ TableName: TABLE(), Key: latestKey, ConsistentRead: true }))).Item as
    | { videos?: LatestEntry[]; version?: number }
    | undefined;
  const items: TransactItem[] = [
    { Put: { TableName: TABLE(), Item: videoItem(video), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Update: {
        TableName: TABLE(),
        Key: hubItems.account(video.author_openid),
        UpdateExpression: 'ADD video_count :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
    {
      Put: {
        TableName: TABLE(),
        Item: { ...latestKey, entity: 'author_latest', openid: video.author_openid, videos: mergeLatest(latest?.videos ?? [], [latestEntry(video)]), version: (latest?.version ?? 0) + 1 },
        ConditionExpression: latest ? 'version = :version' : 'attribute_not_exists(pk)',
        ...(latest ? { ExpressionAttributeValues: { ':version': latest.version ?? 0 } } : {}),
      },
    },
    { Put: { TableName: TABLE(), Item: coLikesItem(video.vid) } },
    ...video.tags.map((tag) => ({ Put: { TableName: TABLE(), Item: tagItem(video, tag) } })),
  ];
  if (video.external_id) {
    items.push({
      Put: {
        TableName: TABLE(),
        Item: { ...hubItems.externalId(video.author_openid, video.external_id), entity: 'external_id', vid: video.vid, external_id: video.external_id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  try {
    await transactWrite(items);
  } catch (error) {
    if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new NotFoundError(`The author account "${video.author_openid.slice(0, 64)}" does not exist`);
    // The vid, the external id or the author's latest list changed under us: look again.
    if (items.some((_, i) => i !== 1 && cancellationCode(error, i) === 'ConditionalCheckFailed')) throw new RetryPut();
    throw error;
  }
  await changePostings('ADD', postingBuckets([{ vid: video.vid, created_at: video.created_at, grams: searchGrams(videoSearchText(video)) }]));
  return video;
}

async function updateVideo(existing: VideoItem, input: VideoInput, fields: Fields): Promise<VideoItem> {
  const video: VideoItem = { ...existing, ...fields, updated_at: clock.nowIso(), ...(input.external_id ? { external_id: input.external_id } : {}) };
  const oldTags = new Set(existing.tags ?? []);
  const newTags = new Set(video.tags);
  const items: TransactItem[] = [
    {
      // SET only the content: the counters and the trend may be moving under concurrent likes.
      Update: {
        TableName: TABLE(),
        Key: hubItems.video(video.vid),
        UpdateExpression:
          'SET title = :title, description = :description, cover_url = :cover, video_url = :url, duration_s = :duration, tags = :tags, updated_at = :now' +
          (input.external_id ? ', external_id = :external' : ''),
        ConditionExpression: 'attribute_exists(pk) AND updated_at = :previous',
        ExpressionAttributeValues: {
          ':title': video.title,
          ':description': video.description,
          ':cover': video.cover_url,
          ':url': video.video_url,
          ':duration': video.duration_s,
          ':tags': video.tags,
          ':now': video.updated_at,
          ':previous': existing.updated_at,
          ...(input.external_id ? { ':external': input.external_id } : {}),
        },
      },
    },
    ...[...oldTags].filter((t) => !newTags.has(t)).map((tag) => ({ Delete: { TableName: TABLE(), Key: hubItems.videoTag(video.vid, tag) } })),
    // A new tag's ranking item starts from the trend read above.
    ...[...newTags].filter((t) => !oldTags.has(t)).map((tag) => ({ Put: { TableName: TABLE(), Item: tagItem({ ...existing, tags: video.tags }, tag) } })),
    ...[...newTags]
      .filter((t) => oldTags.has(t))
      .map((tag) => ({
        Update: { TableName: TABLE(), Key: hubItems.videoTag(video.vid, tag), UpdateExpression: 'SET tags = :tags', ExpressionAttributeValues: { ':tags': video.tags } },
      })),
  ];
  try {
    await transactWrite(items);
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new RetryPut();
    throw error;
  }
  const before = new Set(searchGrams(videoSearchText(existing)));
  const after = new Set(searchGrams(videoSearchText(video)));
  await Promise.all([
    changePostings('DELETE', postingBuckets([{ vid: video.vid, created_at: video.created_at, grams: [...before].filter((g) => !after.has(g)) }])),
    changePostings('ADD', postingBuckets([{ vid: video.vid, created_at: video.created_at, grams: [...after] }])),
  ]);
  const fresh = await getVideo(video.vid, true);
  return fresh ?? video;
}

async function findExisting(input: VideoInput): Promise<VideoItem | undefined> {
  if (input.vid) return getVideo(input.vid, true);
  if (!input.external_id) return undefined;
  const link = await db.send(new GetCommand({ TableName: TABLE(), Key: hubItems.externalId(input.author_openid, input.external_id), ConsistentRead: true }));
  const vid = (link.Item as { vid?: string } | undefined)?.vid;
  return vid ? getVideo(vid, true) : undefined;
}

/**
 * Creates a video, or updates the one named by `vid` or by (author, `external_id`): content and tags
 * change, counters, trend, author and creation time are kept. A published video is in the `new`
 * list, the trending and tag rankings, the author's latest list and the search index when this
 * returns. The author's account must exist (404 otherwise).
 */
export async function putVideo(input: VideoInput): Promise<{ video: VideoItem; created: boolean }> {
  const fields = cleanFields(input);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const existing = await findExisting(input);
      if (existing) return { video: await updateVideo(existing, input, fields), created: false };
      return { video: await createVideo(input, fields), created: true };
    } catch (error) {
      if (!(error instanceof RetryPut)) throw error;
      // Another publish of the same video won the race: back off with jitter before re-reading it.
      await backoff(attempt + 1, { firstMs: 25 });
    }
  }
  throw new UnavailableError('The video is being changed by another request; retry shortly');
}

// Bulk import ------------------------------------------------------------------------------------------

/**
 * Bulk import of NEW videos with a given history (creation time, like count): the same items as
 * putVideo, written with BatchWrite and aggregated per author and per postings bucket (read, merged,
 * rewritten) so that a few hundred videos take seconds. Only for seeding a catalog nobody else is
 * writing to at the same time; the authors' accounts must exist.
 */
export async function importVideos(inputs: ImportedVideo[], options: { emptyCatalog?: boolean } = {}): Promise<VideoItem[]> {
  const videos: VideoItem[] = inputs.map((input) => {
    const likes = input.like_count ?? 0;
    return {
      vid: input.vid,
      ...cleanFields(input),
      author_openid: input.author_openid,
      created_at: input.created_at,
      updated_at: input.created_at,
      like_count: likes,
      comment_count: 0,
      share_count: 0,
      ...(input.external_id ? { external_id: input.external_id } : {}),
      gsi3sk: initialTrend(Date.parse(input.created_at), likes),
    };
  });
  const authors = [...new Set(videos.map((v) => v.author_openid))];
  const latest = await batchGetHubItems<{ videos?: LatestEntry[]; version?: number }>(authors.map((a) => hubItems.authorLatest(a)));
  const puts: Record<string, unknown>[] = [];
  for (const video of videos) {
    puts.push(videoItem(video), coLikesItem(video.vid), ...video.tags.map((tag) => tagItem(video, tag)));
    if (video.external_id) {
      puts.push({ ...hubItems.externalId(video.author_openid, video.external_id), entity: 'external_id', vid: video.vid, external_id: video.external_id });
    }
  }
  for (const author of authors) {
    const current = latest.get(itemId(hubItems.authorLatest(author)));
    const mine = videos.filter((v) => v.author_openid === author).map(latestEntry);
    puts.push({ ...hubItems.authorLatest(author), entity: 'author_latest', openid: author, videos: mergeLatest(current?.videos ?? [], mine), version: (current?.version ?? 0) + 1 });
  }
  // Postings merged into whole bucket items: a few hundred BatchWrites instead of thousands of
  // updates. Into an empty catalog (the demo seed) there is nothing to merge with.
  const buckets = postingBuckets(videos.map((v) => ({ vid: v.vid, created_at: v.created_at, grams: searchGrams(videoSearchText(v)) })));
  const bucketKeys = [...buckets.keys()].map((b) => {
    const [gram, month] = JSON.parse(b) as [string, string];
    return { bucket: b, key: hubItems.searchGram(gram, month) };
  });
  const writePostings = async () => {
    const existing = options.emptyCatalog ? new Map<string, { e?: Set<string> }>() : await batchGetHubItems<{ e?: Set<string> }>(bucketKeys.map((k) => k.key));
    await batchPutHubItems(
      bucketKeys.map(({ bucket, key }) => ({
        ...key,
        entity: 'search_postings',
        e: new Set([...(existing.get(itemId(key))?.e ?? []), ...buckets.get(bucket)!]),
      })),
    );
  };
  await Promise.all([batchPutHubItems(puts), writePostings()]);
  await inParallel(authors, 8, (author) =>
    db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: hubItems.account(author),
        UpdateExpression: 'ADD video_count :n',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':n': videos.filter((v) => v.author_openid === author).length },
      }),
    ),
  );
  return videos;
}
