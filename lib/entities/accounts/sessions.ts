import { BatchGetCommand, type BatchGetCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../platform/db/client.js';
import { accountKeys, personOf } from './accounts.js';
import type { TransactItem } from '../../platform/db/transact.js';

/**
 * Ended sessions: a JWT is stateless until someone ends it (create_phone_account with
 * openid0/token0). The ended jti is kept until the token would have expired anyway (DynamoDB TTL).
 */
/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const sessionKeys = {
  /** The marker of an ended session (a JWT's `jti`), kept until the token would expire. */
  ended: (jti: string) => ({ pk: `SESSION#${jti}`, sk: 'ENDED' }),
};

/** Ends a session, as a transaction item: written with the sign-in that replaces it (all or nothing). */
export function endSessionItem(jti: string, expiresAtEpochSeconds: number): TransactItem {
  return { Put: { TableName: tableNames.hub, Item: { ...sessionKeys.ended(jti), ttl: expiresAtEpochSeconds } } };
}

/** What the JWT check reads of a session and its account, in one request. */
export interface SessionStatus {
  ended: boolean;
  suspended: boolean;
  /** The account was deleted (lib/features/deletion/deletion.ts): every session of it is refused. */
  deleted: boolean;
  /** The account's stored roles now ([] when the account is gone). */
  roles: string[];
  /** When each removed role was last removed (epoch ms), lib/entities/accounts/accounts.ts `roles_removed_at`. */
  rolesRemovedAt: Record<string, number>;
  /** The account's person id (lib/entities/accounts/accounts.ts personIdOf), from its phone: what the per-person limits are keyed by. */
  person?: string;
}

/**
 * The one request of a JWT's check: a strongly consistent BatchGetItem of `keys` (the session's end
 * marker and the account), only what the check reads (the phone for the person id: it goes no further). The latency bench sends it bare as the JWT
 * path's reference (bench/sections/latency.ts).
 */
export function sessionStatusRead(keys: Record<string, unknown>[]): BatchGetCommandInput {
  return {
    RequestItems: {
      [tableNames.hub]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'pk, sk, suspended_at, deleted_at, #roles, roles_removed_at, phone', ExpressionAttributeNames: { '#roles': 'roles' } },
    },
  };
}

/**
 * Whether the session `jti` of account `sub` was ended, whether the account is suspended
 * (`suspended_at` on its item, lib/features/admin/suspension.ts), and the account's stored roles with their
 * removal stamps: one strongly consistent BatchGetItem of both items, so suspension and role checks
 * cost JWT authentication no extra request. Keys DynamoDB leaves unprocessed (throttling) are asked
 * again.
 */
export async function sessionStatus(jti: string, sub: string): Promise<SessionStatus> {
  const session = sessionKeys.ended(jti);
  const account = accountKeys.account(sub);
  let keys: Record<string, unknown>[] = [session, account];
  const found: Record<string, unknown>[] = [];
  for (let attempt = 0; keys.length > 0; attempt++) {
    if (attempt >= 5) throw Object.assign(new Error('session check: keys left unprocessed'), { name: 'ProvisionedThroughputExceededException' });
    const out = await db.send(new BatchGetCommand(sessionStatusRead(keys)));
    found.push(...(out.Responses?.[tableNames.hub] ?? []));
    keys = (out.UnprocessedKeys?.[tableNames.hub]?.Keys ?? []) as Record<string, unknown>[];
  }
  const at = (key: { pk: string; sk: string }) => found.find((item) => item.pk === key.pk && item.sk === key.sk);
  const stored = at(account);
  const roles = Array.isArray(stored?.roles) ? stored.roles.filter((r): r is string => typeof r === 'string') : [];
  const removed = (stored?.roles_removed_at ?? {}) as Record<string, unknown>;
  const rolesRemovedAt = Object.fromEntries(Object.entries(removed).filter((e): e is [string, number] => typeof e[1] === 'number'));
  const person = personOf({ phone: typeof stored?.phone === 'string' ? stored.phone : '' });
  return { ended: at(session) !== undefined, suspended: typeof stored?.suspended_at === 'string', deleted: typeof stored?.deleted_at === 'string', roles, rolesRemovedAt, person };
}

/**
 * The roles a request may use (docs/protected-api.md, "Roles"): those the token names (its
 * request-context roles) that the account holds now and that were not removed at or after the
 * token's issue (`issuedAtSeconds`, the JWT's `iat`). A removed role stops working on the next
 * request, and a token issued before a removal never regains the role, even after a new grant.
 */
export function effectiveRoles(tokenRoles: readonly string[], issuedAtSeconds: number, status: Pick<SessionStatus, 'roles' | 'rolesRemovedAt'>): string[] {
  return tokenRoles.filter((role) => {
    if (!status.roles.includes(role)) return false;
    const removedAt = status.rolesRemovedAt[role];
    return removedAt === undefined || removedAt < issuedAtSeconds * 1000;
  });
}
