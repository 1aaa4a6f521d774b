import * as z from '../../platform/zod.js';
import { adminOnly } from '../../features/admin/admin-api.js';
import { adminRevokeKey } from '../../features/admin/admin-keys.js';
import { keyIdPath } from '../../features/keys/key-api.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'adminRevokeKey',
  description: 'Revoke any access key by id (admin JWT only)',
  // The owner by the key_id index, then the record (GetItem) and the revoke transaction.
  tables: { apiKeys: { actions: ['GetItem', 'UpdateItem'], indexes: ['key_id-index'] }, hub: { actions: ['PutItem'] } },
  routes: [{ method: 'POST', path: '/api/v1/admin/api-keys/{id}/revoke' }],
  auth: 'admin',
  request: { path: keyIdPath },
  doc: {
    tag: 'Administration',
    summary: 'Revoke any access key by its id (again: succeeds again)',
    description: adminOnly,
    success: { status: 200, kind: 'json', data: z.object({ revoked: z.literal(true), id: z.number(), user_id: z.string() }) },
    errors: [401, 403, 404],
    examples: [{ summary: 'Revoke key 42', path: { id: '42' }, data: { revoked: true, id: 42, user_id: 'u_9f2c4e1a7b' } }],
  },
  handler: async ({ principal, path }) => ({ data: await adminRevokeKey(principal!, path.id) }),
});
export const handler = route.handler;
