import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { clock } from '../../lib/platform/clock.js';
import { issueToken } from '../../lib/features/auth/jwt.js';

/** A login JWT for a user id, signed with this test file's secret (as create_phone_account would). */
export async function tokenFor(userId: string, roles: string[] = []): Promise<string> {
  return (await issueToken(userId, roles)).token;
}

/**
 * A token as the functions issue them (issuer, one hour, a fresh jti), but signed with `secret`
 * and carrying header `kid` (none: a token from before kids): for rotation tests.
 */
export function tokenSignedWith(secret: string, sub: string, kid?: string): Promise<string> {
  const now = Math.floor(clock.now() / 1000);
  return new SignJWT({ roles: [] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...(kid ? { kid } : {}) })
    .setIssuer('expohub')
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(secret));
}
