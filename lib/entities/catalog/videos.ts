import { createHash } from 'node:crypto';
import { dropSharedHeads } from './shared-heads.js';
import { GetCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { backoff } from '../../platform/db/backoff.js';
import { batchGetHubItems, batchWriteHubItems, itemId, type BatchWrite } from '../../platform/db/batch.js';
import { db, tableNames } from '../../platform/db/client.js';
import { afterCommit } from '../../platform/db/failures.js';
import { itemParser } from '../../platform/db/item-check.js';
import { accountCounterUpdate, LIVE_ACCOUNT } from '../accounts/accounts.js';
import { videoKeys } from './video-items.js';
import { cancellationCode, MAX_TRANSACTION_ITEMS, transactItemOf, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { ForbiddenError, NotFoundError, UnavailableError } from '../../platform/errors.js';
import { newVid } from '../../platform/ids.js';
import { postingWrites } from './search-index.js';
import { countTags, tagDeltas } from './tag-stats.js';
import { initialTrend } from './trend.js';
import { authorLatestItem, cleanFields, externalIdItem, latestEntry, tagItem, videoItem, type StoredLatest, type VideoFields, type VideoInput, type VideoItem } from './video-items.js';

/**
 * The video store: the only way a video enters or changes in the catalog. Besides the video item
 * it keeps, in the same transaction, what the feed reads instead of scanning the catalog: the
 * per-tag ranking items, the author's latest-videos list, the author's
 * video_count and the search postings of `q` (those that do not fit follow right after the commit);
 * and, right after, the tag counters (docs/feed.md).
 */
const TABLE = () => tableNames.hub;

/** The checked parse of a whole video item (not of an index's projection of it: those carry no `entity`). */
export const videoFromItem = itemParser<VideoItem>('video', {
  entity: 'video',
  required: { vid: 'string', title: 'string', author_openid: 'string', created_at: 'string', tags: 'list' },
  optional: { like_count: 'number', comment_count: 'number', share_count: 'number', gsi3sk: 'number', trend: 'number', trend_key_at: 'number', external_id: 'string' },
});

/** The checked parse of an author's latest-videos list (StoredLatest). */
export const authorLatestFromItem = itemParser<StoredLatest>('latest videos', { entity: 'author_latest', optional: { videos: 'list', version: 'number' } });

/** The author's latest list among the items of a BatchGet that asked for its key. */
export const authorLatestIn = (found: ReadonlyMap<string, Record<string, unknown>>, author: string): StoredLatest | undefined => authorLatestFromItem(found.get(itemId(videoKeys.authorLatest(author))));

/** The checked parse of a link naming a vid: an (author, external_id) link or a publish's retry guard. */
const externalIdFromItem = itemParser<{ vid: string }>('external id', { entity: 'external_id', required: { vid: 'string' } });
const publishGuardFromItem = itemParser<{ vid: string; expires_at?: number }>('publish guard', { entity: 'publish_guard', required: { vid: 'string' }, optional: { expires_at: 'number' } });

/** The vid the author's `external_id` names, if any (its video may be gone: removed), strongly consistent. */
export async function vidOfExternalId(author: string, externalId: string): Promise<string | undefined> {
  const link = await db.send(new GetCommand({ TableName: TABLE(), Key: videoKeys.externalId(author, externalId), ConsistentRead: true }));
  return externalIdFromItem(link.Item)?.vid;
}

/** The video of `vid` among the items of a BatchGet that asked for its key (undefined when not found). */
export const videoIn = (found: ReadonlyMap<string, Record<string, unknown>>, vid: string): VideoItem | undefined => videoFromItem(found.get(itemId(videoKeys.video(vid))));

export async function getVideo(vid: string, consistent = false): Promise<VideoItem | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: videoKeys.video(vid), ConsistentRead: consistent }));
  return videoFromItem(out.Item);
}

/** Several videos with BatchGet, in the order asked, unknown vids dropped. */
export async function getVideos(vids: string[]): Promise<VideoItem[]> {
  const found = await batchGetHubItems(vids.map((vid) => videoKeys.video(vid)));
  return vids.map((vid) => videoIn(found, vid)).filter((v): v is VideoItem => v !== undefined);
}

// The video item's attribute changes, for the use cases to compose --------------------------------------

/** The counters of a video item that its writers move directly (the stream moves the others: videoCounterDelta). */
export type VideoCounter = 'share_count' | 'open_count';

