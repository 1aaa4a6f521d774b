import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { AUDIT_PAGE_MAX, auditPage } from '../../platform/audit/audit-list.js';
import { auditEntry } from '../../platform/audit/audit-schema.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'listAudit',
  description: "The caller's audit events, newest first",
  // The caller's audit trail: one Query of the account's partition per page; signed cursors.
  tables: { hub: { actions: ['Query'] } },
  jwtSecret: true,
  routes: [{ method: 'GET', path: '/api/v1/audit' }],
  auth: 'jwt',
  request: {
    query: z.object({
      cursor: z.optional(z.string()),
      // Empty: the default page; the range is checked by auditPage (lib/platform/audit/audit-list.ts).
      limit: z.optional(documentAs(z.string().check(z.regex(/^[0-9]{0,3}$/, 'must be an integer from 1 to 100')), { type: 'integer', minimum: 1, maximum: AUDIT_PAGE_MAX })),
    }),
  },
  doc: {
    tag: 'Protected',
    summary: "The caller's account events, newest first (kept 90 days)",
    description: `Key created, revoked, deleted and first rate-limited in a minute, role changes, ended sessions and administrators' actions on the account. \`actor\` is the account's own openid, \`sign-in\`, or \`administrator\` for an administrator's action (named only to a reader with the admin role). Identifiers only, never a credential. \`limit\` 1-${AUDIT_PAGE_MAX} (default 20); \`next_cursor\` continues the list and is null on the last page. A login token only (an access key is 401).`,
    success: { status: 200, kind: 'json', data: z.object({ items: z.array(auditEntry), next_cursor: z.union([z.string(), z.null()]) }) },
    errors: [401],
    examples: [
      {
        summary: 'The first page',
        query: { limit: '2' },
        data: {
          items: [
            { id: 'ev_8Jx2', at: '2026-01-06T09:12:00.000Z', type: 'key.revoked', actor: 'u_9f2c4e1a7b', details: { via: 'jwt', key_id: 42, key_name: 'CI pipeline' } },
            { id: 'ev_7Qa1', at: '2026-01-05T08:30:00.000Z', type: 'key.created', actor: 'u_9f2c4e1a7b', details: { via: 'jwt', key_id: 42, key_name: 'CI pipeline' } },
          ],
          next_cursor: null,
        },
      },
    ],
  },
  handler: async ({ principal, query }) => ({ data: await auditPage(principal!, query) }),
});
export const handler = route.handler;
