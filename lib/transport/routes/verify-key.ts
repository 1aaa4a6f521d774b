import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { verifyKeyEndpoint } from '../../features/keys/key-service.js';
import { defineRoute } from '../http/define-route.js';

/**
 * `key` is required to verify, yet a missing one is the same 401 as any key that does not verify
 * (docs/api-keys.md), not a 400: the schema lets it through and the document says it is required.
 */
const verifyQuery = documentAs(z.object({ key: z.optional(z.string()) }), { required: ['key'] }, 'add');

export const route = defineRoute({
  name: 'verifyKey',
  description: 'Verify an access key (public)',
  // The guard's conditional update; a first refusal's audit event with the guard's mark (hub PutItem).
  tables: { apiKeys: { actions: ['UpdateItem'] }, hub: { actions: ['PutItem'] } },
  routes: [{ method: 'GET', path: '/api/v1/api-keys/verify' }],
  auth: 'none',
  request: { query: verifyQuery },
  doc: {
    tag: 'Access keys',
    summary: 'Verify an access key',
    description: 'Public. Any key that does not verify (missing, malformed, unknown, revoked, expired) gets the same 401.',
    success: { status: 200, kind: 'json', data: z.object({ user_id: z.string(), scopes: z.array(z.string()), valid: z.literal(true) }) },
    // 429: the key is past its own per-minute limit (verifying counts as a use: docs/api-keys.md, "Per-key rate limit").
    errors: [401, 429],
    examples: [{ summary: 'A valid key', query: { key: 'ak_3q2hY0rG1mQ5v8Tn2Lx7Zc4Wb9K…' }, data: { user_id: 'u_9f2c4e1a7b', scopes: ['videos:write'], valid: true } }],
  },
  handler: async ({ query }) => ({ data: await verifyKeyEndpoint(query.key) }),
});
export const handler = route.handler;
