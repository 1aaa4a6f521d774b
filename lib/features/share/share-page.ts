import { createHash } from 'node:crypto';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { tableNames } from '../../platform/db/client.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { conditionFailed, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { accountIn, accountKeys } from '../../entities/accounts/accounts.js';
import { videoKeys } from '../../entities/catalog/video-items.js';
import { videoCounterUpdate } from '../../entities/catalog/videos.js';
import { networkOf, rateLimitItem, windowKey, type RateLimit } from '../../platform/limits/rate-windows.js';
import { logger } from '../../platform/logger.js';
import { pageLanguage, renderNotFoundPage, renderSharePage, SHARE_PAGE_CSP, type PageLanguage } from './share-html.js';
import { isShareIdShape, shareExpired, shareExpiry, shareKeys, type StoredShare } from './shares.js';

/**
 * `GET /s/{shareid}` (docs/hub-api.md, "The share page"): the share page. One read for the share
 * (with, in the same BatchGet, whether this viewer's network was counted on it today) and one for
 * the video with its author (a BatchGet of both; the share names the author), the open counted
 * meanwhile; an unknown or expired share, or a removed video, gets the 404 page in the same style
 * and language. A probe of an unknown id reads and writes nothing else.
 *
 * Opens: the first view by a person from a network (an IPv4 address, an IPv6 /64) in a UTC day adds
 * 1 to the share's `open_count` and to the video's `open_count` and moves the share's expiry to 30
 * days from now (lib/features/share/shares.ts), in one transaction with that network's day window for the
 * share (best effort: the page is served even when counting fails); later views from that network
 * that day count nothing. Link-preview fetchers (chat apps and social networks, named by their user
 * agent) are counted apart, in the share's `preview_count` only, by the same rule; they do not keep
 * a share alive. The window's key holds a digest of the network, not the address.
 */

export interface PageRequest {
  shareid: string | undefined;
  /** The caller's address (lib/transport/http/front-door.ts): its network counts an open once a day. */
  sourceIp: string;
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
      // A browser may keep the page a minute, a shared cache not (each network's first open of the
      // day must reach the function to be counted); the 404 page may be shared.
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
  if (!isShareIdShape(shareid)) return notFound(fallbackLang, true);

  const now = clock.now();
  const preview = isPreviewFetcher(request.userAgent);
  const window = viewWindow(shareid, request.sourceIp, preview);
  const shareKey = shareKeys.share(shareid);
  const read = await batchGetHubItems<Record<string, unknown>>([shareKey, windowKey(window, now)]);
  const share = read.get(itemId(shareKey)) as ShareItem | undefined;
  if (!share || shareExpired(share, now)) return notFound(fallbackLang, true);
  const lang = share.locale ? pageLanguage(share.locale, undefined) : fallbackLang;
  const vary = !share.locale;

  // The video and its author in one BatchGet, the open counted meanwhile (unless counted today).
  const countedToday = read.has(itemId(windowKey(window, now)));
  const [found] = await Promise.all([videoAndAuthor(share), countedToday ? undefined : countView(share, window, preview, now)]);
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
  return { video, author: accountIn(items, share.author_openid)?.nickname };
}

/**
 * The day window of a viewer's network on a share: one counted view a UTC day. Its key holds a
 * digest of the network (an unkeyed one, with the share id: it keeps the address out of the table's
 * keys, and the item expires the next day).
 */
function viewWindow(shareid: string, sourceIp: string, preview: boolean): RateLimit {
  const network = createHash('sha256').update(`${shareid}\n${networkOf(sourceIp)}`).digest('base64url').slice(0, 22);
  return { name: preview ? 'share-preview' : 'share-open', subject: `${shareid}#${network}`, windowSeconds: 86_400, max: 1, message: 'counted today' };
}

async function countView(share: ShareItem, window: RateLimit, preview: boolean, nowMs: number): Promise<void> {
  const shareKey = shareKeys.share(share.shareid);
  const items: TransactItem[] = preview
    ? [{ Update: { TableName: tableNames.hub, Key: shareKey, UpdateExpression: 'ADD preview_count :one', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':one': 1 } } }]
    : [
        {
          Update: {
            TableName: tableNames.hub,
            Key: shareKey,
            UpdateExpression: 'SET #ttl = :ttl ADD open_count :one',
            // An expired share is not revived by an open that raced with its expiry; a share stored
            // before expiry existed gets one.
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#ttl) OR #ttl > :now)',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':one': 1, ':ttl': shareExpiry(nowMs), ':now': Math.floor(nowMs / 1000) },
          },
        },
        videoCounterUpdate(share.vid, { open_count: 1 }),
      ];
  try {
    await transactWrite([rateLimitItem(window, nowMs), ...items]);
  } catch (error) {
    // Counted meanwhile by a view from the same network, or the share or its video just went.
    if (!conditionFailed(error)) logger.warn('share open not counted', { errorName: (error as Error)?.name });
  }
}
