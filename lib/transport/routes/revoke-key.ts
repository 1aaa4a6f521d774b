import * as z from '../../platform/zod.js';
import { keyIdPath } from '../../features/keys/key-api.js';
import { revokeKey } from '../../features/keys/key-service.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'revokeKey',
  description: 'Revoke an access key',
  tables: { apiKeys: { actions: ['GetItem', 'UpdateItem'] }, hub: { actions: ['PutItem'] } },
  routes: [{ method: 'POST', path: '/api/v1/api-keys/{id}/revoke' }],
  auth: 'jwt',
  request: { path: keyIdPath },
  doc: {
    tag: 'Access keys',
    summary: 'Revoke an access key (again: succeeds again)',
    description: "From this answer on the key fails verification and authentication; the record stays listed as `revoked`. Unknown or another account's key: 404.",
    success: { status: 200, kind: 'json', data: z.object({ revoked: z.literal(true), id: z.number() }) },
    errors: [401, 404],
    examples: [{ summary: 'Revoke key 42', path: { id: '42' }, data: { revoked: true, id: 42 } }],
  },
  handler: async ({ principal, path }) => ({ data: await revokeKey(principal!.user_id, path.id) }),
});
export const handler = route.handler;
