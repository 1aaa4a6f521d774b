import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors, type JWTVerifyResult } from 'jose';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { AuthError } from '../../platform/errors.js';
import { getSigningSecrets, verificationSecrets, type SigningSecret } from '../../platform/secrets/signing-secrets.js';
import { effectiveRoles, sessionStatus } from '../../entities/accounts/sessions.js';

const ALG = 'HS256';

const keyOf = (secret: SigningSecret) => new TextEncoder().encode(secret.secret);

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
  /** Issued at (epoch seconds). */
  iat: number;
}

export async function issueToken(subject: string, roles: readonly string[], ttlSeconds = config.JWT_TTL_SECONDS): Promise<IssuedToken> {
  const iat = Math.floor(clock.now() / 1000);
  const exp = iat + ttlSeconds;
  const jti = randomUUID();
  const { current } = await getSigningSecrets();
  const token = await new SignJWT({ roles: [...roles] })
    .setProtectedHeader({ alg: ALG, typ: 'JWT', kid: current.kid })
    .setIssuer(config.JWT_ISSUER)
    .setSubject(subject)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(keyOf(current));
  return { token, jti, expires_at: new Date(exp * 1000).toISOString() };
}

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * The secret a token names by its `kid` (current or previous), or for a token without a kid
 * (issued before kids existed) the current then the previous secret. A kid that names neither fails.
 */
async function verifyWithKnownSecrets(token: string): Promise<JWTVerifyResult> {
  let kid: unknown;
  try {
    ({ kid } = decodeProtectedHeader(token));
  } catch {
    // Not a JWT at all (decodeProtectedHeader throws a plain TypeError for it).
    throw new AuthError('Invalid token');
  }
  const candidates = await verificationSecrets(typeof kid === 'string' ? kid : undefined);
  let failure: unknown = new joseErrors.JWSSignatureVerificationFailed();
  for (const secret of candidates) {
    try {
      return await jwtVerify(token, keyOf(secret), { algorithms: [ALG], issuer: config.JWT_ISSUER, currentDate: new Date(clock.now()) });
    } catch (error) {
      if (!(error instanceof joseErrors.JWSSignatureVerificationFailed)) throw error;
      failure = error;
    }
  }
  throw failure;
}

/** Signature, issuer, algorithm and lifetime only: no database read. */
export async function decodeVerifiedToken(token: string): Promise<TokenClaims> {
  try {
    const { payload } = await verifyWithKnownSecrets(token);
    // An empty sub would authenticate as no one in particular, an empty jti could not be ended alone.
    if (!isNonEmptyString(payload.sub) || !isNonEmptyString(payload.jti) || typeof payload.exp !== 'number' || typeof payload.iat !== 'number') {
      throw new AuthError('Invalid token', 'invalid_token');
    }
    const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
    return { sub: payload.sub, roles, jti: payload.jti, exp: payload.exp, iat: payload.iat };
  } catch (error) {
    if (error instanceof AuthError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new AuthError('Token expired; please sign in again', 'expired_token');
    if (error instanceof joseErrors.JOSEError) throw new AuthError('Invalid token', 'invalid_token');
    throw error;
  }
}

/**
 * A token is valid when it verifies, its session has not been ended and its account is neither
 * deleted nor suspended (one consistent BatchGetItem of both, lib/entities/accounts/sessions.ts). Its `roles` are the ones
 * the request may use: the token's, less those the account no longer holds or lost after the token
 * was issued (`effectiveRoles`). `person`: the account's person id, read by the same request.
 */
export async function verifyToken(token: string): Promise<TokenClaims & { person?: string }> {
  const claims = await decodeVerifiedToken(token);
  const status = await sessionStatus(claims.jti, claims.sub);
  if (status.ended) throw new AuthError('This session has ended; please sign in again', 'session_ended');
  if (status.deleted) throw new AuthError('This account has been deleted', 'account_deleted');
  if (status.suspended) throw new AuthError('This account is suspended; contact an administrator', 'account_suspended');
  return { ...claims, roles: effectiveRoles(claims.roles, claims.iat, status), ...(status.person ? { person: status.person } : {}) };
}
