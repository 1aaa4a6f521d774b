import type * as z from '../../platform/zod.js';
import { config } from '../../platform/config.js';
import type { publicKeySchema } from './key-api.js';
import { KEY_PREFIX } from './key-material.js';

/** A key record as stored (docs/data-model.md, "The api_keys table"), key_hash included. */
export interface StoredKey {
  id: number;
  name: string;
  key_prefix: typeof KEY_PREFIX;
  user_id: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
  is_active: boolean;
  created_at: string;
  updated_at: string;
  key_hash: string;
  /** `ak_…` + the key's last 4 characters; absent on keys created before hints existed. */
  key_hint?: string;
  /** Absent on keys created before per-key limits existed: KEY_RATE_LIMIT_PER_MINUTE applies. */
  rate_limit_per_minute?: number;
}

export type KeyStatus = 'valid' | 'revoked' | 'expired';

/** A key record in answers (its schema, the OpenAPI document's: lib/features/keys/key-api.ts): never the hash. */
export type PublicKey = z.output<typeof publicKeySchema>;

/** What a list shows of a key created before hints existed: its prefix alone (the plaintext is gone). */
const HINTLESS = `${KEY_PREFIX}…`;

export function keyHint(apiKey: string): string {
  return `${KEY_PREFIX}…${apiKey.slice(-4)}`;
}

/** The key's own limit, or the configured default for keys created without one (or before limits). */
export function rateLimitOf(key: Pick<StoredKey, 'rate_limit_per_minute'>): number {
  return key.rate_limit_per_minute ?? config.KEY_RATE_LIMIT_PER_MINUTE;
}

export function keyStatus(key: Pick<StoredKey, 'is_active' | 'expires_at'>, nowMs: number): KeyStatus {
  if (!key.is_active) return 'revoked';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= nowMs) return 'expired';
  return 'valid';
}

/** The response shape: an explicit allow-list, so key_hash (or any storage attribute) can never leak. */
export function toPublicKey(key: StoredKey, nowMs: number): PublicKey {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.key_prefix,
    key_hint: key.key_hint ?? HINTLESS,
    user_id: key.user_id,
    scopes: key.scopes,
    expires_at: key.expires_at,
    last_used_at: key.last_used_at,
    is_active: key.is_active,
    created_at: key.created_at,
    updated_at: key.updated_at,
    rate_limit_per_minute: rateLimitOf(key),
    status: keyStatus(key, nowMs),
  };
}
