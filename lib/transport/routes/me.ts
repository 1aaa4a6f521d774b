import { heldProfileOf } from '../../features/filter/held-items.js';
import { exampleTerms, meSchema } from '../../features/policies/policies-api.js';
import { termsOf } from '../../features/policies/policies.js';
import { defineRoute } from '../http/define-route.js';

/**
 * Who the credential is, with the terms the account accepted (docs/protected-api.md, "GET /api/v1/me")
 * and, for a login token (the person's app), the profile values the filter holds as `pending_profile`
 * (docs/moderation.md, "Filter"): one GetItem and, for a login token, one Query, in parallel.
 */
export const route = defineRoute({
  name: 'me',
  description: 'Who the credential is, the terms the account accepted, its held profile values',
  // The account's accepted terms version (one GetItem of the account item) and, for a login token, the
  // profile values the filter holds (one Query of its partition's held range): docs/moderation.md.
  tables: { hub: { actions: ['GetItem', 'Query'] } },
  routes: [{ method: 'GET', path: '/api/v1/me' }],
  auth: 'either',
  doc: {
    tag: 'Protected',
    summary: 'Who the credential is (lets a script check its JWT or access key), and the terms version the account accepted',
    description:
      '`terms`: the terms of use the account accepted (docs/moderation.md, "Terms and contact"). `pending_profile`, for a login token and only when there is one: profile values the filter holds until a moderator approves them (docs/moderation.md, "Filter"); others still see the previous values.',
    success: { status: 200, kind: 'json', data: meSchema },
    errors: [401],
    examples: [{ summary: 'An access key', data: { user_id: 'u_9f2c4e1a7b', auth_type: 'api_key', scopes: ['export:read'], roles: [], key_id: 42, terms: exampleTerms } }],
  },
  handler: async ({ principal }) => {
    const [terms, pending] = await Promise.all([termsOf(principal!.user_id), principal!.auth_type === 'jwt' ? heldProfileOf(principal!.user_id) : {}]);
    return { data: { ...principal!, terms, ...(Object.keys(pending).length > 0 && { pending_profile: pending }) } };
  },
});
export const handler = route.handler;
