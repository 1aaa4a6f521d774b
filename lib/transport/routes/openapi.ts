import { pageHandler } from '../lib/transport/http/handler.js';
import document from '../lib/transport/openapi/generated/openapi.json';
import { REFERENCE_PAGE_CSP, renderReferencePage } from '../lib/transport/openapi/reference-page.js';

/** Generated at build time (npm run openapi); the page is rendered from it once, on first request. */
const json = JSON.stringify(document);
let page: string | undefined;
const cache = { 'cache-control': 'public, max-age=300' };

/** `GET /api/v1/openapi.json` and `GET /api/v1/docs` (public, static). */
export const handler = pageHandler('openapi', async ({ rawPath }) => {
  if (rawPath.endsWith('/docs')) {
    page ??= renderReferencePage(document as Record<string, unknown>);
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': REFERENCE_PAGE_CSP, ...cache }, body: page };
  }
  return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', ...cache }, body: json };
});
