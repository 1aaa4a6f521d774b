import * as z from '../../platform/zod.js';
import { defineRouteDoc, documentAs, type Same } from '../../platform/api-doc.js';
import type { PublicKey } from './key-record.js';
import { createKeySchema } from './key-service.js';

/**
 * The key service's routes as the OpenAPI document describes them (lib/platform/api-doc.ts): request schemas
 * are the ones key-service.ts validates with; the response schemas below are checked against the
 * answer types at compile time and against real answers in test/e2e/openapi.test.ts.
 */
const timestamp = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be ISO 8601 UTC with milliseconds'));

export const publicKeySchema = z.object({
  id: z.number().check(z.int(), z.positive()),
  name: z.string(),
  key_prefix: z.literal('ak_'),
  user_id: z.string(),
  scopes: z.array(z.string()),
  expires_at: z.union([timestamp, z.null()]),
  last_used_at: z.union([timestamp, z.null()]),
  is_active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  status: z.enum(['valid', 'revoked', 'expired']),
  key_hint: z.string().check(z.regex(/^ak_…([A-Za-z0-9]{4})?$/, 'must be ak_… and the last 4 characters')),
  rate_limit_per_minute: z.number().check(z.int(), z.positive()),
});

// The schema and the type toPublicKey returns must be the same shape: tsc fails when one drifts.
const publicKeyMatches: Same<z.output<typeof publicKeySchema>, PublicKey> = true;
void publicKeyMatches;

/** A key id in a path: a positive integer (the `id` of the key record), typed as one in the document. */
export const keyIdPath = z.object({
  id: documentAs(z.string().check(z.regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')), { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 }),
});
export const exampleKey: z.output<typeof publicKeySchema> = {
  id: 42,
  name: 'CI pipeline',
  key_prefix: 'ak_',
  user_id: 'u_9f2c4e1a7b',
  scopes: ['videos:write'],
  expires_at: null,
  last_used_at: null,
  is_active: true,
  created_at: '2026-01-05T08:30:00.000Z',
  updated_at: '2026-01-05T08:30:00.000Z',
  status: 'valid',
  key_hint: 'ak_…j1Uo',
  rate_limit_per_minute: 600,
};

export const createKeyDoc = defineRouteDoc({
  tag: 'Access keys',
  summary: 'Create an access key',
  description: 'The key itself (`api_key`) is in this answer only; the server keeps its hash. At most 100 key records per user (409).',
  body: createKeySchema,
  success: { status: 201, kind: 'json', data: z.object({ api_key: z.string().check(z.regex(/^ak_/)), key: publicKeySchema }) },
  errors: [401, 409],
  examples: [
    {
      summary: 'A key for a publishing pipeline',
      body: { name: 'CI pipeline', scopes: ['videos:write'], expires_at: null, rate_limit_per_minute: 600 },
      data: { api_key: 'ak_3q2hY0rG1mQ5v8Tn2Lx7Zc4Wb9K…', key: exampleKey },
    },
  ],
});

export const listKeysDoc = defineRouteDoc({
  tag: 'Access keys',
  summary: "List the caller's access keys, newest first",
  description: 'Every key record of the account (revoked and expired ones included, with their `status`); never a key hash or plaintext. A login token only.',
  success: { status: 200, kind: 'json', data: z.array(publicKeySchema) },
  errors: [401],
  examples: [{ summary: 'One key', data: [exampleKey] }],
});

export const revokeKeyDoc = defineRouteDoc({
  tag: 'Access keys',
  summary: 'Revoke an access key (again: succeeds again)',
  description: 'From this answer on the key fails verification and authentication; the record stays listed as `revoked`. Unknown or another account\'s key: 404.',
  pathParams: keyIdPath,
  success: { status: 200, kind: 'json', data: z.object({ revoked: z.literal(true), id: z.number() }) },
  errors: [401, 404],
  examples: [{ summary: 'Revoke key 42', path: { id: '42' }, data: { revoked: true, id: 42 } }],
});

export const deleteKeyDoc = defineRouteDoc({
  tag: 'Access keys',
  summary: 'Delete an access key',
  description: 'Removes the key record; from this answer on the key fails verification and authentication. Unknown or another account\'s key: 404.',
  pathParams: keyIdPath,
  success: { status: 200, kind: 'json', data: z.object({ deleted: z.literal(true), id: z.number() }) },
  errors: [401, 404],
  examples: [{ summary: 'Delete key 42', path: { id: '42' }, data: { deleted: true, id: 42 } }],
});

export const verifyKeyDoc = defineRouteDoc({
  tag: 'Access keys',
  summary: 'Verify an access key',
  description: 'Public. Any key that does not verify (missing, malformed, unknown, revoked, expired) gets the same 401.',
  query: z.object({ key: z.string() }),
  success: { status: 200, kind: 'json', data: z.object({ user_id: z.string(), scopes: z.array(z.string()), valid: z.literal(true) }) },
  errors: [401],
  examples: [{ summary: 'A valid key', query: { key: 'ak_3q2hY0rG1mQ5v8Tn2Lx7Zc4Wb9K…' }, data: { user_id: 'u_9f2c4e1a7b', scopes: ['videos:write'], valid: true } }],
});

export const keyUsageDoc = defineRouteDoc({
  tag: 'Access keys',
  summary: "An access key's admitted requests per UTC day, the last 30 days, oldest first (today last)",
  description:
    'Counted by the per-key rate limit (refused requests are not counted); days without requests are 0. With a login token: any key of the account. With an access key: its own id only (`key_id` in GET /api/v1/me). Another user\'s key, another key\'s id asked by a key, or an unknown id is 404.',
  pathParams: keyIdPath,
  success: {
    status: 200,
    kind: 'json',
    data: z.object({ days: z.array(z.object({ date: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')), requests: z.number().check(z.int(), z.minimum(0)) })) }),
  },
  errors: [401, 404],
  examples: [{ summary: 'Key 42 (two of the 30 days shown)', path: { id: '42' }, data: { days: [{ date: '2026-01-04', requests: 0 }, { date: '2026-01-05', requests: 118 }] } }],
});
