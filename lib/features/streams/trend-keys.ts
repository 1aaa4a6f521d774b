import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { batchGetItems, inParallel } from '../../platform/db/batch.js';
import { videoKeys } from '../../entities/catalog/video-items.js';
import { tagTrendKeyMove, trendKeyMove, videoFromItem } from '../../entities/catalog/videos.js';
import { TREND_KEY_INTERVAL_MS } from '../../entities/catalog/trend.js';
import { logger } from '../../platform/logger.js';

/**
 * The trend's index key, moved at most once per TREND_KEY_INTERVAL_MS per video (docs/data-model.md,
 * "Trend keys"). The stream processor adds every like to the video's exact trend `trend`, which no
 * index holds (writing it moves nothing); the ranked copy `gsi3sk` on the video (gsi3 `TRENDING#k`)
 * and on its tag rankings (gsi3 `TAG#<tag>`) is copied from it here, when the stored `trend_key_at`
 * (epoch ms of the last copy) is at least the interval old, by a conditional update: the condition
 * makes it at most once per interval across every container of the processor.
 *
 * Which videos to try: those a batch changed, and those a batch changed while their key was not due
 * (`pending`: this container's memory, moved by its next invocation once due: the trailing edge).
 * Whether a video is due is read first, one BatchGet of `trend_key_at` per 100 videos, so that a
 * video another container moved a moment ago costs half a read unit instead of a refused write on
 * its (hot) partition; `known` remembers the latest copy time seen, which spares the read of a video
 * this container knows is not due.
 */

/** Videos with changes not in their key yet: vid -> when the key is due (epoch ms). */
const pending = new Map<string, number>();
/** The latest `trend_key_at` this container has seen per video (a lower bound of the stored one). */
const known = new Map<string, number>();
/** Memory bound: past it the oldest entries are forgotten (a forgotten `known` costs a read; a forgotten pending move waits for the video's next like). */
const MEMORY_CAP = 50_000;
const MOVES_IN_FLIGHT = 8;

const TABLE = () => tableNames.hub;

function remember<T>(map: Map<string, T>, vid: string, value: T): void {
  map.delete(vid);
  map.set(vid, value);
  if (map.size > MEMORY_CAP) map.delete(map.keys().next().value!);
}

/**
 * The videos whose key is due now, among `changed` (a batch's videos) and this container's pending
 * ones; the others are kept pending until they are due.
 */
export async function dueTrendKeys(client: DynamoDBDocumentClient, changedVids: Iterable<string>): Promise<string[]> {
  const now = clock.now();
  const changed = [...changedVids];
  const candidates = new Set([...changed, ...[...pending].filter(([, due]) => due <= now).map(([vid]) => vid)]);
  for (const vid of changed) if (!pending.has(vid)) remember(pending, vid, now);
  const unknown = new Set([...candidates].filter((vid) => (known.get(vid) ?? -Infinity) + TREND_KEY_INTERVAL_MS <= now));
  const stored = await keyTimes(client, [...unknown]);
  const due: string[] = [];
  for (const vid of candidates) {
    const item = stored.get(vid);
    if (unknown.has(vid) && !item) {
      pending.delete(vid); // gone (removed, or never there): nothing to rank
      continue;
    }
    const at = Math.max(known.get(vid) ?? -Infinity, item?.trend_key_at ?? -Infinity);
    if (Number.isFinite(at)) remember(known, vid, at);
    if (at + TREND_KEY_INTERVAL_MS <= now) due.push(vid);
    else remember(pending, vid, at + TREND_KEY_INTERVAL_MS);
  }
  return due;
}

/** `trend_key_at` of the videos that exist, by vid: BatchGets of up to 100, eventually consistent (a stale time costs at most a refused copy). */
async function keyTimes(client: DynamoDBDocumentClient, vids: string[]): Promise<Map<string, { trend_key_at?: number }>> {
  const items = await batchGetItems<{ vid: string; trend_key_at?: number }>(TABLE(), vids.map(videoKeys.video), { client, ProjectionExpression: 'pk, sk, vid, trend_key_at' });
  return new Map([...items.values()].map((item) => [String(item.vid), item]));
}

/**
 * Copies the exact trend to the index key of each video (if still due: the condition) and then to
 * its tag rankings. A move that fails for another reason than its condition stays pending: it is
 * tried again by the next invocation, and never fails the batch, whose counts are committed.
 */
export async function moveTrendKeys(client: DynamoDBDocumentClient, vids: string[]): Promise<{ moved: number }> {
  let moved = 0;
  await inParallel(vids, MOVES_IN_FLIGHT, async (vid) => {
    const now = clock.now();
    try {
      const out = await client.send(
        new UpdateCommand(trendKeyMove(vid, now, now - TREND_KEY_INTERVAL_MS)),
      );
      const video = videoFromItem(out.Attributes)!;
      // A tag ranking takes the value of this move unless a later move got there first; a tag removed meanwhile is not created again.
      await Promise.all(
        (video.tags ?? []).map((tag) =>
          client
            .send(
              new UpdateCommand(tagTrendKeyMove(vid, tag, video.gsi3sk, now)),
            )
            .catch((error: unknown) => {
              if (!isConditionalCheckFailed(error)) throw error;
            }),
        ),
      );
      remember(known, vid, now);
      pending.delete(vid);
      moved++;
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        // Moved by another container within the interval (after its due time was read), or gone:
        // try again once due, at the latest an interval from now.
        remember(pending, vid, now + TREND_KEY_INTERVAL_MS);
        return;
      }
      logger.error('trend key not moved: kept pending', { vid, error: (error as Error).name });
      remember(pending, vid, now);
    }
  });
  return { moved };
}

/** Forgets this container's memory (tests start each case from a fresh container). */
export function forgetTrendKeys(): void {
  pending.clear();
  known.clear();
}