/** The video's counters moved by `deltas` (a share, an open of a share page), as a transaction item; the video must exist. */
export function videoCounterUpdate(vid: string, deltas: Partial<Record<VideoCounter, number>>): TransactItem {
  const moved = Object.entries(deltas).filter(([, d]) => d !== 0);
  return {
    Update: {
      TableName: TABLE(),
      Key: videoKeys.video(vid),
      UpdateExpression: `ADD ${moved.map(([c]) => `${c} :${c}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: Object.fromEntries(moved.map(([c, d]) => [`:${c}`, d])),
    },
  };
}

/** A check that the video exists, as a transaction item. */
export const videoExistsCheck = (vid: string): TransactItem => ({ ConditionCheck: { TableName: TABLE(), Key: videoKeys.video(vid), ConditionExpression: 'attribute_exists(pk)' } });

/**
 * A counter of the video that follows from the table's stream (lib/features/streams/counters.ts sums
 * such deltas per item into one update): its like_count and comment_count, and its exact trend.
 */
export const videoCounterDelta = (vid: string, counter: 'like_count' | 'comment_count' | 'trend', delta: number) => ({ key: videoKeys.video(vid), attribute: counter, delta });

/**
 * The move of the video's trend key (gsi3sk, its place in the trending ranking) to its exact trend,
 * at most once per interval: refused (a failed condition) while the last move is more recent than
 * `dueMs`. Answers the whole item (ALL_NEW): its tags' ranking items follow (tagTrendKeyMove).
 */
export function trendKeyMove(vid: string, nowMs: number, dueMs: number): UpdateCommandInput {
  return {
    TableName: TABLE(),
    Key: videoKeys.video(vid),
    // Items written before the exact trend existed hold it in gsi3sk: no migration.
    UpdateExpression: 'SET gsi3sk = if_not_exists(#trend, if_not_exists(gsi3sk, :zero)), trend_key_at = :now',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(trend_key_at) OR trend_key_at <= :due)',
    ExpressionAttributeNames: { '#trend': 'trend' },
    ExpressionAttributeValues: { ':now': nowMs, ':due': dueMs, ':zero': 0 },
    ReturnValues: 'ALL_NEW',
  };
}

/** A tag ranking item's key set to the video's moved trend key, unless a later move got there first; a removed tag is not created again. */
export function tagTrendKeyMove(vid: string, tag: string, key: number, nowMs: number): UpdateCommandInput {
  return {
    TableName: TABLE(),
    Key: videoKeys.videoTag(vid, tag),
    UpdateExpression: 'SET gsi3sk = :key, trend_key_at = :now',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(trend_key_at) OR trend_key_at < :now)',
    ExpressionAttributeValues: { ':key': key, ':now': nowMs },
  };
}

/** The copy of the author's nickname a video item may hold, removed (an erasure); the video must exist. */
export const authorNicknameRemoval = (vid: string): UpdateCommandInput => ({ TableName: TABLE(), Key: videoKeys.video(vid), UpdateExpression: 'REMOVE author_nickname', ConditionExpression: 'attribute_exists(pk)' });

/** The video deleted (a moderator's removal, lib/features/moderation/actions.ts), as a transaction item: it must still exist. */
export const videoDelete = (vid: string): TransactItem => ({ Delete: { TableName: TABLE(), Key: videoKeys.video(vid), ConditionExpression: 'attribute_exists(pk)' } });

/** The video's tag ranking items deleted with it, as transaction items. */
export const videoTagDeletes = (video: Pick<VideoItem, 'vid' | 'tags'>): TransactItem[] => video.tags.map((tag) => ({ Delete: { TableName: TABLE(), Key: videoKeys.videoTag(video.vid, tag) } }));

/** The author's latest list without `vid` (none when `latest`, as read, does not hold it), conditional on the version read. */
export function authorLatestRemoval(author: string, latest: StoredLatest | undefined, vid: string): TransactItem[] {
  if (!latest?.videos?.some((v) => v.vid === vid)) return [];
  return [
    {
      Update: {
        TableName: TABLE(),
        Key: videoKeys.authorLatest(author),
        UpdateExpression: 'SET videos = :videos, version = :next',
        ConditionExpression: 'version = :v',
        ExpressionAttributeValues: { ':videos': latest.videos.filter((v) => v.vid !== vid), ':v': latest.version ?? 0, ':next': (latest.version ?? 0) + 1 },
      },
    },
  ];
}

