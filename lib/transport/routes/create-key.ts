import * as z from '../../platform/zod.js';
import { exampleKey, publicKeySchema } from '../../features/keys/key-api.js';
import { createKey, createKeySchema } from '../../features/keys/key-service.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'createKey',
  description: 'Create an access key',
  // hub: the audit event, stored in the key write's transaction (PutItem); create also checks there
  // that the owner's account is not suspended (ConditionCheckItem).
  tables: { apiKeys: { actions: ['PutItem', 'UpdateItem', 'DeleteItem'] }, hub: { actions: ['ConditionCheckItem', 'PutItem'] } },
  routes: [{ method: 'POST', path: '/api/v1/api-keys' }],
  auth: 'jwt',
  request: { body: createKeySchema },
  doc: {
    tag: 'Access keys',
    summary: 'Create an access key',
    description: 'The key itself (`api_key`) is in this answer only; the server keeps its hash. At most 100 key records per user (409).',
    success: { status: 201, kind: 'json', data: z.object({ api_key: z.string().check(z.regex(/^ak_/)), key: publicKeySchema }) },
    errors: [401, 409],
    examples: [
      {
        summary: 'A key for a publishing pipeline',
        body: { name: 'CI pipeline', scopes: ['videos:write'], expires_at: null, rate_limit_per_minute: 600 },
        data: { api_key: 'ak_3q2hY0rG1mQ5v8Tn2Lx7Zc4Wb9K…', key: exampleKey },
      },
    ],
  },
  handler: async ({ principal, body }) => ({ status: 201, data: await createKey(principal!.user_id, body) }),
});
export const handler = route.handler;
