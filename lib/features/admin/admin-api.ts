import * as z from '../../platform/zod.js';
import { defineRouteDoc, type Same } from '../../platform/api-doc.js';
import { exampleKey, keyIdPath, publicKeySchema } from '../keys/key-api.js';
import { lookupSchema } from './admin-keys.js';
import { openidSchema, setRolesBodySchema, type RolesResult } from './set-roles.js';
import type { SuspensionResult } from './suspension.js';

/** The administration routes in the OpenAPI document (lib/platform/api-doc.ts). */
const rolesResult = z.object({ openid: z.string(), roles: z.array(z.string()) });
const rolesMatch: Same<z.output<typeof rolesResult>, RolesResult> = true;
void rolesMatch;

export const setRolesDoc = defineRouteDoc({
  tag: 'Administration',
  summary: "Set an account's stored roles",
  description: 'Needs an admin login token (the request-context roles); an access key is 403.',
  pathParams: z.object({ openid: openidSchema }),
  body: setRolesBodySchema,
  success: { status: 200, kind: 'json', data: rolesResult },
  errors: [401, 403, 404],
  examples: [{ summary: 'Make an account an editor', path: { openid: 'u_9f2c4e1a7b' }, body: { roles: ['editor'] }, data: { openid: 'u_9f2c4e1a7b', roles: ['editor'] } }],
});

const adminOnly = 'Needs an admin login token (the request-context roles); an access key is 403. The action is an audit event on the affected account.';

export const adminListKeysDoc = defineRouteDoc({
  tag: 'Administration',
  summary: "List any account's access keys, newest first",
  description: adminOnly,
  pathParams: z.object({ openid: openidSchema }),
  success: { status: 200, kind: 'json', data: z.array(publicKeySchema) },
  errors: [401, 403, 404],
  examples: [{ summary: "An account's keys", path: { openid: 'u_9f2c4e1a7b' }, data: [{ ...exampleKey, last_used_at: '2026-01-06T09:12:00.000Z' }] }],
});

export const adminRevokeKeyDoc = defineRouteDoc({
  tag: 'Administration',
  summary: 'Revoke any access key by its id (again: succeeds again)',
  description: adminOnly,
  pathParams: keyIdPath,
  success: { status: 200, kind: 'json', data: z.object({ revoked: z.literal(true), id: z.number(), user_id: z.string() }) },
  errors: [401, 403, 404],
  examples: [{ summary: 'Revoke key 42', path: { id: '42' }, data: { revoked: true, id: 42, user_id: 'u_9f2c4e1a7b' } }],
});

export const adminLookupKeyDoc = defineRouteDoc({
  tag: 'Administration',
  summary: 'Find the owner of a key given in plaintext (a leaked key), and revoke it in the same call with `revoke: true`',
  description: `${adminOnly} A plaintext that is not a key of this service is 404, like an unknown key. The plaintext is neither stored nor logged.`,
  body: lookupSchema,
  success: { status: 200, kind: 'json', data: z.object({ user_id: z.string(), key: publicKeySchema }) },
  errors: [401, 403, 404],
  examples: [
    {
      summary: 'A leaked key, revoked at once',
      body: { key: 'ak_3q2hY0rG1mQ5v8Tn2Lx7Zc4Wb9K…', revoke: true },
      data: { user_id: 'u_9f2c4e1a7b', key: { ...exampleKey, is_active: false, status: 'revoked' } },
    },
  ],
});

const suspensionResult = z.object({ openid: z.string(), suspended: z.boolean(), suspended_at: z.union([z.string(), z.null()]), keys: z.number().check(z.int(), z.minimum(0)) });
const suspensionMatches: Same<z.output<typeof suspensionResult>, SuspensionResult> = true;
void suspensionMatches;

/** Suspend and reinstate: the same path, answer and errors; what differs is the summary and the example. */
const suspensionDoc = (summary: string, example: { summary: string; suspended_at: string | null }) =>
  defineRouteDoc({
    tag: 'Administration',
    summary,
    description: adminOnly,
    pathParams: z.object({ openid: openidSchema }),
    success: { status: 200, kind: 'json', data: suspensionResult },
    errors: [401, 403, 404],
    examples: [
      {
        summary: example.summary,
        path: { openid: 'u_9f2c4e1a7b' },
        data: { openid: 'u_9f2c4e1a7b', suspended: example.suspended_at !== null, suspended_at: example.suspended_at, keys: 2 },
      },
    ],
  });

export const suspendAccountDoc = suspensionDoc('Suspend an account: its sessions and keys get 401 from the next request on', {
  summary: 'Suspend an account with 2 keys',
  suspended_at: '2026-01-07T10:00:00.000Z',
});

export const reinstateAccountDoc = suspensionDoc('Reinstate a suspended account (revoked keys stay revoked)', { summary: 'Reinstate it', suspended_at: null });
