import * as z from '../zod.js';
import { defineRouteDoc, documentAs } from '../api-doc.js';
import { auditEntry } from './audit-schema.js';
import { AUDIT_PAGE_MAX } from './audit-list.js';

/** `GET /api/v1/audit` in the OpenAPI document (lib/platform/api-doc.ts). */
export const listAuditDoc = defineRouteDoc({
  tag: 'Protected',
  summary: "The caller's account events, newest first (kept 90 days)",
  description: `Key created, revoked, deleted and first rate-limited in a minute, role changes, ended sessions and administrators' actions on the account. \`actor\` is the account's own openid, \`sign-in\`, or \`administrator\` for an administrator's action (named only to a reader with the admin role). Identifiers only, never a credential. \`limit\` 1-${AUDIT_PAGE_MAX} (default 20); \`next_cursor\` continues the list and is null on the last page. A login token only (an access key is 401).`,
  query: z.object({
    cursor: z.optional(z.string()),
    limit: z.optional(documentAs(z.string().check(z.regex(/^[0-9]{1,3}$/, 'must be an integer from 1 to 100')), { type: 'integer', minimum: 1, maximum: AUDIT_PAGE_MAX })),
  }),
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
});

/** `POST /api/v1/logout` in the OpenAPI document. */
export const signOutDoc = defineRouteDoc({
  tag: 'Access keys',
  summary: "Sign out: end the calling login token's session",
  description:
    'The token gets 401 everywhere from the next request on, as when a sign-in passes it as `token0`; a `session.ended` event is stored on the account. A login token only (an access key is 401). Calling it again with the ended token is 401.',
  success: { status: 200, kind: 'json', data: z.object({ ended: z.literal(true) }) },
  errors: [401],
  examples: [{ summary: 'Sign out', data: { ended: true } }],
});
