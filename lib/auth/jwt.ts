import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { clock } from '../clock.js';
import { config } from '../config.js';
import { AuthError } from '../errors.js';
import { getJwtSecret } from './jwt-secret.js';
import { isSessionEnded } from './sessions.js';

const ALG = 'HS256';

let signingKey: Promise<Uint8Array> | undefined;
function getSigningKey(): Promise<Uint8Array> {
  signingKey ??= getJwtSecret().then((secret) => new TextEncoder().encode(secret));
  signingKey.catch(() => (signingKey = undefined));
  return signingKey;
}

export interface IssuedToken {
  token: string;
  jti: string;
  expires_at: string;
}

export interface TokenClaims {
  sub: string;
  roles: string[];
  jti: string;
  exp: number;
}

export async function issueToken(subject: string, roles: readonly string[], ttlSeconds = config.JWT_TTL_SECONDS): Promise<IssuedToken> {
  const iat = Math.floor(clock.now() / 1000);
  const exp = iat + ttlSeconds;
  const jti = randomUUID();
  const token = await new SignJWT({ roles: [...roles] })
    .setProtectedHeader({ alg: ALG, typ: 'JWT' })
    .setIssuer(config.JWT_ISSUER)
    .setSubject(subject)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(await getSigningKey());
  return { token, jti, expires_at: new Date(exp * 1000).toISOString() };
}

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** Signature, issuer, algorithm and lifetime only: no database read. */
export async function decodeVerifiedToken(token: string): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, await getSigningKey(), {
      algorithms: [ALG],
      issuer: config.JWT_ISSUER,
      currentDate: new Date(clock.now()),
    });
    // An empty sub would authenticate as no one in particular, an empty jti could not be ended alone.
    if (!isNonEmptyString(payload.sub) || !isNonEmptyString(payload.jti) || typeof payload.exp !== 'number') {
      throw new AuthError('Invalid token', 'invalid_token');
    }
    const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
    return { sub: payload.sub, roles, jti: payload.jti, exp: payload.exp };
  } catch (error) {
    if (error instanceof AuthError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new AuthError('Token expired; please sign in again', 'expired_token');
    if (error instanceof joseErrors.JOSEError) throw new AuthError('Invalid token', 'invalid_token');
    throw error;
  }
}

/** A token is valid when it verifies and its session has not been ended (one consistent read). */
export async function verifyToken(token: string): Promise<TokenClaims> {
  const claims = await decodeVerifiedToken(token);
  if (await isSessionEnded(claims.jti)) throw new AuthError('This session has ended; please sign in again', 'session_ended');
  return claims;
}
