import { config } from '../lib/platform/config.js';
import { pageHandler } from '../lib/transport/http/handler.js';
import { pageLanguage, renderUnavailablePage, SHARE_PAGE_CSP } from '../lib/features/share/share-html.js';
import { sharePage } from '../lib/features/share/share-page.js';

/** `GET /s/{shareid}`: the share page, HTML (not the JSON envelope: a browser opens it). */
export const handler = pageHandler(
  'sharePage',
  async ({ path, headers, sourceIp }) => {
    const page = await sharePage({
      shareid: path.shareid,
      sourceIp,
      acceptLanguage: headers['accept-language'],
      userAgent: headers['user-agent'],
      // The public URL sharetext handed out (behind CloudFront the Host is API Gateway's).
      pageUrl: `${config.SHARE_BASE_URL.replace(/\/+$/, '')}/s/${encodeURIComponent(path.shareid ?? '')}`,
    });
    return { status: page.status, headers: page.headers, body: page.body };
  },
  {
    unavailable: ({ headers }) => ({
      status: 503,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': SHARE_PAGE_CSP, 'cache-control': 'no-store' },
      body: renderUnavailablePage(pageLanguage(undefined, headers['accept-language'])),
    }),
  },
);
