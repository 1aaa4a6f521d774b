import { adminOnly, changedList } from '../../features/filter/filter-api.js';
import { deleteFilterTerm, filterTermPath } from '../../features/filter/terms.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'deleteFilterTerm',
  description: 'Remove a filter term (admin JWT only)',
  tables: { hub: { actions: ['GetItem', 'PutItem'] } },
  routes: [{ method: 'DELETE', path: '/api/v1/admin/filter-terms/{term}' }],
  auth: 'admin',
  request: { path: filterTermPath },
  doc: {
    tag: 'Administration',
    summary: 'Remove a term, given in any spelling that normalises to it (absent: `changed: false`)',
    description: `${adminOnly} A change is an audit event on the administrator's account.`,
    success: { status: 200, kind: 'json', data: changedList },
    errors: [401, 403],
    examples: [{ summary: 'Remove "spam"', path: { term: 'spam' }, data: { version: 4, terms: [{ term: '傻逼', action: 'reject' }], updated_at: '2026-11-25T10:05:00.000Z', changed: true } }],
  },
  handler: async ({ principal, path }) => ({ data: await deleteFilterTerm(principal!, path.term) }),
});
export const handler = route.handler;
