import * as z from '../../platform/zod.js';

/** Who a request acts for, as the authorizer (or the hub's in-function check) established it; GET /api/v1/me answers it. */
export const principalSchema = z.object({
  user_id: z.string(),
  auth_type: z.enum(['jwt', 'api_key']),
  scopes: z.array(z.string()),
  roles: z.array(z.string()),
  /** An access key's own id (absent for a login token): a key may read its own usage (docs/api-keys.md), GET /api/v1/api-keys/{key_id}/usage. */
  key_id: z.optional(z.number().check(z.int(), z.positive())),
});
export type Principal = z.output<typeof principalSchema>;
