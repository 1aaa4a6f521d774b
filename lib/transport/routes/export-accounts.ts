import { accountRow, exportPage } from '../../features/export/export-api.js';
import { exportAccounts } from '../../features/export/exports.js';
import { pageQuerySchema } from '../../features/export/paging.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'exportAccounts',
  description: 'Export accounts, paged (row and column rules by stored role)',
  // The exports sign their cursors with a key derived from the signing secret. They page through
  // indexes only (lib/features/export/visibility.ts): comments by gsi2 (admin) or gsi1 (own), accounts by gsi1.
  tables: { hub: { actions: ['GetItem', 'BatchGetItem'], indexes: ['gsi1'] } },
  jwtSecret: true,
  routes: [{ method: 'GET', path: '/api/v1/export/accounts' }],
  auth: 'either',
  scope: 'export:read',
  request: { query: pageQuerySchema },
  doc: {
    tag: 'Protected',
    summary: 'Export accounts (admin: all; others: their own and the accounts they follow)',
    description: '`phone` is in full only for an admin or the row\'s owner, masked otherwise; `roles` only for them.',
    success: { status: 200, kind: 'json', data: exportPage(accountRow) },
    errors: [401, 403],
    examples: [{ summary: 'A page of 2', query: { limit: '2' } }],
  },
  handler: async ({ principal, query }) => ({ data: await exportAccounts(principal!, query) }),
});
export const handler = route.handler;
