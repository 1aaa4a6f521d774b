import { KEY_PREFIX } from './key-material.js';

/** A key record as stored (seed 001 §2), key_hash included. */
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
}

export type KeyStatus = 'valid' | 'revoked' | 'expired';

export type PublicKey = Omit<StoredKey, 'key_hash'> & { status: KeyStatus };

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
    user_id: key.user_id,
    scopes: key.scopes,
    expires_at: key.expires_at,
    last_used_at: key.last_used_at,
    is_active: key.is_active,
    created_at: key.created_at,
    updated_at: key.updated_at,
    status: keyStatus(key, nowMs),
  };
}
