import * as z from '../../platform/zod.js';
import { exampleKey, publicKeySchema } from '../../features/keys/key-api.js';
import { listKeys } from '../../features/keys/key-service.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'listKeys',
  description: "List the caller's access keys",
  // The records, then their guards' last_used_at (BatchGetItem).
  tables: { apiKeys: { actions: ['Query', 'BatchGetItem'] } },
  routes: [{ method: 'GET', path: '/api/v1/api-keys' }],
  auth: 'jwt',
  doc: {
    tag: 'Access keys',
    summary: "List the caller's access keys, newest first",
    description: 'Every key record of the account (revoked and expired ones included, with their `status`); never a key hash or plaintext. A login token only.',
    success: { status: 200, kind: 'json', data: z.array(publicKeySchema) },
    errors: [401],
    examples: [{ summary: 'One key', data: [exampleKey] }],
  },
  handler: async ({ principal }) => ({ data: await listKeys(principal!.user_id) }),
});
export const handler = route.handler;
