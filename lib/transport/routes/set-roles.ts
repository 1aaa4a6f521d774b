import { rolesResult } from '../../features/admin/admin-api.js';
import { openidPath, setRoles, setRolesBodySchema } from '../../features/admin/set-roles.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'setRoles',
  description: "Set an account's stored roles (admin JWT only)",
  // The roles read, then written with the audit event in one transaction conditioned on them.
  tables: { hub: { actions: ['GetItem', 'UpdateItem', 'PutItem'] } },
  routes: [{ method: 'POST', path: '/api/v1/admin/users/{openid}/roles' }],
  auth: 'admin',
  request: { path: openidPath, body: setRolesBodySchema },
  doc: {
    tag: 'Administration',
    summary: "Set an account's stored roles",
    description: 'Needs an admin login token (the request-context roles); an access key is 403.',
    success: { status: 200, kind: 'json', data: rolesResult },
    errors: [401, 403, 404],
    examples: [{ summary: 'Make an account an editor', path: { openid: 'u_9f2c4e1a7b' }, body: { roles: ['editor'] }, data: { openid: 'u_9f2c4e1a7b', roles: ['editor'] } }],
  },
  handler: async ({ principal, path, body }) => ({ data: await setRoles(principal!, path.openid, body) }),
});
export const handler = route.handler;
