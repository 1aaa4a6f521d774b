import { describe, expect, it } from 'vitest';
import type { Principal } from '../../lib/features/auth/principal.js';
import { decodeVerdict, encodeVerdict, type Verdict } from '../../lib/features/auth/verdict.js';
import { AuthorizerUnavailable, principalFor } from '../../lib/transport/http/route-access.js';

const jwt: Principal = { user_id: 'u_1', auth_type: 'jwt', scopes: [], roles: [] };
const admin: Principal = { ...jwt, roles: ['admin'] };
const key: Principal = { user_id: 'u_1', auth_type: 'api_key', scopes: ['export:read'], roles: [], key_id: 42 };
const status = (fn: () => unknown) => {
  try {
    fn();
    return 'admitted';
  } catch (error) {
    return (error as { status?: number }).status;
  }
};

describe('the authorizer verdict codec (lib/features/auth/verdict.ts)', () => {
  it.each<Verdict>([
    { kind: 'authenticated', principal: key },
    { kind: 'authenticated', principal: admin },
    { kind: 'refused', message: 'Invalid token' },
    { kind: 'rate_limited', message: 'past its limit', retryAfter: 17 },
    { kind: 'unavailable', message: 'try again', retryAfter: 2 },
  ])('decodes what it encodes: $kind', (verdict) => {
    expect(decodeVerdict(encodeVerdict(verdict))).toEqual(verdict);
  });

  it('reads arrays (and a key id) API Gateway handed on as JSON text', () => {
    expect(decodeVerdict({ verdict: 'authenticated', user_id: 'u_1', auth_type: 'api_key', scopes: '["a","b"]', roles: '[]', key_id: '7' })).toEqual({
      kind: 'authenticated',
      principal: { user_id: 'u_1', auth_type: 'api_key', scopes: ['a', 'b'], roles: [], key_id: 7 },
    });
    // A login token names no key, whatever its context says.
    expect(decodeVerdict({ verdict: 'authenticated', user_id: 'u_1', auth_type: 'jwt', scopes: [], roles: [], key_id: 7 })).toEqual({
      kind: 'authenticated',
      principal: { user_id: 'u_1', auth_type: 'jwt', scopes: [], roles: [] },
    });
  });

  it('has no verdict without an authorizer, and refuses a context it did not write', () => {
    expect(decodeVerdict(undefined)).toBeUndefined();
    expect(decodeVerdict({})).toBeUndefined();
    expect(decodeVerdict({ verdict: 'authenticated', user_id: 'u_1', auth_type: 'root' })).toMatchObject({ kind: 'refused' });
    expect(decodeVerdict({ verdict: 'something' })).toMatchObject({ kind: 'refused' });
  });
});

describe('what a route declaration admits (lib/transport/http/route-access.ts)', () => {
  const ok = (principal: Principal): Verdict => ({ kind: 'authenticated', principal });
  it.each([
    ['none', undefined, 'admitted'],
    ['none', ok(key), 'admitted'],
    ['jwt', undefined, 401],
    ['jwt', ok(jwt), 'admitted'],
    ['jwt', ok(key), 401],
    ['key', ok(key), 'admitted'],
    ['key', ok(jwt), 401],
    ['either', ok(jwt), 'admitted'],
    ['either', ok(key), 'admitted'],
    ['admin', ok(jwt), 403],
    ['admin', ok(key), 403],
    ['admin', ok(admin), 'admitted'],
    ['either', { kind: 'refused', message: 'no' }, 401],
    ['either', { kind: 'rate_limited', message: 'later', retryAfter: 5 }, 429],
    ['either', { kind: 'unavailable', message: 'later', retryAfter: 2 }, 503],
  ] as const)('%s with %j: %s', (auth, verdict, expected) => {
    expect(status(() => principalFor(verdict as Verdict | undefined, auth))).toBe(expected);
  });

  it("answers the authorizer's 503 as its own kind (counted there, not again) with its Retry-After", () => {
    const error = (() => {
      try {
        principalFor({ kind: 'unavailable', message: 'later', retryAfter: 7 }, 'jwt');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AuthorizerUnavailable);
    expect((error as AuthorizerUnavailable).headers['retry-after']).toBe('7');
  });
});
