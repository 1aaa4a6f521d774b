import type { Principal } from '../auth/principal.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../audit/trail.js';
import { clock } from '../clock.js';
import { tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { cancellationCode, transactWrite } from '../db/transact.js';
import { NotFoundError } from '../errors.js';
import { getAccount } from '../hub/accounts.js';
import { markKeysSuspended } from '../keys/key-store.js';
import { parseOpenid, requireAdministrator } from './admin-keys.js';

export interface SuspensionResult {
  openid: string;
  suspended: boolean;
  /** When the current suspension began; null when the account is not suspended. */
  suspended_at: string | null;
  /** How many of the account's keys now carry the suspension marker (or, on reinstate, lost it). */
  keys: number;
}

/**
 * `POST /api/v1/admin/users/{openid}/suspend`. The account item gets `suspended_at` (with its audit
 * event, one transaction: only the request that suspends stores the event), then every hash guard of
 * the account's keys gets the `suspended` marker. JWT authentication reads the account item in the
 * BatchGetItem it makes of the session anyway, key verification reads the guard it reads anyway: no
 * extra request on either path. Suspending a suspended account succeeds again and marks the guards
 * again (a retry after a failure half-way completes the suspension). A key created at the same time
 * is either listed here (created first) or refused (its transaction checks the account).
 */
export async function suspendAccount(principal: Principal, rawOpenid: string | undefined): Promise<SuspensionResult> {
  requireAdministrator(principal);
  const openid = parseOpenid(rawOpenid);
  const now = clock.now();
  const nowIso = new Date(now).toISOString();
  const event: AuditEvent = { action: 'account.suspended', actor: principal.user_id, subject: openid, via: principal.auth_type };
  let suspendedAt = nowIso;
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableNames.hub,
          Key: hubItems.account(openid),
          UpdateExpression: 'SET suspended_at = :now, suspended_by = :by',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(suspended_at)',
          ExpressionAttributeValues: { ':now': nowIso, ':by': principal.user_id },
        },
      },
      auditItem(event, now),
    ]);
    writeAuditLine(event);
  } catch (error) {
    if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
    const account = await getAccount(openid, true);
    if (!account) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
    suspendedAt = (account as { suspended_at?: string }).suspended_at ?? nowIso;
  }
  const keys = await markKeysSuspended(openid, true);
  return { openid, suspended: true, suspended_at: suspendedAt, keys };
}

/**
 * `POST /api/v1/admin/users/{openid}/reinstate`: the account item loses `suspended_at` (with its
 * audit event), then the guards lose the marker. Revoked keys stay revoked (`is_active` is another
 * attribute). Reinstating an account that is not suspended succeeds again and clears any marker left.
 */
export async function reinstateAccount(principal: Principal, rawOpenid: string | undefined): Promise<SuspensionResult> {
  requireAdministrator(principal);
  const openid = parseOpenid(rawOpenid);
  const now = clock.now();
  const event: AuditEvent = { action: 'account.reinstated', actor: principal.user_id, subject: openid, via: principal.auth_type };
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableNames.hub,
          Key: hubItems.account(openid),
          UpdateExpression: 'REMOVE suspended_at, suspended_by',
          ConditionExpression: 'attribute_exists(pk) AND attribute_exists(suspended_at)',
        },
      },
      auditItem(event, now),
    ]);
    writeAuditLine(event);
  } catch (error) {
    if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
    if (!(await getAccount(openid, true))) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
  }
  const keys = await markKeysSuspended(openid, false);
  return { openid, suspended: false, suspended_at: null, keys };
}
