import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../clock.js';
import { config } from '../config.js';
import { db, tableNames } from '../db/client.js';
import { batchGetHubItems, itemId } from '../db/batch.js';
import { accountKeys } from '../accounts/accounts.js';
import { videoKeys } from '../catalog/video-items.js';
import { shareKeys } from './shares.js';
import { logger } from '../logger.js';
import { pageLanguage, renderNotFoundPage, renderSharePage, SHARE_PAGE_CSP, type PageLanguage } from './share-html.js';
import { shareExpired, shareExpiry, type StoredShare } from './shares.js';

/**
 * `GET /s/{shareid}` (docs/hub-api.md, "The share page"): the share page. One read for the share
 * and one for the video with its author (a BatchGet of both; the share names the author), and the
 * open counted meanwhile; an unknown or expired share, or a removed video, gets the 404 page in the
 * same style and language.
 *
 * Opens: a view by a person adds 1 to the share's `open_count` and to the video's `open_count` (two
 * UpdateItems in parallel, best effort: the page is served even when counting fails), and moves the
 * share's expiry to 30 days from now (lib/share/shares.ts) in the same update. Link-preview fetchers
 * (chat apps and social networks, named by their user agent) are counted apart, in the share's
 * `preview_count`, and not on the video; they do not keep a share alive. No personal data is stored
 * with an open.
 */

export interface PageRequest {
  shareid: string | undefined;
  acceptLanguage?: string;
  userAgent?: string;
  /** The page's public URL (og:url). */
  pageUrl: string;
}

export interface PageResponse {
  status: 200 | 404;
  headers: Record<string, string>;
  body: string;
}

/** Share ids are what sharetext hands out: 12 letters and digits. */
const SHARE_ID = /^[A-Za-z0-9]{12}$/;

/** User agents of link-preview fetchers and crawlers (not people opening the link). */
const PREVIEW_AGENT = /bot\b|crawler|spider|facebookexternalhit|facebookcatalog|Slackbot|Twitterbot|TelegramBot|WhatsApp|Discordbot|LinkedInBot|SkypeUriPreview|Pinterest|redditbot|Embedly|vkShare|Iframely|BingPreview|Google-InspectionTool|bytespider|Baiduspider|Sogou|YisouSpider/i;
const isPreviewFetcher = (userAgent: string | undefined) => !!userAgent && PREVIEW_AGENT.test(userAgent);

type ShareItem = Pick<StoredShare, 'shareid' | 'vid' | 'author_openid' | 'locale' | 'ttl'>;

interface VideoRecord {
  vid: string;
  title: string;
  description?: string;
  cover_url: string;
  video_url: string;
  duration_s: number;
  like_count?: number;
  author_openid: string;
}

function page(status: 200 | 404, body: string, lang: PageLanguage, varyLanguage: boolean): PageResponse {
  return {
    status,
    body,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': SHARE_PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      // A page is counted once per viewer a minute: caches may keep it that long in the browser, not
      // in a shared cache (each open must reach the function to be counted); the 404 page may be shared.
      'cache-control': status === 200 ? 'private, max-age=60' : 'public, max-age=60',
      'content-language': lang === 'zh' ? 'zh-CN' : 'en',
      ...(varyLanguage ? { vary: 'Accept-Language' } : {}),
    },
  };
}

export async function sharePage(request: PageRequest): Promise<PageResponse> {
  const notFound = (lang: PageLanguage, vary: boolean) => page(404, renderNotFoundPage({ lang, storeUrl: config.APP_STORE_URL }), lang, vary);
  const fallbackLang = pageLanguage(undefined, request.acceptLanguage);
  const shareid = request.shareid ?? '';
  if (!SHARE_ID.test(shareid)) return notFound(fallbackLang, true);

  const shareRead = await batchGetHubItems<ShareItem>([shareKeys.share(shareid)]);
  const share = shareRead.get(itemId(shareKeys.share(shareid)));
  const now = clock.now();
  if (!share || shareExpired(share, now)) return notFound(fallbackLang, true);
  const lang = share.locale ? pageLanguage(share.locale, undefined) : fallbackLang;
  const vary = !share.locale;

  // The video and its author in one BatchGet, the open counted meanwhile.
  const preview = isPreviewFetcher(request.userAgent);
  const [found] = await Promise.all([videoAndAuthor(share), countOpen(share, preview, now)]);
  if (!found.video) return notFound(lang, vary);
  const v = found.video;
  const html = renderSharePage({
    shareid,
    lang,
    pageUrl: request.pageUrl,
    appScheme: config.APP_LINK_SCHEME,
    storeUrl: config.APP_STORE_URL,
    video: {
      vid: v.vid,
      title: v.title,
      description: v.description ?? '',
      cover_url: v.cover_url,
      video_url: v.video_url,
      duration_s: v.duration_s,
      like_count: v.like_count ?? 0,
      author_nickname: found.author,
    },
  });
  return page(200, html, lang, vary);
}

/** The shared video and its author's nickname (a video keeps its author: the share names it). */
async function videoAndAuthor(share: ShareItem): Promise<{ video?: VideoRecord; author?: string }> {
  const videoKey = videoKeys.video(share.vid);
  const accountKey = accountKeys.account(share.author_openid);
  const items = await batchGetHubItems<Record<string, unknown>>([videoKey, accountKey]);
  const video = items.get(itemId(videoKey)) as VideoRecord | undefined;
  if (!video) return {};
  const account = items.get(itemId(accountKey));
  return { video, author: typeof account?.nickname === 'string' ? account.nickname : undefined };
}

async function countOpen(share: ShareItem, preview: boolean, nowMs: number): Promise<void> {
  const add = (key: { pk: string; sk: string }, attribute: string, extend = false) =>
    db.send(
      new UpdateCommand({
        TableName: tableNames.hub,
        Key: key,
        UpdateExpression: `${extend ? 'SET #ttl = :ttl ' : ''}ADD #n :one`,
        // An expired share is not revived by an open that raced with its expiry.
        ConditionExpression: extend ? 'attribute_exists(pk) AND #ttl > :now' : 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#n': attribute, ...(extend ? { '#ttl': 'ttl' } : {}) },
        ExpressionAttributeValues: { ':one': 1, ...(extend ? { ':ttl': shareExpiry(nowMs), ':now': Math.floor(nowMs / 1000) } : {}) },
      }),
    );
  const writes = preview
    ? [add(shareKeys.share(share.shareid), 'preview_count')]
    : [add(shareKeys.share(share.shareid), 'open_count', true), add(videoKeys.video(share.vid), 'open_count')];
  const outcomes = await Promise.allSettled(writes);
  for (const o of outcomes) if (o.status === 'rejected') logger.warn('share open not counted', { errorName: (o.reason as Error)?.name });
}
