import { deleteOwnAccount, deletionData, exampleDeletion, whatHappens } from '../../features/deletion/deletion-api.js';
import { confirmQuery } from '../../features/deletion/deletion.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'deleteAccount',
  description: 'Delete my account (login JWT only): sessions and keys refused at once, erasure in the background',
  // Account deletion (docs/accounts.md): the deletion's transaction (the account, the phone link, the
  // record and its event on the hub table; the key count check and each guard's mark on apiKeys),
  // after a Query of the keys; the fallback marks guards one by one.
  tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] } },
  timeoutSeconds: 30,
  routes: [{ method: 'DELETE', path: '/api/v1/me' }],
  auth: 'jwt',
  request: { query: confirmQuery },
  doc: {
    tag: 'Protected',
    summary: 'Delete my account',
    description: `Needs the login token (an access key is 401: a key can never delete its owner). \`confirm=delete\` is required. ${whatHappens}`,
    success: { status: 202, kind: 'json', data: deletionData },
    // 404: the account went while the request ran (lib/features/deletion/deletion.ts, requestDeletion).
    errors: [401, 404],
    examples: [{ summary: 'Delete the signed-in account', query: { confirm: 'delete' }, data: { deletion: exampleDeletion } }],
  },
  handler: async ({ principal }) => ({ status: 202, data: await deleteOwnAccount(principal!) }),
});
export const handler = route.handler;
