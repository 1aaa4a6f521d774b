import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { acceptTerms, termsVersionParam, termsVersionWire } from '../../features/policies/policies.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';

/**
 * accept_terms (docs/hub-api.md, "accept_terms"): the account accepts the terms version the client
 * shows, after GET /api/v1/me said `accepted_current: false`. A person's consent: a login token only.
 */
export const acceptTermsOperation = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  loginTokenOnly: true,
  query: z.object({
    openid: identifier(),
    terms_version: documentAs(z.pipe(z.string({ error: 'is required' }), termsVersionParam), termsVersionWire),
  }),
  run: ({ openid, terms_version }) => acceptTerms(openid, terms_version, 'jwt'),
});
