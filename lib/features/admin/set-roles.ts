import * as z from '../../platform/zod.js';
import type { rolesResult } from './admin-api.js';
import type { Principal } from '../auth/principal.js';
import { ROLES, type Role } from '../../entities/accounts/roles.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { checkedText } from '../../platform/text.js';
import { accountIdOfPhone, replaceAccountRolesAudited, requireAccount, roleChangeBy } from '../../entities/accounts/accounts.js';
import { tryNormalizePhone } from '../../platform/sms/phone.js';

export const openidSchema = checkedText(z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters')));

/** An account named in a path (`/admin/users/{openid}/...`). */
export const openidPath = z.object({ openid: openidSchema });

export const setRolesBodySchema = z.strictBody({
  roles: z.pipe(
    z.array(z.enum(ROLES, { error: `every role must be one of: ${ROLES.join(', ')}` }), { error: 'must be an array of role names' }),
    z.transform((roles: (typeof ROLES)[number][]) => [...new Set(roles)]),
  ),
});

/** What POST /api/v1/admin/users/{openid}/roles answers (its schema: lib/features/admin/admin-api.ts). */
export type RolesResult = z.output<typeof rolesResult>;

/** `POST /api/v1/admin/users/{openid}/roles`: replaces the stored roles of an account. */
export async function setRoles(principal: Principal, openid: string, { roles }: z.output<typeof setRolesBodySchema>): Promise<RolesResult> {
  // Setting the roles an account already holds changes nothing: no audit event.
  const { account } = await replaceAccountRolesAudited(openid, roles, roleChangeBy(principal.user_id, openid, principal.auth_type));
  return { openid: account.openid, roles: account.roles };
}

export interface RoleChange {
  openid: string;
  roles_before: string[];
  roles_after: string[];
  changed: boolean;
}

/**
 * The account named by a phone number (`+86…`, or a national number in DEFAULT_PHONE_REGION) or by
 * its openid; 404 when there is none.
 */
export async function resolveAccountId(phoneOrOpenid: string): Promise<string> {
  const value = phoneOrOpenid.trim();
  const phone = /^\+?[\d\s-]{5,}$/.test(value) ? tryNormalizePhone(value) : undefined;
  if (/^\+/.test(value) && !phone) throw new ValidationError(`"${value.slice(0, 32)}" is not a valid phone number`);
  const openid = phone ? await accountIdOfPhone(phone) : value;
  if (!openid) throw new NotFoundError('No account signs in with this phone number');
  return (await requireAccount(openid, 'Account')).openid;
}

/**
 * Adds or removes one stored role (the administration CLI, `npm run admin`): the same write as
 * `POST /api/v1/admin/users/{openid}/roles`, after reading the roles it changes. Idempotent: a role
 * already there (or already gone) writes nothing and logs nothing.
 */
export async function changeStoredRole(openid: string, role: Role, action: 'grant' | 'revoke', actor: string): Promise<RoleChange> {
  const before = (await requireAccount(openid, 'Account')).roles ?? [];
  const wanted = action === 'grant' ? [...new Set([...before, role])] : before.filter((r) => r !== role);
  if (wanted.length === before.length) return { openid, roles_before: before, roles_after: before, changed: false };
  // The write is conditioned on the roles it replaces (read again there): the event stays true if
  // another change landed in between.
  const change = await replaceAccountRolesAudited(openid, wanted, roleChangeBy(actor, openid));
  return { openid, roles_before: change.rolesBefore, roles_after: change.account.roles, changed: change.changed };
}
