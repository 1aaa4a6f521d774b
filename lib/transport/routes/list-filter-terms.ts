import { adminOnly, example, termList } from '../../features/filter/filter-api.js';
import { listFilterTerms } from '../../features/filter/terms.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'listFilterTerms',
  description: 'The filter term list (admin JWT only)',
  // The filter's term list (docs/moderation.md, "Filter"): one item, read strongly, written with its
  // audit event in one transaction conditioned on the version read.
  tables: { hub: { actions: ['GetItem'] } },
  routes: [{ method: 'GET', path: '/api/v1/admin/filter-terms' }],
  auth: 'admin',
  doc: {
    tag: 'Administration',
    summary: 'The filter term list, with its version',
    description: adminOnly,
    success: { status: 200, kind: 'json', data: termList },
    errors: [401, 403],
    examples: [{ summary: 'Two terms', data: example }],
  },
  handler: async () => ({ data: await listFilterTerms() }),
});
export const handler = route.handler;
