import { suspensionDoc } from '../../features/admin/admin-api.js';
import { openidPath } from '../../features/admin/set-roles.js';
import { reinstateAccount } from '../../features/admin/suspension.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'reinstateAccount',
  description: 'Reinstate a suspended account (admin JWT only)',
  tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem'] } },
  timeoutSeconds: 30,
  routes: [{ method: 'POST', path: '/api/v1/admin/users/{openid}/reinstate' }],
  auth: 'admin',
  request: { path: openidPath },
  doc: suspensionDoc('Reinstate a suspended account (revoked keys stay revoked)', { summary: 'Reinstate it', suspended_at: null }),
  handler: async ({ principal, path }) => ({ data: await reinstateAccount(principal!, path.openid) }),
});
export const handler = route.handler;
