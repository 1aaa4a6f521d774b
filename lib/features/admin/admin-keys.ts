import * as z from '../../platform/zod.js';
import type { Principal } from '../auth/principal.js';
import { audit, type AuditEvent } from '../../platform/audit/trail.js';
import { clock } from '../../platform/clock.js';
import { NotFoundError } from '../../platform/errors.js';
import { getAccount } from '../../entities/accounts/accounts.js';
import { hashApiKey, isWellFormedKey } from '../keys/key-material.js';
import { toPublicKey, type PublicKey } from '../keys/key-record.js';
import { listKeys, revokeStoredKey, type KeyActor } from '../keys/key-service.js';
import { findKeyById, findKeyRecordByHash } from '../keys/key-records.js';

const adminActor = (principal: Principal): KeyActor => ({ user_id: principal.user_id, via: principal.auth_type });

/** `GET /api/v1/admin/users/{openid}/api-keys`: any account's keys, as its owner's list shows them. 404: no such account and no keys. */
export async function listUserKeys(principal: Principal, openid: string): Promise<PublicKey[]> {
  const keys = await listKeys(openid);
  if (keys.length === 0 && !(await getAccount(openid, true))) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
  await audit({ action: 'admin.keys_listed', actor: principal.user_id, subject: openid, via: principal.auth_type });
  return keys;
}

/** `POST /api/v1/admin/api-keys/{id}/revoke`: revokes any key (again: success). The event goes to the owner's account. */
export async function adminRevokeKey(principal: Principal, id: number): Promise<{ revoked: true; id: number; user_id: string }> {
  const key = await findKeyById(id);
  if (!key) throw new NotFoundError(`API key ${id} does not exist`);
  await revokeStoredKey(key, adminActor(principal)).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new NotFoundError(`API key ${id} does not exist`);
    throw error;
  });
  return { revoked: true, id, user_id: key.user_id };
}

export const lookupSchema = z.strictBody({
  key: z.string({ error: 'must be a string' }),
  revoke: z.optional(z.union([z.literal(true), z.literal(false)], { error: 'must be true or false' })),
});

const UNKNOWN_KEY = 'No API key matches';

/**
 * `POST /api/v1/admin/api-keys/lookup` `{key, revoke?}`: the owner of a key given in plaintext (a
 * leaked key), by its SHA-256 (the hash guard, read strongly consistent: a key leaked a second after
 * its creation is found); with `revoke: true` it is revoked in the same call. A plaintext that is not
 * of the key's shape is 404 like an unknown key (it cannot be one). The plaintext is never logged nor
 * stored: the event names the key by id.
 */
export async function lookupKey(principal: Principal, body: z.output<typeof lookupSchema>): Promise<{ user_id: string; key: PublicKey }> {
  const plaintext = body.key.trim();
  if (!isWellFormedKey(plaintext)) throw new NotFoundError(UNKNOWN_KEY);
  let key = await findKeyRecordByHash(hashApiKey(plaintext));
  if (!key) throw new NotFoundError(UNKNOWN_KEY);
  const looked: AuditEvent = { action: 'admin.key_looked_up', actor: principal.user_id, subject: key.user_id, key_id: String(key.id), key_name: key.name, via: principal.auth_type };
  // With revoke, the look's event goes in the revoke's transaction: a failed revoke (503) stores no
  // event of a look nobody saw, and its retry stores one look and one revoke.
  if (body.revoke === true) key = await revokeStoredKey(key, adminActor(principal), [looked]);
  else await audit(looked);
  return { user_id: key.user_id, key: toPublicKey(key, clock.now()) };
}
