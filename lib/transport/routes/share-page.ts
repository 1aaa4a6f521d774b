import * as z from '../../platform/zod.js';
import { config } from '../../platform/config.js';
import { pageLanguage, renderUnavailablePage, SHARE_PAGE_CSP } from '../../features/share/share-html.js';
import { sharePage } from '../../features/share/share-page.js';
import { defineRoute } from '../http/define-route.js';

/** `GET /s/{shareid}`: the share page, HTML (not the JSON envelope: a browser opens it). */
export const route = defineRoute({
  name: 'sharePage',
  description: 'The share page: GET /s/{shareid}, HTML',
  tables: { hub: { actions: ['BatchGetItem', 'UpdateItem'] } },
  routes: [{ method: 'GET', path: '/s/{shareid}' }],
  auth: 'none',
  request: { path: z.object({ shareid: z.string() }) },
  doc: {
    tag: 'Share pages',
    summary: "The share page of a video (HTML, in the share's locale; an HTML 404 page when unknown)",
    description:
      'A browser opens it, so every answer is a page: HTML 200, HTML 404 (unknown or expired share, removed video), HTML 503 with Retry-After when the store is unavailable. A view counts an open on the share and its video once per network (an IPv4 address, an IPv6 /64) and UTC day; an unknown id counts nothing.',
    success: { status: 200, kind: 'html' },
    errors: [404],
  },
  page: async ({ path, headers, sourceIp }) => {
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
  unavailable: ({ headers }) => ({
    status: 503,
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': SHARE_PAGE_CSP, 'cache-control': 'no-store' },
    body: renderUnavailablePage(pageLanguage(undefined, headers['accept-language'])),
  }),
});
export const handler = route.handler;
