import { dropSharedHeads } from './shared-heads.js';
import { batchGetHubItems, batchWriteHubItems, inParallel } from '../../platform/db/batch.js';
import { ACCOUNT_EXISTS, addToAccountCounters } from '../accounts/accounts.js';
import { videoKeys } from './video-items.js';
import { authorLatestIn } from './videos.js';
import { postingWrites } from './search-index.js';
import { countTags } from './tag-stats.js';
import { initialTrend } from './trend.js';
import { authorLatestItem, cleanFields, externalIdItem, latestEntry, tagItem, videoItem, type ImportedVideo, type VideoItem } from './video-items.js';

/**
 * Bulk import of NEW videos with a given history (creation time, like count): the same items as
 * putVideo, search postings included, written with BatchWrite and aggregated per author, so that a
 * few hundred videos take seconds. Only for seeding a catalog nobody else is writing to at the same
 * time; the authors' accounts must exist.
 */
export async function importVideos(inputs: ImportedVideo[]): Promise<VideoItem[]> {
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
  const latest = await batchGetHubItems(authors.map((a) => videoKeys.authorLatest(a)));
  const puts: Record<string, unknown>[] = [];
  for (const video of videos) {
    puts.push(videoItem(video), ...video.tags.map((tag) => tagItem(video, tag)));
    if (video.external_id) puts.push(externalIdItem(video, video.external_id));
  }
  for (const author of authors) {
    const mine = videos.filter((v) => v.author_openid === author).map(latestEntry);
    puts.push(authorLatestItem(author, authorLatestIn(latest, author), mine));
  }
  const tagCounts = new Map<string, number>();
  for (const video of videos) for (const tag of video.tags) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
  await Promise.all([batchWriteHubItems([...puts.map((put) => ({ put })), ...videos.flatMap((v) => postingWrites(v))]), countTags(tagCounts, videos.length)]);
  await inParallel(authors, 8, (author) => addToAccountCounters(author, { video_count: videos.filter((v) => v.author_openid === author).length }, ACCOUNT_EXISTS));
  dropSharedHeads();
  return videos;
}
