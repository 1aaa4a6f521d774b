import { dispatchHub } from '../hub/dispatch.js';
import { defineRoute } from '../http/define-route.js';

/**
 * The hub: one route, every operation named by `do` (lib/transport/hub/operations.ts), which
 * authenticates and validates each operation itself; the OpenAPI document describes it from the
 * operations, so this module has no `doc`.
 */
export const route = defineRoute({
  name: 'hub',
  description: 'The hub: every GET /api/v1?do=<operation>',
  // apiKeys: authenticating an access key per operation, as the authorizer does. hub: every `do`
  // operation (reads, likes and follows in transactions with condition checks, batches, the feed's
  // queries on gsi1-gsi3).
  tables: {
    apiKeys: { actions: ['GetItem', 'UpdateItem'] },
    hub: {
      actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'],
      indexes: ['gsi1', 'gsi2', 'gsi3'],
    },
  },
  jwtSecret: true,
  sms: true,
  routes: [{ method: 'GET', path: '/api/v1' }],
  auth: 'none',
  handler: dispatchHub,
});
export const handler = route.handler;