// Create / update --------------------------------------------------------------------------------------

class RetryPut extends Error {}

/**
 * How long a publish without external_id that repeats the same author and content is the same
 * video: the retry of a publish that failed (or whose answer was lost) after its transaction.
 */
export const PUBLISH_RETRY_WINDOW_MS = 10 * 60_000;

/** The content of a publish, as a digest: title, description, URLs, duration and tags. */
const contentDigest = (fields: VideoFields) => createHash('sha256').update(JSON.stringify(fields)).digest('hex');

/** The retry guard of a publish without vid or external_id (those name the video themselves). */
function publishGuardKey(input: VideoInput, fields: VideoFields) {
  return input.vid || input.external_id ? undefined : videoKeys.publishGuard(input.author_openid, contentDigest(fields));
}

/** The vid a recent identical publish created, if its guard is still live, and its video (gone when a moderator removed it). */
async function guardedVideo(guardKey: { pk: string; sk: string }): Promise<{ vid?: string; video?: VideoItem }> {
  const guard = publishGuardFromItem((await db.send(new GetCommand({ TableName: TABLE(), Key: guardKey, ConsistentRead: true }))).Item);
  if (!guard?.vid || (guard.expires_at ?? 0) <= clock.now()) return {};
  return { vid: guard.vid, video: await getVideo(guard.vid, true) };
}

/** Found by its retry guard: the video is committed; its search postings are written again (idempotent puts), in case the first publish failed before them. */
class AlreadyPublished extends Error {
  constructor(readonly guardKey: { pk: string; sk: string }) {
    super('already published');
  }
}

/** Every search posting of a stored video (what the feed's `q` reads). */
const indexVideo = (video: VideoItem) => batchWriteHubItems(postingWrites(video));

/**
 * The search postings that fit go into the transaction `items` (so that a video is found by `q`
 * the moment it exists, and a changed text is searched as changed); returns the rest, written
 * right after the commit. Texts of up to about 80 grams fit whole.
 */
function postingsInTransaction(items: TransactItem[], postings: BatchWrite[]): BatchWrite[] {
  const room = Math.max(0, MAX_TRANSACTION_ITEMS - items.length);
  items.push(...postings.slice(0, room).map((write) => transactItemOf(TABLE(), write)));
  return postings.slice(room);
}

/** What the record of a video a moderator removed tells (lib/features/moderation/actions.ts): who, when, why. */
export interface VideoRemoval {
  vid: string;
  removed_at: string;
  removed_by: string;
  note?: string;
}

/** The removal of `vid` by a moderator, if it was removed (a strongly consistent read of its record). */
export async function removalOf(vid: string): Promise<VideoRemoval | undefined> {
  const item = removalFromItem((await db.send(new GetCommand({ TableName: TABLE(), Key: videoKeys.removed(vid), ConsistentRead: true }))).Item);
  return item ? { vid, removed_at: item.removed_at, removed_by: item.removed_by, ...(item.note ? { note: item.note } : {}) } : undefined;
}

/** The record of `video` removed by a moderator (its fields as they were, without index keys), as a transaction item. */
export function removedVideoPut(fields: Record<string, unknown> & { vid: string }, removal: Omit<VideoRemoval, 'vid'>): TransactItem {
  return { Put: { TableName: TABLE(), Item: { ...fields, ...videoKeys.removed(fields.vid), entity: 'removed_video', removed_at: removal.removed_at, removed_by: removal.removed_by, ...(removal.note ? { note: removal.note } : {}) } } };
}

/** The checked parse of a removed video's record. */
const removalFromItem = itemParser<VideoRemoval>('removed video', { entity: 'removed_video', required: { removed_at: 'string', removed_by: 'string' }, optional: { note: 'string' } });

/** A publish naming the vid of a video a moderator removed: that vid is never published again (docs/moderation.md, "Moderation"). */
export class VideoRemovedError extends ForbiddenError {
  constructor(readonly vid: string) {
    super(`Video "${vid.slice(0, 64)}" was removed by a moderator and is not published again`);
  }
}

/** What a publish finds: the video it updates, or the vid of a video gone (removed) that its external_id still names. */
interface Found {
  existing?: VideoItem;
  staleExternal?: string;
}

