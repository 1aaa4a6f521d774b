import { pageHandler } from '../lib/transport/http/handler.js';
import { appleAppSiteAssociation, assetLinks } from '../lib/features/share/app-links.js';

/** `GET /.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`: JSON files, 404 when not configured. */
export const handler = pageHandler('wellKnown', async ({ rawPath }) => {
  const file = rawPath.endsWith('/assetlinks.json') ? assetLinks() : rawPath.endsWith('/apple-app-site-association') ? appleAppSiteAssociation() : undefined;
  if (!file) return { status: 404, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }, body: JSON.stringify({ code: 'NOT_FOUND', error: 'Not configured on this deployment' }) };
  return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' }, body: JSON.stringify(file) };
});
