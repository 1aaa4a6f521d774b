import * as z from '../../platform/zod.js';
import { adminOnly } from '../../features/admin/admin-api.js';
import { listUserKeys } from '../../features/admin/admin-keys.js';
import { openidPath } from '../../features/admin/set-roles.js';
import { exampleKey, publicKeySchema } from '../../features/keys/key-api.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'adminListKeys',
  description: "List any account's access keys (admin JWT only)",
  // Administration (admin JWT only). Each action stores an audit event on the affected account (hub PutItem).
  tables: { apiKeys: { actions: ['Query', 'BatchGetItem'] }, hub: { actions: ['GetItem', 'PutItem'] } },
  routes: [{ method: 'GET', path: '/api/v1/admin/users/{openid}/api-keys' }],
  auth: 'admin',
  request: { path: openidPath },
  doc: {
    tag: 'Administration',
    summary: "List any account's access keys, newest first",
    description: adminOnly,
    success: { status: 200, kind: 'json', data: z.array(publicKeySchema) },
    errors: [401, 403, 404],
    examples: [{ summary: "An account's keys", path: { openid: 'u_9f2c4e1a7b' }, data: [{ ...exampleKey, last_used_at: '2026-01-06T09:12:00.000Z' }] }],
  },
  handler: async ({ principal, path }) => ({ data: await listUserKeys(principal!, path.openid) }),
});
export const handler = route.handler;
