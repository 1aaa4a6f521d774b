import { heldProfileOf } from '../lib/features/filter/held-items.js';
import { httpHandler } from '../lib/transport/http/handler.js';
import { termsOf } from '../lib/features/policies/policies.js';

/**
 * Who the credential is, with the terms the account accepted (docs/protected-api.md, "GET /api/v1/me")
 * and, for a login token (the person's app), the profile values the filter holds as `pending_profile`
 * (docs/moderation.md, "Filter"): one GetItem and, for a login token, one Query, in parallel.
 */
export const handler = httpHandler('me', async ({ principal }) => {
  const [terms, pending] = await Promise.all([termsOf(principal!.user_id), principal!.auth_type === 'jwt' ? heldProfileOf(principal!.user_id) : {}]);
  return { data: { ...principal!, terms, ...(Object.keys(pending).length > 0 && { pending_profile: pending }) } };
});
