import { createHash } from 'node:crypto';
import type { VideoView } from '../../entities/catalog/video-view-schema.js';

/**
 * The share page (`GET /s/{shareid}`, docs/hub-api.md, "The share page"): server-rendered HTML of a
 * shared video, readable with scripts off, previewed by chat apps through its Open Graph and
 * Twitter-card tags. Pure functions: the handler reads the share and the video and hands them here.
 *
 * Everything that comes from a user or an editor (title, description, nickname, URLs) goes through
 * `escapeHtml`, in text and in attribute values alike. The page carries no script and no inline
 * style attribute, so its Content-Security-Policy (`SHARE_PAGE_CSP`) allows neither.
 */

export type PageLanguage = 'zh' | 'en';

/** What the page shows of a video: the fields of its response shape, and its author's nickname. */
export type SharedVideo = Pick<VideoView, 'vid' | 'title' | 'description' | 'cover_url' | 'video_url' | 'duration_s' | 'like_count'> & { author_nickname?: string };

export interface SharePageInput {
  shareid: string;
  video: SharedVideo;
  lang: PageLanguage;
  /** The page's own URL (og:url). */
  pageUrl: string;
  /** Deep-link scheme, e.g. `expohub` for `expohub://video/<vid>?shareid=<shareid>`. */
  appScheme: string;
  /** Where to get the app, when configured. */
  storeUrl?: string;
}


const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** HTML-escapes text for element content and for double- or single-quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * The page's language: the share's locale (`zh-*` Chinese, anything else English); without one, the
 * first language of `Accept-Language` that is Chinese or English by its weight; otherwise English.
 */
export function pageLanguage(shareLocale: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  if (shareLocale) return /^zh(-|$)/i.test(shareLocale) ? 'zh' : 'en';
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: (tag ?? '').trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((l) => l.tag && l.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const l of ranked) {
    if (/^zh(-|$)/.test(l.tag)) return 'zh';
    if (/^en(-|$)/.test(l.tag)) return 'en';
  }
  return 'en';
}

const TEXT = {
  zh: {
    by: '作者',
    likes: (n: number) => `${n} 人点赞`,
    duration: '时长',
    open: '在 expohub 应用中打开',
    get: '下载 expohub',
    notFoundTitle: '找不到这个分享',
    notFound: '这个链接指向的视频已不存在，或链接有误。',
    home: 'expohub：展会与行业资讯视频',
    noVideo: '您的浏览器无法播放此视频。',
    unavailableTitle: '暂时无法打开',
    unavailable: '请稍后再试。',
  },
  en: {
    by: 'By',
    likes: (n: number) => `${n} ${n === 1 ? 'like' : 'likes'}`,
    duration: 'Duration',
    open: 'Open in the expohub app',
    get: 'Get expohub',
    notFoundTitle: 'This share was not found',
    notFound: 'The video this link points to no longer exists, or the link is mistyped.',
    home: 'expohub: exhibition and industry videos',
    noVideo: 'Your browser cannot play this video.',
    unavailableTitle: 'Temporarily unavailable',
    unavailable: 'Please try again in a moment.',
  },
} as const;

/** `m:ss` (or `h:mm:ss`), and the ISO 8601 duration for og:video:duration's sibling meta. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** The deep link that opens the video in the app, carrying the share. */
export const deepLink = (scheme: string, vid: string, shareid: string) => `${scheme}://video/${encodeURIComponent(vid)}?shareid=${encodeURIComponent(shareid)}`;

const STYLE = `
  body { margin: 0; font-family: system-ui, -apple-system, "PingFang SC", "Microsoft YaHei", sans-serif; color: #1b1b1f; background: #f6f6f8; }
  main { max-width: 40rem; margin: 0 auto; padding: 1rem; box-sizing: border-box; }
  video, .poster { display: block; width: 100%; max-width: 100%; height: auto; background: #000; border-radius: 0.5rem; }
  h1 { font-size: 1.3rem; margin: 1rem 0 0.5rem; overflow-wrap: anywhere; }
  p { line-height: 1.5; overflow-wrap: anywhere; }
  .meta { color: #5b5b66; font-size: 0.9rem; }
  .actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin: 1.25rem 0; }
  .actions a { flex: 1 1 12rem; text-align: center; padding: 0.8rem 1rem; border-radius: 0.5rem; text-decoration: none; font-weight: 600; }
  .open { background: #1f5eff; color: #fff; }
  .get { background: #fff; color: #1f5eff; border: 1px solid #1f5eff; }
`;

