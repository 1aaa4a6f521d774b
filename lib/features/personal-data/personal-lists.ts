import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { videoViews, type StoredVideo } from '../../entities/catalog/video-view.js';
import type { VideoView } from '../../entities/catalog/video-view-schema.js';
import { getVideos } from '../../entities/catalog/videos.js';
import { db, tableNames } from '../../platform/db/client.js';
import { commentKeys } from '../../entities/comments/comments.js';
import { feedKeys } from '../recommend/feed-state.js';
import { reactionKeys } from '../../entities/catalog/reaction-items.js';
import { ForbiddenError } from '../../platform/errors.js';
import { ownProfile, publicProfile, requireAccount } from '../../entities/accounts/accounts.js';
import { relationsOf } from '../../entities/social/follows.js';
import { blockedBy } from '../../entities/social/block-items.js';

const FAV_DEFAULT_PAGE = 20;
export const FAV_MAX_PAGE = 50;
/** With `q`, how many list entries one call examines at most before answering (with a next_id). */
const FAV_SEARCH_SCAN = 200;
/** `next_id` bound: reaching a position reads the index entries before it (see docs/data-model.md). */
export const FAV_MAX_POSITION = 100_000;

/** The lists get_fav's `watch_list` picks (empty: like). */
export const LISTS = ['like', 'history', 'comment'] as const;
type ListName = (typeof LISTS)[number];

/** The index partition of each list: entries newest first, the vid at the end of the item's sk. */
function partitionOf(list: ListName, openid: string): string {
  if (list === 'like') return reactionKeys.likesIndex(openid, '', '').gsi1pk;
  if (list === 'history') return feedKeys.viewHistoryIndex(openid, '', []).gsi1pk;
  return commentKeys.commentedIndex(openid, '', '').gsi1pk;
}

/**
 * Up to `count` vids of a list from position `start`, and whether more follow. Positions are
 * offsets in the list, so reaching `start` reads the entries before it (small items, paged by
 * DynamoDB): the cost grows with `start`, bounded by FAV_MAX_POSITION. Every entry's vid is the end
 * of its gsi1 sort key (`time#vid`), except the history items of get_next_list (`seen_at#vid,vid,...`:
 * one per call, newest first): there a video seen several times counts once, at its latest view.
 */
async function vidsFrom(partition: string, start: number, count: number): Promise<{ vids: string[]; more: boolean }> {
  const wanted = start + count + 1;
  const vids: string[] = [];
  const listed = new Set<string>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableNames.hub,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ProjectionExpression: 'gsi1sk',
        ScanIndexForward: false,
        Limit: wanted - vids.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const sk = String(item.gsi1sk);
      // The vids of one history item were reported together: the last reported is the latest.
      for (const vid of sk.slice(sk.indexOf('#') + 1).split(',').reverse()) {
        if (!vid || listed.has(vid)) continue;
        listed.add(vid);
        vids.push(vid);
      }
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey && vids.length < wanted);
  const page = vids.slice(start);
  return { vids: page.slice(0, count), more: page.length > count };
}

const normalize = (s: string) => s.normalize('NFKC').toLocaleLowerCase();
function matches(video: StoredVideo, q: string): boolean {
  const needle = normalize(q);
  return [video.title, video.description ?? '', ...(video.tags ?? [])].some((field) => normalize(field).includes(needle));
}

/**
 * One page of a list. Videos of accounts the caller blocked are left out (docs/moderation.md,
 * "Blocking"): positions stay those of the list, so such a page holds fewer than asked.
 */
async function listPage(list: ListName, owner: string, start: number, size: number, q: string, viewer: string, blocked: Set<string>): Promise<{ list: VideoView[]; next_id: number }> {
  const partition = partitionOf(list, owner);
  if (!q) {
    const { vids, more } = await vidsFrom(partition, start, size);
    const videos = (await getVideos(vids)).filter((v) => !blocked.has(v.author_openid));
    return { list: await videoViews(videos, viewer, commentKeys.commented), next_id: more ? start + size : -1 };
  }
  // Keyword filter: examine up to FAV_SEARCH_SCAN entries, stop at `size` matches; next_id is the
  // position after the last entry examined, so the next call continues exactly there.
  const { vids, more } = await vidsFrom(partition, start, FAV_SEARCH_SCAN);
  const found: StoredVideo[] = [];
  let examined = 0;
  for (let i = 0; i < vids.length && found.length < size; i += size) {
    const chunk = vids.slice(i, i + size);
    const videos = new Map((await getVideos(chunk)).map((v) => [v.vid, v]));
    for (const vid of chunk) {
      examined++;
      const video = videos.get(vid);
      if (video && !blocked.has(video.author_openid) && matches(video, q)) found.push(video);
      if (found.length === size) break;
    }
  }
  const left = examined < vids.length || more;
  return { list: await videoViews(found, viewer, commentKeys.commented), next_id: left ? start + examined : -1 };
}

/**
 * get_fav: the caller's profile (or, with `view`, another user's public profile) and one of the
 * lists: `like` (default), `history`, `comment`, newest first, from position `next_id`.
 */

export async function personalLists({ openid, next_id, fav_index, watch_list, view, q }: { openid: string; next_id: number; fav_index: number; watch_list: string; view: string; q: string }) {
  const target = view || openid;
  const own = target === openid;
  const list: ListName = (watch_list || 'like') as ListName;
  if (!own && list !== 'like') throw new ForbiddenError(`The ${list} list of another user is private; only their like list can be viewed`);
  const [account, blocked] = await Promise.all([requireAccount(target), blockedBy(openid)]);
  const size = fav_index === 0 ? FAV_DEFAULT_PAGE : fav_index;
  const [page, relation] = await Promise.all([
    listPage(list, target, next_id, size, q, openid, blocked),
    own ? undefined : relationsOf(openid, [target]).then((m) => m.get(target)),
  ]);
  // Another user's: relationsOf answers every openid it is given.
  const profile = own ? ownProfile(account) : { ...publicProfile(account), ...relation! };
  return { profile, list: page.list, next_id: page.next_id };
}
