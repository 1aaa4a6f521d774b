import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KEY_ALPHABET, generateApiKey, hashApiKey, isWellFormedKey } from '../../lib/features/keys/key-material.js';
import { keyStatus, toPublicKey, type StoredKey } from '../../lib/features/keys/key-record.js';

describe('generateApiKey', () => {
  it('is ak_ followed by 32 characters of [A-Za-z0-9]', () => {
    for (let i = 0; i < 500; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^ak_[A-Za-z0-9]{32}$/);
      expect(isWellFormedKey(key)).toBe(true);
    }
  });

  it('uses the 62-character alphabet', () => {
    expect(new Set(KEY_ALPHABET).size).toBe(62);
    expect(KEY_ALPHABET).toMatch(/^[A-Za-z0-9]{62}$/);
  });

  it('draws characters uniformly (chi-squared over 200k characters)', () => {
    const counts = new Map<string, number>([...KEY_ALPHABET].map((c) => [c, 0]));
    const keys = 6250; // 200,000 characters
    for (let i = 0; i < keys; i++) for (const c of generateApiKey().slice(3)) counts.set(c, counts.get(c)! + 1);
    const expected = (keys * 32) / 62;
    const chiSquared = [...counts.values()].reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: the 99.99th percentile is about 115. A modulo-biased generator
    // (byte % 62 over all 256 byte values) draws the first 8 characters 5/4 as often as the rest
    // and scores above 1,000 at this sample size.
    expect(chiSquared).toBeLessThan(115);
    // every character position is also uniform-ish: the first character alone takes all 62 values
    const firsts = new Set(Array.from({ length: 3000 }, () => generateApiKey()[3]));
    expect(firsts.size).toBe(62);
  });

  it('does not repeat', () => {
    const keys = new Set(Array.from({ length: 10_000 }, generateApiKey));
    expect(keys.size).toBe(10_000);
  });
});

describe('hashApiKey', () => {
  it('is the standard SHA-256 hex of the full key', () => {
    expect(hashApiKey('ak_abc')).toBe(createHash('sha256').update('ak_abc').digest('hex'));
    expect(hashApiKey('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hashApiKey('ak_x')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('isWellFormedKey', () => {
  it.each(['', 'ak_', `ak_${'a'.repeat(31)}`, `ak_${'a'.repeat(33)}`, `sk_${'a'.repeat(32)}`, `ak_${'a'.repeat(31)}-`, ` ak_${'a'.repeat(32)}`])(
    'rejects %j',
    (key) => expect(isWellFormedKey(key)).toBe(false),
  );
});

describe('key status', () => {
  const now = Date.parse('2026-06-01T00:00:00.000Z');
  it.each([
    [{ is_active: true, expires_at: null }, 'valid'],
    [{ is_active: true, expires_at: '2026-06-01T00:00:01.000Z' }, 'valid'],
    [{ is_active: true, expires_at: '2026-06-01T00:00:00.000Z' }, 'expired'],
    [{ is_active: true, expires_at: '2025-01-01T00:00:00.000Z' }, 'expired'],
    [{ is_active: false, expires_at: null }, 'revoked'],
    [{ is_active: false, expires_at: '2025-01-01T00:00:00.000Z' }, 'revoked'],
  ] as const)('%j is %s', (key, status) => expect(keyStatus(key, now)).toBe(status));

  it('public records never carry key_hash', () => {
    const stored: StoredKey = {
      id: 1,
      name: 'n',
      key_prefix: 'ak_',
      user_id: 'u',
      scopes: [],
      expires_at: null,
      last_used_at: null,
      is_active: true,
      created_at: 'c',
      updated_at: 'u',
      key_hash: 'secret-hash',
    };
    const view = toPublicKey({ ...stored, ...({ pk: 'USER#u' } as object) } as StoredKey, now);
    expect(view).not.toHaveProperty('key_hash');
    expect(view).not.toHaveProperty('pk');
    expect(view.status).toBe('valid');
  });
});
