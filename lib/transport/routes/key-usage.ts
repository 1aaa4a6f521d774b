import * as z from '../../platform/zod.js';
import { keyIdPath } from '../../features/keys/key-api.js';
import { keyUsage } from '../../features/keys/key-service.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'keyUsage',
  description: "An access key's requests per day, last 30 days",
  tables: { apiKeys: { actions: ['GetItem', 'Query'] } },
  routes: [{ method: 'GET', path: '/api/v1/api-keys/{id}/usage' }],
  auth: 'either',
  request: { path: keyIdPath },
  doc: {
    tag: 'Access keys',
    summary: "An access key's admitted requests per UTC day, the last 30 days, oldest first (today last)",
    description:
      "Counted by the per-key rate limit (refused requests are not counted); days without requests are 0. With a login token: any key of the account. With an access key: its own id only (`key_id` in GET /api/v1/me). Another user's key, another key's id asked by a key, or an unknown id is 404.",
    success: {
      status: 200,
      kind: 'json',
      data: z.object({ days: z.array(z.object({ date: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')), requests: z.number().check(z.int(), z.minimum(0)) })) }),
    },
    errors: [401, 404],
    examples: [{ summary: 'Key 42 (two of the 30 days shown)', path: { id: '42' }, data: { days: [{ date: '2026-01-04', requests: 0 }, { date: '2026-01-05', requests: 118 }] } }],
  },
  // A login token reads any of its account's keys; an access key reads its own only (docs/api-keys.md).
  handler: async ({ principal, path }) => ({
    data: await keyUsage(principal!.user_id, path.id, principal!.auth_type === 'api_key' ? { id: principal!.key_id } : undefined),
  }),
});
export const handler = route.handler;
