import * as z from '../zod.js';
import { defineRouteDoc } from '../api-doc.js';
import { openidSchema, setRolesBodySchema, type RolesResult } from './set-roles.js';

/** The administration routes in the OpenAPI document (lib/api-doc.ts). */
const rolesResult = z.object({ openid: z.string(), roles: z.array(z.string()) });
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const rolesMatch: Same<z.output<typeof rolesResult>, RolesResult> = true;
void rolesMatch;

export const setRolesDoc = defineRouteDoc({
  tag: 'Administration',
  summary: "Set an account's stored roles",
  description: 'Needs an admin login token (the request-context roles); an access key is 403.',
  auth: 'jwt',
  pathParams: z.object({ openid: openidSchema }),
  body: setRolesBodySchema,
  success: { status: 200, kind: 'json', data: rolesResult },
  errors: [401, 403, 404],
  examples: [{ summary: 'Make an account an editor', path: { openid: 'u_9f2c4e1a7b' }, body: { roles: ['editor'] }, data: { openid: 'u_9f2c4e1a7b', roles: ['editor'] } }],
});
