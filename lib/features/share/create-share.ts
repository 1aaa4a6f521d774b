import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { db, tableNames } from '../../platform/db/client.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { videoKeys, type VideoItem } from '../../entities/catalog/video-items.js';
import { videoCounterUpdate, videoExistsCheck } from '../../entities/catalog/videos.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { dailyShareItem, shareDayFromItem, newShareId, shareExpiry, shareItem, shareKeys, utcDay, type Sharer } from './shares.js';
import { NotFoundError } from '../../platform/errors.js';
import { contentMarkItem, liveAccountCheck } from '../../entities/accounts/accounts.js';
import { networkOf, rateLimitedError, rateLimitItem, windowKey, type RateLimit } from '../../platform/limits/rate-windows.js';

function shareText(title: string, url: string, locale: string): string {
  return /^zh(-|$)/i.test(locale) ? `我在 expohub 看到一个视频《${title}》，推荐给你：${url}` : `Watch "${title}" on expohub: ${url}`;
}

const notFound = (vid: string) => new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);

/**
 * sharetext (docs/hub-api.md, sharetext). A credential is optional: with one (a token or a Bearer
 * JWT or access key of `openid`) the share is the account's; without, it is anonymous, the day's
 * share of the device `d` or else of the caller's network, and `openid` is not stored.
 *
 * One share per (sharer, video, UTC day), with a random id: one BatchGet reads the video, the day's
 * index item (a repeat answers its share and writes nothing) and, for an anonymous caller, whether
 * the caller's network has had a share of the video counted today; then one transaction writes the
 * share, the day's index item, the count on the video and the network's hourly window (an account's
 * share adds its mark and the check that the account is not deleted: docs/accounts.md, "Erasure"). The video
 * counts an account's share, and an anonymous share only when it is the network's first of the
 * video that UTC day (its day window), so repeating without a credential raises nothing. A share
 * expires 30 days after it was made or last opened (lib/features/share/shares.ts).
 */
export async function createShare({ vid, d, locale, country, account, sourceIp }: { vid: string; d: string; locale: string; country: string; account: string | undefined; sourceIp: string }) {
  const now = clock.now();
  const network = networkOf(sourceIp);
  const sharer: Sharer = account ? { kind: 'account', openid: account } : d ? { kind: 'device', d } : { kind: 'network', network };
  const dayKey = shareKeys.daily(sharer, vid, utcDay(now));
  const hourly: RateLimit = {
    name: 'shares-ip',
    subject: network,
    windowSeconds: 3600,
    max: config.RATE_SHARES_IP_HOURLY,
    message: `At most ${config.RATE_SHARES_IP_HOURLY} shares per hour from this network; retry later`,
  };
  // An anonymous share counts on the video once per network, video and UTC day: a window of one.
  const anonymousCount: RateLimit | undefined = account ? undefined : { name: 'share-count', subject: `${network}#${vid}`, windowSeconds: 86_400, max: 1, message: 'counted today' };
  const videoKey = videoKeys.video(vid);
  const found = await batchGetHubItems([videoKey, dayKey, ...(anonymousCount ? [windowKey(anonymousCount, now)] : [])]);
  const video = found.get(itemId(videoKey)) as VideoItem | undefined;
  if (!video) throw notFound(vid);
  const answer = (shareid: string) => {
    const url = `${config.SHARE_BASE_URL.replace(/\/+$/, '')}/s/${shareid}`;
    return { text: shareText(video.title, url, locale), url, shareid };
  };
  const today = found.get(itemId(dayKey)) as { shareid: string } | undefined;
  if (today) return answer(today.shareid);

  const shareid = newShareId();
  const write = (counts: boolean) => {
    const items: TransactItem[] = [
      {
        Put: {
          TableName: tableNames.hub,
          Item: shareItem({ shareid, vid, author_openid: video.author_openid, ...(account ? { openid: account } : {}), d, locale, country, created_at: new Date(now).toISOString(), ttl: shareExpiry(now) }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: { TableName: tableNames.hub, Item: dailyShareItem(sharer, vid, now, shareid), ConditionExpression: 'attribute_not_exists(pk)' } },
      counts ? videoCounterUpdate(vid, { share_count: 1 }) : videoExistsCheck(vid),
      rateLimitItem(hourly, now),
      ...(counts && anonymousCount ? [rateLimitItem(anonymousCount, now)] : []),
      // An account's share: its mark, and the check that the account is not deleted (docs/accounts.md, "Erasure").
      ...(account ? [contentMarkItem(account, 'share', shareid, { shareid }, now), liveAccountCheck(account)] : []),
    ];
    return transactWrite(items);
  };
  const counts = !anonymousCount || !found.has(itemId(windowKey(anonymousCount, now)));
  try {
    await write(counts).catch((error: unknown) => {
      // Another share of the network counted the video meanwhile: this one is not counted.
      if (counts && anonymousCount && cancellationCode(error, 4) === 'ConditionalCheckFailed' && cancellationCode(error, 1) !== 'ConditionalCheckFailed') return write(false);
      throw error;
    });
  } catch (error) {
    if (account && cancellationCode(error, 5) === 'ConditionalCheckFailed') throw new NotFoundError('Your account does not exist');
    // The day's share was made meanwhile (a repeat sent at once, or this request's own commit whose
    // answer was lost and retried): answer it, counting nothing.
    if (cancellationCode(error, 1) === 'ConditionalCheckFailed') {
      const made = shareDayFromItem((await db.send(new GetCommand({ TableName: tableNames.hub, Key: dayKey, ConsistentRead: true }))).Item);
      if (made) return answer(made.shareid);
    }
    if (cancellationCode(error, 2) === 'ConditionalCheckFailed') throw notFound(vid);
    throw rateLimitedError(error, [hourly], 3, now) ?? error;
  }
  return answer(shareid);
}