/**
 * The page's Content-Security-Policy: no script source at all; the one `<style>` element allowed by
 * its hash (no inline style attribute, no other stylesheet); images and the video over https only.
 */
export const SHARE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  'img-src https: data:',
  'media-src https:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function layout(lang: PageLanguage, head: string, body: string): string {
  return `<!doctype html>
<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head}
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function renderSharePage(input: SharePageInput): string {
  const { video, lang, shareid } = input;
  const t = TEXT[lang];
  const e = escapeHtml;
  const description = video.description || video.title;
  const link = deepLink(input.appScheme, video.vid, shareid);
  const head = [
    `<title>${e(video.title)} · expohub</title>`,
    `<meta name="description" content="${e(description)}">`,
    `<meta property="og:site_name" content="expohub">`,
    `<meta property="og:type" content="video.other">`,
    `<meta property="og:title" content="${e(video.title)}">`,
    `<meta property="og:description" content="${e(description)}">`,
    `<meta property="og:image" content="${e(video.cover_url)}">`,
    `<meta property="og:url" content="${e(input.pageUrl)}">`,
    `<meta property="og:video" content="${e(video.video_url)}">`,
    `<meta property="og:video:type" content="video/mp4">`,
    `<meta property="og:locale" content="${lang === 'zh' ? 'zh_CN' : 'en_US'}">`,
    `<meta name="twitter:card" content="summary_large_image">`,
    `<meta name="twitter:title" content="${e(video.title)}">`,
    `<meta name="twitter:description" content="${e(description)}">`,
    `<meta name="twitter:image" content="${e(video.cover_url)}">`,
    `<link rel="canonical" href="${e(input.pageUrl)}">`,
  ].join('\n');
  const body = [
    `<video controls playsinline preload="none" poster="${e(video.cover_url)}" src="${e(video.video_url)}"><a href="${e(video.video_url)}">${e(t.noVideo)}</a></video>`,
    `<h1>${e(video.title)}</h1>`,
    `<p class="meta">${video.author_nickname ? `${e(t.by)} <span class="author">${e(video.author_nickname)}</span> · ` : ''}${e(t.duration)} <time datetime="PT${Math.max(0, Math.round(video.duration_s))}S">${formatDuration(video.duration_s)}</time> · <span class="likes">${e(t.likes(video.like_count))}</span></p>`,
    video.description ? `<p class="description">${e(video.description)}</p>` : '',
    `<nav class="actions"><a class="open" href="${e(link)}">${e(t.open)}</a>${input.storeUrl ? `<a class="get" href="${e(input.storeUrl)}">${e(t.get)}</a>` : ''}</nav>`,
  ]
    .filter(Boolean)
    .join('\n');
  return layout(lang, head, body);
}

/** The friendly 404 page: same look and language, no video. */
export function renderNotFoundPage(input: { lang: PageLanguage; storeUrl?: string }): string {
  const t = TEXT[input.lang];
  const e = escapeHtml;
  const head = [`<title>${e(t.notFoundTitle)} · expohub</title>`, `<meta name="robots" content="noindex">`].join('\n');
  const body = [
    `<h1>${e(t.notFoundTitle)}</h1>`,
    `<p>${e(t.notFound)}</p>`,
    `<p class="meta">${e(t.home)}</p>`,
    input.storeUrl ? `<nav class="actions"><a class="get" href="${e(input.storeUrl)}">${e(t.get)}</a></nav>` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return layout(input.lang, head, body);
}

/** The page when the store could not be read: try again (answered with 503 and Retry-After). */
export function renderUnavailablePage(lang: PageLanguage): string {
  const t = TEXT[lang];
  return layout(lang, `<title>${escapeHtml(t.unavailableTitle)} · expohub</title>\n<meta name="robots" content="noindex">`, `<h1>${escapeHtml(t.unavailableTitle)}</h1>\n<p>${escapeHtml(t.unavailable)}</p>`);
}
