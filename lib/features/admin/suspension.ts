import type * as z from '../../platform/zod.js';
import type { suspensionResult } from './admin-api.js';
import type { Principal } from '../auth/principal.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { clock } from '../../platform/clock.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { NotFoundError } from '../../platform/errors.js';
import { getAccount, isDeleted, suspensionUpdate } from '../../entities/accounts/accounts.js';
import { markKeysSuspended, suspensionMarkItems } from '../keys/suspension-marks.js';

/** What suspend and reinstate answer (its schema: lib/features/admin/admin-api.ts). */
export type SuspensionResult = z.output<typeof suspensionResult>;

/**
 * Sets or clears the suspension: the account item's `suspended_at`, its audit event and the marker on
 * every hash guard of the account's keys, in ONE transaction (suspensionMarkItems: also checks that
 * no key was created or deleted since the list, else it is built again). JWT authentication reads
 * the account item in the BatchGetItem it makes of the session anyway, key verification reads the
 * guard it reads anyway: no extra request on either path. A key create racing it either lands before
 * (listed, or the count check cancels and the list is read again) or is refused by its own check of
 * the account. Repeating it (the account is already in that state) stores no event and writes the
 * markers again, which completes a fallback that failed half-way. Fallback, for an account with more
 * keys than one transaction holds or when the key count keeps moving: the account and its event
 * first, then the markers (suspend: keys are refused only a moment later; reinstate: they stay
 * refused until the markers are gone, never the reverse). `extra` items join the transaction (a
 * moderator's decision on the reports that led to it: lib/features/moderation/actions.ts); a cancellation they
 * cause is thrown as it is, and an account already in that state writes none of them (`applied`
 * false: nothing was written).
 */
export async function changeSuspension(principal: Principal, openid: string, suspend: boolean, extra: TransactItem[] = []): Promise<{ result: SuspensionResult; applied: boolean }> {
  const event: AuditEvent = { action: suspend ? 'account.suspended' : 'account.reinstated', actor: principal.user_id, subject: openid, via: principal.auth_type };
  for (let attempt = 0; ; attempt++) {
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    const marks = attempt < 3 ? await suspensionMarkItems(openid, suspend) : undefined;
    const accountUpdate = suspensionUpdate(openid, suspend, principal.user_id, nowIso);
    try {
      await transactWrite([accountUpdate, auditItem(event, now), ...extra, ...(marks ?? [])]);
      writeAuditLine(event);
      const keys = marks ? marks.length - 1 : await markKeysSuspended(openid, suspend);
      return { result: { openid, suspended: suspend, suspended_at: suspend ? nowIso : null, keys }, applied: true };
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') break; // already in that state, deleted, or no such account
      // The keys changed since they were listed: list them again.
      if (marks && marks.some((_, i) => cancellationCode(error, i + 2 + extra.length) === 'ConditionalCheckFailed')) continue;
      throw error;
    }
  }
  const account = await getAccount(openid, true);
  // A deleted account is no account to suspend or reinstate (its keys stay marked until erased).
  if (!account || isDeleted(account)) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
  const keys = await markKeysSuspended(openid, suspend);
  const suspendedAt = (account as { suspended_at?: string }).suspended_at;
  return { result: { openid, suspended: suspend, suspended_at: suspend ? (suspendedAt ?? null) : null, keys }, applied: false };
}

/** `POST /api/v1/admin/users/{openid}/suspend`: every session and key of the account gets 401 from the next request on. */
export async function suspendAccount(principal: Principal, openid: string): Promise<SuspensionResult> {
  return (await changeSuspension(principal, openid, true)).result;
}

/** `POST /api/v1/admin/users/{openid}/reinstate`: sessions and active keys work again; revoked keys stay revoked (`is_active` is another attribute). */
export async function reinstateAccount(principal: Principal, openid: string): Promise<SuspensionResult> {
  return (await changeSuspension(principal, openid, false)).result;
}
