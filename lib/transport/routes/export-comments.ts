import { commentRow, exportPage } from '../../features/export/export-api.js';
import { exportComments } from '../../features/export/exports.js';
import { pageQuerySchema } from '../../features/export/paging.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'exportComments',
  description: 'Export comments, paged (row rules by stored role)',
  // The exports sign their cursors with a key derived from the signing secret. They page through
  // indexes only (lib/features/export/visibility.ts): comments by gsi2 (admin) or gsi1 (own), accounts by gsi1.
  tables: { hub: { actions: ['GetItem', 'BatchGetItem'], indexes: ['gsi1', 'gsi2'] } },
  jwtSecret: true,
  routes: [{ method: 'GET', path: '/api/v1/export/comments' }],
  auth: 'either',
  scope: 'export:read',
  request: { query: pageQuerySchema },
  doc: {
    tag: 'Protected',
    summary: 'Export comments, oldest first (admin: all; others: their own)',
    description: 'Paged with the signed `cursor` of the previous page (`next_cursor`, empty at the end); `since` keeps the comments written from then on (docs/protected-api.md, "`GET /api/v1/export/comments` and `GET /api/v1/export/accounts` — paged exports").',
    success: { status: 200, kind: 'json', data: exportPage(commentRow) },
    errors: [401, 403],
    examples: [{ summary: 'The first page of 100', query: { limit: '100' }, data: { items: [], next_cursor: null } }],
  },
  handler: async ({ principal, query }) => ({ data: await exportComments(principal!, query) }),
});
export const handler = route.handler;
