import { openidPath } from '../../features/admin/set-roles.js';
import { adminDeleteAccount, deletionData, exampleDeletion, whatHappens } from '../../features/deletion/deletion-api.js';
import { confirmQuery } from '../../features/deletion/deletion.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'adminDeleteAccount',
  description: 'Delete an account (admin JWT only)',
  tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] } },
  timeoutSeconds: 30,
  routes: [{ method: 'DELETE', path: '/api/v1/admin/users/{openid}' }],
  auth: 'admin',
  request: { path: openidPath, query: confirmQuery },
  doc: {
    tag: 'Administration',
    summary: "Delete an account (at its owner's written request, or after a moderation decision)",
    description: `Needs an admin login token; an access key is 403. \`confirm=delete\` is required. Asking again answers the deletion already under way. ${whatHappens}`,
    success: { status: 202, kind: 'json', data: deletionData },
    errors: [401, 403, 404],
    examples: [{ summary: 'Delete an account', path: { openid: 'u_9f2c4e1a7b' }, query: { confirm: 'delete' }, data: { deletion: exampleDeletion } }],
  },
  handler: async ({ principal, path }) => ({ status: 202, data: await adminDeleteAccount(principal!, path.openid) }),
});
export const handler = route.handler;
