import { adminOnly, changedList, example } from '../../features/filter/filter-api.js';
import { putFilterTerms, putFilterTermsBodySchema } from '../../features/filter/terms.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'putFilterTerms',
  description: 'Add or replace filter terms (admin JWT only)',
  tables: { hub: { actions: ['GetItem', 'PutItem'] } },
  routes: [{ method: 'POST', path: '/api/v1/admin/filter-terms' }],
  auth: 'admin',
  request: { body: putFilterTermsBodySchema },
  doc: {
    tag: 'Administration',
    summary: 'Add terms, or replace the action of terms already listed (a repeat changes nothing: `changed: false`)',
    description: `${adminOnly} A change is an audit event on the administrator's account (\`filter.terms_changed\`, with the new version).`,
    success: { status: 200, kind: 'json', data: changedList },
    errors: [401, 403],
    examples: [{ summary: 'Hold comments that say "spam"', body: { terms: [{ term: 'SPAM', action: 'hold' }] }, data: { ...example, changed: true } }],
  },
  handler: async ({ principal, body }) => ({ data: await putFilterTerms(principal!, body) }),
});
export const handler = route.handler;
