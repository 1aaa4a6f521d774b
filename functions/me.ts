import { heldProfileOf } from '../lib/filter/held-items.js';
import { httpHandler } from '../lib/http/handler.js';

// A login token (the person's app) also sees the profile values the filter holds, as
// `pending_profile` (docs/moderation.md, "Filter"): one Query. An access key (a script checking its
// credential) costs what the authorizer costs, nothing more.
export const handler = httpHandler('me', async ({ principal }) => {
  const pending = principal!.auth_type === 'jwt' ? await heldProfileOf(principal!.user_id) : {};
  return { data: Object.keys(pending).length > 0 ? { ...principal!, pending_profile: pending } : principal };
});
