import { describe, expect, it } from 'vitest';
import { expiryToIso, localDateTimeValue, parseScopes, randomNonce } from '../../web/src/form-values.js';
import { maskPhone } from '../../web/src/session.js';

describe('the page\'s create-form values (docs/web.md, "Create")', () => {
  it.each([
    ['a, b，c, ,', ['a', 'b', 'c']],
    ['', []],
    ['  ,，, ', []],
    ['export:read', ['export:read']],
    [' hub:read ，export:read,videos:write ', ['hub:read', 'export:read', 'videos:write']],
    ['a;b', ['a;b']],
  ])('splits %j on ASCII and full-width commas', (input, expected) => {
    expect(parseScopes(input)).toEqual(expected);
  });

  it('sends an empty expiry as null and a wall-clock time as ISO 8601', () => {
    expect(expiryToIso('')).toBeNull();
    expect(expiryToIso('   ')).toBeNull();
    expect(expiryToIso('not a date')).toBeUndefined();
    const iso = expiryToIso('2031-05-06T07:08');
    expect(iso).toBe(new Date(2031, 4, 6, 7, 8).toISOString());
    expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
  });

  it('formats the datetime-local minimum in local time', () => {
    expect(localDateTimeValue(new Date(2030, 0, 2, 3, 4, 59))).toBe('2030-01-02T03:04');
  });

  it('makes gen_code nonces of 8-64 characters of [A-Za-z0-9_-], different every time', () => {
    const nonces = Array.from({ length: 50 }, randomNonce);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(new Set(nonces).size).toBe(50);
  });

  it('masks the phone it greets the person with', () => {
    expect(maskPhone('+8613912345678')).toBe('+86139****5678');
    expect(maskPhone('139 1234 5678')).toBe('139****5678');
    expect(maskPhone('123')).toBe('****');
  });
});