/** The vids of videos gone (removed) that a publish's external_id link or retry guard still names: the new video replaces them there, as read. */
interface Stale {
  staleExternal?: string;
  staleGuard?: string;
}

async function createVideo(input: VideoInput, fields: VideoFields, guardKey: { pk: string; sk: string } | undefined, { staleExternal, staleGuard }: Stale): Promise<VideoItem> {
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
  const latestKey = videoKeys.authorLatest(video.author_openid);
  const latest = authorLatestFromItem((await db.send(new GetCommand({ TableName: TABLE(), Key: latestKey, ConsistentRead: true }))).Item);
  const items: TransactItem[] = [
    { Put: { TableName: TABLE(), Item: videoItem(video), ConditionExpression: 'attribute_not_exists(pk)' } },
    // Not a deleted account (docs/accounts.md, "Erasure").
    accountCounterUpdate(video.author_openid, { video_count: 1 }, LIVE_ACCOUNT),
    {
      Put: {
        TableName: TABLE(),
        Item: authorLatestItem(video.author_openid, latest, [latestEntry(video)]),
        ConditionExpression: latest ? 'version = :version' : 'attribute_not_exists(pk)',
        ...(latest ? { ExpressionAttributeValues: { ':version': latest.version ?? 0 } } : {}),
      },
    },
    ...video.tags.map((tag) => ({ Put: { TableName: TABLE(), Item: tagItem(video, tag) } })),
  ];
  if (video.external_id) {
    // An external_id that named a video since removed names the new one (its link replaced as read).
    const link = staleExternal
      ? { ConditionExpression: 'attribute_not_exists(pk) OR vid = :stale', ExpressionAttributeValues: { ':stale': staleExternal } }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    items.push({ Put: { TableName: TABLE(), Item: externalIdItem(video, video.external_id), ...link } });
  }
  // A vid given by the caller (a held video's approval) is never one a moderator removed.
  const removedIndex = input.vid ? items.length : -1;
  if (input.vid) items.push({ ConditionCheck: { TableName: TABLE(), Key: videoKeys.removed(video.vid), ConditionExpression: 'attribute_not_exists(pk)' } });
  const now = clock.now();
  const guardIndex = guardKey ? items.length : -1;
  if (guardKey) {
    const expires = now + PUBLISH_RETRY_WINDOW_MS;
    items.push({
      Put: {
        TableName: TABLE(),
        Item: { ...guardKey, entity: 'publish_guard', vid: video.vid, expires_at: expires, ttl: Math.ceil(expires / 1000) + 60 },
        // A guard naming a removed video is no retry of this publish: it names the new video from now on.
        ConditionExpression: `attribute_not_exists(pk) OR expires_at <= :now${staleGuard ? ' OR vid = :stale' : ''}`,
        ExpressionAttributeValues: { ':now': now, ...(staleGuard ? { ':stale': staleGuard } : {}) },
      },
    });
  }
  const laterPostings = postingsInTransaction(items, postingWrites(video));
  try {
    await transactWrite(items);
  } catch (error) {
    if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new NotFoundError(`The author account "${video.author_openid.slice(0, 64)}" does not exist`);
    if (removedIndex >= 0 && cancellationCode(error, removedIndex) === 'ConditionalCheckFailed') throw new VideoRemovedError(video.vid);
    // The same content was published moments ago (a retry, or a parallel duplicate): that video.
    if (guardKey && cancellationCode(error, guardIndex) === 'ConditionalCheckFailed') throw new AlreadyPublished(guardKey);
    // The vid, the external id or the author's latest list changed under us: look again.
    if (items.some((_, i) => i !== 1 && cancellationCode(error, i) === 'ConditionalCheckFailed')) throw new RetryPut();
    throw error;
  }
  // After the commit: the postings that did not fit (retried; should they still fail, the 503 asks
  // for the retry, which completes them through the guard or the external_id) and the tag counters
  // (best effort).
  await Promise.all([batchWriteHubItems(laterPostings), countTags(tagDeltas([], video.tags), 1)]);
  return video;
}

