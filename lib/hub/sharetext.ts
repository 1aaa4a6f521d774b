import { createHash } from 'node:crypto';
import * as z from '../zod.js';
import { getVideo } from '../catalog/videos.js';
import { clock } from '../clock.js';
import { config } from '../config.js';
import { tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { cancellationCode, transactWrite } from '../db/transact.js';
import { NotFoundError } from '../errors.js';
import { defineOperation } from './operation.js';
import { identifier, presentText } from './params.js';

// Made on first use: loading ICU's region names costs about 25 ms of CPU, which every cold start
// of the hub would otherwise pay at import (docs/performance.md, "Cold starts").
let regionNames: Intl.DisplayNames | undefined;
/** ISO 3166-1 alpha-2 as ICU knows it: a known region has a name other than its code. */
const isRegion = (code: string) => {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
  return ![code, 'Unknown Region'].includes(regionNames.of(code) ?? code);
};

const query = z.object({
  openid: identifier(),
  vid: identifier(),
  d: presentText(64),
  locale: presentText(35).check(
    z.refine((v) => {
      if (!v) return true;
      try {
        return Intl.getCanonicalLocales(v).length === 1;
      } catch {
        return false;
      }
    }, 'must be a BCP 47 language tag such as zh-CN or en-US'),
  ),
  country: z
    .pipe(
      presentText(2),
      z.transform((v: string) => v.toUpperCase()),
    )
    .check(z.refine((v) => v === '' || isRegion(v), 'must be an ISO 3166 alpha-2 country code such as CN, or empty')),
});

/** A retry within the same minute (same openid, device and video) gets the same share back. */
const SHARE_WINDOW_MS = 60_000;

function shareIdFor(openid: string, d: string, vid: string, nowMs: number): string {
  const digest = createHash('sha256').update(`${openid}\n${d}\n${vid}\n${Math.floor(nowMs / SHARE_WINDOW_MS)}`).digest('base64url');
  return digest.replace(/[-_]/g, '').slice(0, 12);
}

function shareText(title: string, url: string, locale: string): string {
  return /^zh(-|$)/i.test(locale) ? `我在 expohub 看到一个视频《${title}》，推荐给你：${url}` : `Watch "${title}" on expohub: ${url}`;
}

/**
 * sharetext: no token (`openid` only attributes the share). Creates the share record and counts it
 * on the video in one transaction; a repeat of the same request within the minute is the same share.
 */
export const sharetext = defineOperation({
  auth: 'none',
  query,
  async run({ openid, vid, d, locale, country }) {
    const TableName = tableNames.hub;
    const now = clock.now();
    const video = await getVideo(vid);
    if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
    const shareid = shareIdFor(openid, d, vid, now);
    const url = `${config.SHARE_BASE_URL.replace(/\/+$/, '')}/s/${shareid}`;
    try {
      await transactWrite([
        {
          Put: {
            TableName,
            // The author, so that the share page reads the video and its author in one request.
            Item: { ...hubItems.share(shareid), entity: 'share', shareid, vid, author_openid: video.author_openid, openid, d, locale, country, created_at: new Date(now).toISOString() },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName,
            Key: hubItems.video(vid),
            UpdateExpression: 'ADD share_count :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      ]);
    } catch (error) {
      if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
      // The same share was already recorded (a retry): answer it again without counting twice.
      if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
    }
    return { text: shareText(video.title, url, locale), url, shareid };
  },
});
