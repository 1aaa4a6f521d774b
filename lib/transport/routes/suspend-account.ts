import { suspensionDoc } from '../../features/admin/admin-api.js';
import { openidPath } from '../../features/admin/set-roles.js';
import { suspendAccount } from '../../features/admin/suspension.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'suspendAccount',
  description: 'Suspend an account: its sessions and keys get 401 (admin JWT only)',
  // One transaction: the account's suspended_at (hub), its event (hub), the key count check and each
  // guard's marker (apiKeys), after a Query of the keys; the account (GetItem) when it was refused;
  // the fallback marks guards one by one (UpdateItem).
  tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem'] } },
  timeoutSeconds: 30,
  routes: [{ method: 'POST', path: '/api/v1/admin/users/{openid}/suspend' }],
  auth: 'admin',
  request: { path: openidPath },
  doc: suspensionDoc('Suspend an account: its sessions and keys get 401 from the next request on', { summary: 'Suspend an account with 2 keys', suspended_at: '2026-01-07T10:00:00.000Z' }),
  handler: async ({ principal, path }) => ({ data: await suspendAccount(principal!, path.openid) }),
});
export const handler = route.handler;
