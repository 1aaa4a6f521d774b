import { appleAppSiteAssociation, assetLinks } from '../../features/share/app-links.js';
import { defineRoute } from '../http/define-route.js';

const notFound = '404 when the deployment configures no such file.';

/** `GET /.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`: JSON files, 404 when not configured. */
export const route = defineRoute({
  name: 'wellKnown',
  description: 'App association files for share links (/.well-known/*)',
  tables: {},
  routes: [
    {
      method: 'GET',
      path: '/.well-known/apple-app-site-association',
      doc: { tag: 'Share pages', summary: 'iOS universal links association file, from configuration', description: notFound, success: { status: 200, kind: 'file' }, errors: [404] },
    },
    {
      method: 'GET',
      path: '/.well-known/assetlinks.json',
      doc: { tag: 'Share pages', summary: 'Android app links association file, from configuration', description: notFound, success: { status: 200, kind: 'file' }, errors: [404] },
    },
  ],
  auth: 'none',
  page: async ({ rawPath }) => {
    const file = rawPath.endsWith('/assetlinks.json') ? assetLinks() : rawPath.endsWith('/apple-app-site-association') ? appleAppSiteAssociation() : undefined;
    if (!file) return { status: 404, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }, body: JSON.stringify({ code: 'NOT_FOUND', error: 'Not configured on this deployment' }) };
    return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' }, body: JSON.stringify(file) };
  },
});
export const handler = route.handler;
