import { toAppError } from '../../platform/error-mapper.js';
import { AuthError } from '../../platform/errors.js';
import { verifyAccessKey } from '../keys/key-service.js';
import { looksLikeAccessKey } from '../keys/key-material.js';
import { countMetric } from '../../platform/observability/metrics.js';
import { verifyToken } from './jwt.js';
import type { Principal } from './principal.js';

/** The credential of an `Authorization: Bearer <credential>` header, if there is one. */
export function bearerCredential(headers: Record<string, string | undefined>): string | undefined {
  const value = headers.authorization ?? headers.Authorization;
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}

/**
 * A principal with, for a login token, the account's person id (lib/entities/accounts/accounts.ts
 * personIdOf), read by the token's check at no extra request: the hub's per-person limits use it.
 * It stays in the function (the authorizer's verdict leaves it out).
 */
export type Authenticated = Principal & { person?: string };

/**
 * Counts one credential check (Authentications) by its outcome: ok, the cause of a 401,
 * `rate_limited` for a key past its limit (429), or `unavailable` when a dependency failed. A bug (any other error) is not an outcome: not counted.
 */
async function counted(check: () => Promise<Authenticated>): Promise<Authenticated> {
  try {
    const principal = await check();
    countMetric('Authentications', 'ok');
    return principal;
  } catch (error) {
    if (error instanceof AuthError) countMetric('Authentications', error.reason === 'malformed_key' ? 'unknown_key' : (error.reason ?? 'invalid_token'));
    else if (toAppError(error)?.status === 503) countMetric('Authentications', 'unavailable');
    else if (toAppError(error)?.status === 429) countMetric('Authentications', 'rate_limited');
    throw error;
  }
}

/**
 * A credential with the key prefix is an access key (roles are empty for keys); any other credential
 * is a JWT, whose roles are those of its claim the account still holds (verifyToken). Used by the
 * authorizer and by the hub's in-function authentication alike; each call is one check
 * (Authentications).
 */
export function authenticateCredential(credential: string | undefined): Promise<Authenticated> {
  return counted(() => checkCredential(credential));
}

async function checkCredential(credential: string | undefined): Promise<Authenticated> {
  if (!credential) throw new AuthError('Missing credentials: send Authorization: Bearer <token or access key>', 'missing');
  if (looksLikeAccessKey(credential)) {
    const { user_id, scopes, key_id } = await verifyAccessKey(credential);
    return { user_id, auth_type: 'api_key', scopes, roles: [], key_id };
  }
  const claims = await verifyToken(credential);
  return { user_id: claims.sub, auth_type: 'jwt', scopes: [], roles: claims.roles, ...(claims.person ? { person: claims.person } : {}) };
}

/**
 * The hub's `token` query parameter: a login JWT only (docs/hub-api.md, "Rules shared by every
 * operation"). A long-lived access key there would end up in URLs, browser histories and access
 * logs, so it is refused (401) before any lookup.
 */
export function authenticateUrlToken(token: string): Promise<Authenticated> {
  return counted(async () => {
    if (looksLikeAccessKey(token)) {
      throw new AuthError('Access keys are accepted in the Authorization header only, never in the URL: send Authorization: Bearer <key>', 'invalid_token');
    }
    return checkCredential(token);
  });
}
