import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { KEY_PREFIX, hashApiKey, isWellFormedKey } from '../keys/key-material.js';
import { keyHint, type StoredKey } from '../keys/key-record.js';
import { findKeyByHash, insertKey, nextKeyId } from '../keys/key-records.js';

/**
 * The synthetic check's canary access key (docs/deploy.md, "The synthetic check"). The stack holds
 * its secret part in a generated Secrets Manager secret; the key is `ak_` + that value, and the check
 * makes sure, every run, that its hash guard and record exist, written by the same store code as
 * any key (lib/features/keys/key-records.ts).
 *
 * Its owner is CANARY_OWNER, an id sign-up never produces (accounts are `u_` + 20 characters) and that
 * has no account item: the canary is no person, so it is in no account export and is no feed or
 * comment author, and it cannot publish (no stored role). Its one scope, `hub:read`, keeps it off the
 * scoped routes when the scope gate is on.
 */
export const CANARY_OWNER = 'synthetic-check';
export const CANARY_KEY_NAME = 'synthetic check (managed by the stack)';
const CANARY_SCOPES = ['hub:read'];

/** The key of the secret's value; throws (without the value) when the value is not 32 letters and digits. */
export function canaryKeyOf(secretValue: string): string {
  const key = KEY_PREFIX + secretValue.trim();
  if (!isWellFormedKey(key)) throw new Error('The canary key secret must be 32 letters and digits (docs/deploy.md, "The synthetic check")');
  return key;
}

/**
 * Makes sure the key exists: one consistent read of its hash guard and, only when it is missing
 * (the first run, a new secret value), the create transaction of any key. Idempotent: two runs at
 * once create it once (the guard's condition refuses the second, which then finds it). A revoked
 * canary stays revoked: the check then fails and alarms, as it should.
 */
export async function ensureCanaryKey(key: string): Promise<'exists' | 'created'> {
  const hash = hashApiKey(key);
  if (await findKeyByHash(hash)) return 'exists';
  const nowIso = clock.nowIso();
  const record: StoredKey = {
    id: await nextKeyId(),
    name: CANARY_KEY_NAME,
    key_prefix: KEY_PREFIX,
    user_id: CANARY_OWNER,
    scopes: CANARY_SCOPES,
    expires_at: null,
    last_used_at: null,
    is_active: true,
    created_at: nowIso,
    updated_at: nowIso,
    key_hash: hash,
    key_hint: keyHint(key),
    rate_limit_per_minute: config.KEY_RATE_LIMIT_PER_MINUTE,
  };
  try {
    await insertKey(record, config.MAX_KEYS_PER_USER);
    return 'created';
  } catch (error) {
    if (await findKeyByHash(hash)) return 'exists';
    throw error;
  }
}
