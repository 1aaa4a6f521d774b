import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { acceptTerms, termsVersionParam, termsVersionWire } from '../../features/policies/policies.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { exampleTerms, termsStatusSchema } from '../../features/policies/policies-api.js';
import { signedIn } from './examples.js';

/**
 * accept_terms (docs/hub-api.md, "accept_terms"): the account accepts the terms version the client
 * shows, after GET /api/v1/me said `accepted_current: false`. A person's consent: a login token only.
 */
export const acceptTermsOperation = defineOperation({
  name: 'accept_terms',
  summary: 'Accept the terms version the client shows (a login token only), after GET /api/v1/me said accepted_current: false',
  auth: 'required',
  scope: 'hub:write',
  loginTokenOnly: true,
  query: z.object({
    openid: identifier(),
    terms_version: documentAs(z.pipe(z.string({ error: 'is required' }), termsVersionParam), termsVersionWire),
  }),
  data: z.object({ terms: termsStatusSchema }),
  examples: [{ summary: 'Accept version 2', query: { ...signedIn, terms_version: '2' }, data: { terms: { ...exampleTerms, accepted_version: '2', current_version: '2' } } }],
  run: ({ openid, terms_version }) => acceptTerms(openid, terms_version, 'jwt'),
});