async function updateVideo(existing: VideoItem, input: VideoInput, fields: VideoFields): Promise<VideoItem> {
  const video: VideoItem = { ...existing, ...fields, updated_at: clock.nowIso(), ...(input.external_id ? { external_id: input.external_id } : {}) };
  const oldTags = new Set(existing.tags ?? []);
  const newTags = new Set(video.tags);
  const items: TransactItem[] = [
    {
      // SET only the content: the counters and the trend may be moving under concurrent likes.
      Update: {
        TableName: TABLE(),
        Key: videoKeys.video(video.vid),
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
    ...[...oldTags].filter((t) => !newTags.has(t)).map((tag) => ({ Delete: { TableName: TABLE(), Key: videoKeys.videoTag(video.vid, tag) } })),
    // A new tag's ranking item starts from the trend read above.
    ...[...newTags].filter((t) => !oldTags.has(t)).map((tag) => ({ Put: { TableName: TABLE(), Item: tagItem({ ...existing, tags: video.tags }, tag) } })),
    ...[...newTags]
      .filter((t) => oldTags.has(t))
      .map((tag) => ({
        Update: { TableName: TABLE(), Key: videoKeys.videoTag(video.vid, tag), UpdateExpression: 'SET tags = :tags', ExpressionAttributeValues: { ':tags': video.tags } },
      })),
  ];
  const laterPostings = postingsInTransaction(items, postingWrites(video, existing));
  try {
    await transactWrite(items);
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new RetryPut();
    throw error;
  }
  await Promise.all([batchWriteHubItems(laterPostings), countTags(tagDeltas(existing.tags ?? [], video.tags), 0)]);
  // The counters may have moved since the read: read them again, or answer with the ones read before.
  const fresh = await afterCommit('video after update', () => getVideo(video.vid, true), () => video);
  return fresh ?? video;
}

/**
 * The video a publish updates: the one `vid` names, else the one the author's `external_id` names.
 * An external_id whose video is gone (a moderator removed it) is returned as `staleExternal`: the
 * publish creates a new video and the external_id names it from then on.
 */
async function findExisting(input: VideoInput): Promise<Found> {
  if (input.vid) {
    const existing = await getVideo(input.vid, true);
    if (existing || !input.external_id) return { existing };
  }
  if (!input.external_id) return {};
  const vid = await vidOfExternalId(input.author_openid, input.external_id);
  if (!vid) return {};
  const linked = await getVideo(vid, true);
  if (linked && input.vid === undefined) return { existing: linked };
  return linked ? {} : { staleExternal: vid };
}

/**
 * Creates a video, or updates the one named by `vid` or by (author, `external_id`): content and tags
 * change, counters, trend, author and creation time are kept. A published video is in the `new`
 * list, the trending and tag rankings, the author's latest list and the search index when this
 * returns. The author's account must exist (404 otherwise).
 *
 * Without `vid` or `external_id`, the same author publishing the same content within
 * PUBLISH_RETRY_WINDOW_MS is a retry: it gets the video of the first publish back (created: true,
 * as the first answer said or would have said; `replayed: true`), with its search postings
 * completed, never a second video; unless a moderator removed that video, whose vid is never
 * published again: the publish is a new video (so is one by an `external_id` whose video was removed).
 */
export async function putVideo(input: VideoInput): Promise<{ video: VideoItem; created: boolean; replayed?: true }> {
  try {
    return await writeVideo(input);
  } finally {
    // The lists the feed keeps per container changed (lib/entities/catalog/shared-heads.ts).
    dropSharedHeads();
  }
}

async function writeVideo(input: VideoInput): Promise<{ video: VideoItem; created: boolean; replayed?: true }> {
  const fields = cleanFields(input);
  const guardKey = publishGuardKey(input, fields);
  let staleGuard: string | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const { existing, staleExternal } = await findExisting(input);
      if (existing) return { video: await updateVideo(existing, input, fields), created: false };
      return { video: await createVideo(input, fields, guardKey, { staleExternal, staleGuard }), created: true };
    } catch (error) {
      if (error instanceof AlreadyPublished) {
        const { vid, video } = await guardedVideo(error.guardKey);
        if (video) {
          await indexVideo(video);
          return { video, created: true, replayed: true };
        }
        // The guard names a video a moderator removed: this publish is a new video.
        staleGuard = vid;
      } else if (!(error instanceof RetryPut)) throw error;
      // Another publish of the same video won the race: back off with jitter before re-reading it.
      await backoff(attempt + 1, { firstMs: 25 });
    }
  }
  throw new UnavailableError('The video is being changed by another request; retry shortly');
}
