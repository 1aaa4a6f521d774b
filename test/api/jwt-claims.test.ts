import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeVerifiedToken } from '../../lib/features/auth/jwt.js';
import { config } from '../../lib/platform/config.js';
import { AuthError } from '../../lib/platform/errors.js';
import { hub, putTestAccounts, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack, type ApiResponse } from '../support/stack.js';

/**
 * Tokens signed with this file's real secret (setup-env.ts) but wrong in one claim or in the
 * algorithm: each must be 401 wherever a JWT is accepted, like a token with a bad signature.
 */
const api = useTestStack({ http: false });
let user: TestAccount;

beforeAll(async () => {
  // An admin: the crafted tokens claim admin, and the roles route also checks the stored roles.
  [user] = (await putTestAccounts(1, ['admin'])) as [typeof user];
});

interface Claims {
  alg: 'HS256' | 'HS384' | 'HS512' | 'none';
  iss?: string;
  sub?: string;
  jti?: string;
  /** Seconds from now; undefined = no exp claim. */
  expIn?: number;
  nbfIn?: number;
}

/** A JWT as issueToken makes it (roles claim admin, so a forgery would gain the most), changed as `claims` say. */
async function craft(changes: Partial<Claims>): Promise<string> {
  const claims: Claims = { alg: 'HS256', iss: config.JWT_ISSUER, sub: user.openid, jti: randomUUID(), expIn: 3600, ...changes };
  const now = Math.floor(Date.now() / 1000);
  const payload = { roles: ['admin'], iat: now, ...(claims.iss === undefined ? {} : { iss: claims.iss }), ...(claims.sub === undefined ? {} : { sub: claims.sub }), ...(claims.jti === undefined ? {} : { jti: claims.jti }), ...(claims.expIn === undefined ? {} : { exp: now + claims.expIn }), ...(claims.nbfIn === undefined ? {} : { nbf: now + claims.nbfIn }) };
  if (claims.alg === 'none') return new UnsecuredJWT(payload).encode();
  return new SignJWT(payload).setProtectedHeader({ alg: claims.alg, typ: 'JWT' }).sign(new TextEncoder().encode(process.env.JWT_SECRET));
}

/** Every place a JWT is accepted, each returning its answer. */
const surfaces: [string, (token: string) => Promise<ApiResponse>][] = [
  ['hub token parameter', (token) => hub(api, 'get_fav', { openid: user.openid, token, next_id: 0, fav_index: 0, watch_list: '', view: '', q: '' })],
  ['hub Authorization header', (token) => hub(api, 'get_follow', { openid: user.openid, watch_list: '', offset: 0 }, { authorization: `Bearer ${token}` })],
  ['GET /api/v1/me', (token) => api.get('/api/v1/me', { token })],
  ['GET /api/v1/api-keys', (token) => api.get('/api/v1/api-keys', { token })],
  ['POST /api/v1/api-keys', (token) => api.post('/api/v1/api-keys', { token, body: { name: 'crafted' } })],
  ['POST /api/v1/admin/users/{openid}/roles', (token) => api.post(`/api/v1/admin/users/${user.openid}/roles`, { token, body: { roles: [] } })],
];

describe('a JWT signed with the right secret', () => {
  it('is accepted everywhere when its claims are right (the crafting itself is sound)', async () => {
    const token = await craft({});
    for (const [surface, call] of surfaces) {
      const res = await call(token);
      expect(res.status, surface).toBeLessThan(300);
    }
  });

  it.each<[string, Partial<Claims>]>([
    ['a wrong issuer', { iss: 'someone-else' }],
    ['no issuer', { iss: undefined }],
    ['the algorithm HS512', { alg: 'HS512' }],
    ['the algorithm HS384', { alg: 'HS384' }],
    ['the algorithm none (unsigned)', { alg: 'none' }],
    ['no sub', { sub: undefined }],
    ['an empty sub', { sub: '' }],
    ['an empty jti', { jti: '' }],
    ['no jti', { jti: undefined }],
    ['no exp', { expIn: undefined }],
    ['an exp in the past', { expIn: -60 }],
    ['an nbf in the future', { nbfIn: 3600 }],
  ])('but %s is 401 AUTH_ERROR everywhere', async (_label, changes) => {
    const token = await craft(changes);
    // Refused by the token check itself, not only by a later layer (an empty user id fails elsewhere too).
    await expect(decodeVerifiedToken(token)).rejects.toBeInstanceOf(AuthError);
    for (const [surface, call] of surfaces) {
      const res = await call(token);
      expect(res.status, surface).toBe(401);
      expect(res.body, surface).toMatchObject({ code: 'AUTH_ERROR' });
    }
  });
});
