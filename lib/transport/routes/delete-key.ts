import * as z from '../../platform/zod.js';
import { keyIdPath } from '../../features/keys/key-api.js';
import { deleteKey } from '../../features/keys/key-service.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'deleteKey',
  description: 'Delete an access key',
  tables: { apiKeys: { actions: ['GetItem', 'DeleteItem', 'UpdateItem'] }, hub: { actions: ['PutItem'] } },
  routes: [{ method: 'DELETE', path: '/api/v1/api-keys/{id}' }],
  auth: 'jwt',
  request: { path: keyIdPath },
  doc: {
    tag: 'Access keys',
    summary: 'Delete an access key',
    description: "Removes the key record; from this answer on the key fails verification and authentication. Unknown or another account's key: 404.",
    success: { status: 200, kind: 'json', data: z.object({ deleted: z.literal(true), id: z.number() }) },
    errors: [401, 404],
    examples: [{ summary: 'Delete key 42', path: { id: '42' }, data: { deleted: true, id: 42 } }],
  },
  handler: async ({ principal, path }) => ({ data: await deleteKey(principal!.user_id, path.id) }),
});
export const handler = route.handler;
