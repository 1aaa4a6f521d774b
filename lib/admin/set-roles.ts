import * as z from '../zod.js';
import { ROLES, type Principal } from '../auth/principal.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { checkedText } from '../text.js';
import { replaceAccountRoles } from '../hub/accounts.js';
import { audit } from '../observability/audit.js';

const openidSchema = checkedText(z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters')));

const bodySchema = z.object({
  roles: z.pipe(
    z.array(z.enum(ROLES, { error: `every role must be one of: ${ROLES.join(', ')}` }), { error: 'must be an array of role names' }),
    z.transform((roles: (typeof ROLES)[number][]) => [...new Set(roles)]),
  ),
});

export interface RolesResult {
  openid: string;
  roles: string[];
}

/**
 * Seed 001 §5: a role-context path. It authorizes by the request-context roles (the JWT's `roles`
 * claim) and denies access keys outright, whatever their owner's stored roles: keys carry no roles.
 */
export function requireAdminJwt(principal: Principal): void {
  if (principal.auth_type !== 'jwt') {
    throw new ForbiddenError('Role administration needs an admin login token (JWT); access keys are refused here');
  }
  if (!principal.roles.includes('admin')) throw new ForbiddenError('Role administration needs the admin role');
}

/** `POST /api/v1/admin/users/{openid}/roles`: replaces the stored roles of an account. */
export async function setRoles(principal: Principal, rawOpenid: string | undefined, body: unknown): Promise<RolesResult> {
  requireAdminJwt(principal);
  const openid = openidSchema.safeParse(rawOpenid ?? '');
  if (!openid.success) throw new ValidationError(`Invalid parameter "openid": ${openid.error.issues[0]?.message}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('The request body must be a JSON object');
  const { roles } = bodySchema.parse(body);
  const { account, rolesBefore } = await replaceAccountRoles(openid.data, roles);
  // Setting the roles an account already holds changes nothing: no audit line.
  if (rolesBefore.length !== account.roles.length || rolesBefore.some((r) => !account.roles.includes(r))) {
    audit({ action: 'role.changed', actor: principal.user_id, subject: account.openid, via: principal.auth_type, roles_before: rolesBefore, roles_after: account.roles });
  }
  return { openid: account.openid, roles: account.roles };
}
