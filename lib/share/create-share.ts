import { getVideo } from '../catalog/videos.js';
import { clock } from '../clock.js';
import { config } from '../config.js';
import { tableNames } from '../db/client.js';
import { videoKeys } from '../catalog/video-items.js';
import { cancellationCode, transactWrite } from '../db/transact.js';
import { shareExpiry, shareIdFor, shareItem, type Sharer } from './shares.js';
import { NotFoundError } from '../errors.js';
import { contentMarkItem, liveAccountCheck } from '../accounts/accounts.js';
import { rateLimitedError, rateLimitItem, type RateLimit } from '../limits/rate-windows.js';

function shareText(title: string, url: string, locale: string): string {
  return /^zh(-|$)/i.test(locale) ? `我在 expohub 看到一个视频《${title}》，推荐给你：${url}` : `Watch "${title}" on expohub: ${url}`;
}

/**
 * sharetext (docs/hub-api.md, sharetext). A credential is optional: with one (a token or a Bearer
 * JWT or access key of `openid`) the share is the account's; without, it is anonymous, counted for
 * the device `d` or else the caller's IP, and `openid` is not stored. One share per (sharer, video,
 * UTC day): the share, its count on the video and the caller IP's hourly window in one transaction;
 * a repeat finds its share and counts nothing, nor uses the window; an account's share adds its mark
 * and the check that the account is not deleted. A share expires 30 days after it
 * was made or last opened (lib/share/shares.ts).
 */
export async function createShare({ vid, d, locale, country, account, sourceIp }: { vid: string; d: string; locale: string; country: string; account: string | undefined; sourceIp: string }) {
  const TableName = tableNames.hub;
  const now = clock.now();
  const video = await getVideo(vid);
  if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
  const sharer: Sharer = account ? { kind: 'account', openid: account } : d ? { kind: 'device', d } : { kind: 'ip', ip: sourceIp };
  const shareid = shareIdFor(sharer, vid, now);
  const url = `${config.SHARE_BASE_URL.replace(/\/+$/, '')}/s/${shareid}`;
  const limit: RateLimit = {
    name: 'shares-ip',
    subject: sourceIp,
    windowSeconds: 3600,
    max: config.RATE_SHARES_IP_HOURLY,
    message: `At most ${config.RATE_SHARES_IP_HOURLY} shares per hour from this network; retry later`,
  };
  try {
    await transactWrite([
      {
        Put: {
          TableName,
          Item: shareItem({
            shareid,
            vid,
            author_openid: video.author_openid,
            ...(account ? { openid: account } : {}),
            d,
            locale,
            country,
            created_at: new Date(now).toISOString(),
            ttl: shareExpiry(now),
          }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName,
          Key: videoKeys.video(vid),
          UpdateExpression: 'ADD share_count :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      rateLimitItem(limit, now),
      // An account's share: its mark, and the check that the account is not deleted (docs/accounts.md, "Erasure").
      ...(account ? [contentMarkItem(account, 'share', shareid, { shareid }, now), liveAccountCheck(account)] : []),
    ]);
  } catch (error) {
    if (account && cancellationCode(error, 4) === 'ConditionalCheckFailed') throw new NotFoundError('Your account does not exist');
    // Today's share of this sharer already exists (a repeat, a retry): answer it, counting nothing.
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') return { text: shareText(video.title, url, locale), url, shareid };
    if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
    throw rateLimitedError(error, [limit], 2, now) ?? error;
  }
  return { text: shareText(video.title, url, locale), url, shareid };
}
