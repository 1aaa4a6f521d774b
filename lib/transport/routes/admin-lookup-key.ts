import * as z from '../../platform/zod.js';
import { adminOnly } from '../../features/admin/admin-api.js';
import { lookupKey, lookupSchema } from '../../features/admin/admin-keys.js';
import { exampleKey, publicKeySchema } from '../../features/keys/key-api.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'adminLookupKey',
  description: 'Find (and optionally revoke) a key by its plaintext (admin JWT only)',
  // The hash guard and the record (GetItem), the revoke transaction (UpdateItem).
  tables: { apiKeys: { actions: ['GetItem', 'UpdateItem'] }, hub: { actions: ['PutItem'] } },
  routes: [{ method: 'POST', path: '/api/v1/admin/api-keys/lookup' }],
  auth: 'admin',
  request: { body: lookupSchema },
  doc: {
    tag: 'Administration',
    summary: 'Find the owner of a key given in plaintext (a leaked key), and revoke it in the same call with `revoke: true`',
    description: `${adminOnly} A plaintext that is not a key of this service is 404, like an unknown key. The plaintext is neither stored nor logged.`,
    success: { status: 200, kind: 'json', data: z.object({ user_id: z.string(), key: publicKeySchema }) },
    errors: [401, 403, 404],
    examples: [
      {
        summary: 'A leaked key, revoked at once',
        body: { key: 'ak_3q2hY0rG1mQ5v8Tn2Lx7Zc4Wb9K…', revoke: true },
        data: { user_id: 'u_9f2c4e1a7b', key: { ...exampleKey, is_active: false, status: 'revoked' } },
      },
    ],
  },
  handler: async ({ principal, body }) => ({ data: await lookupKey(principal!, body) }),
});
export const handler = route.handler;
