import { AuthError, ForbiddenError, RateLimitedError, UnavailableError } from '../../platform/errors.js';
import type { Principal } from '../../features/auth/principal.js';
import type { Verdict } from '../../features/auth/verdict.js';
import type { RouteAuth } from './routes.js';
import { MODERATING_ROLES } from '../../entities/accounts/roles.js';

/** A 503 the authorizer already counted, with its cause (lib/transport/http/handler.ts does not count it again). */
export class AuthorizerUnavailable extends UnavailableError {}

/**
 * The principal a route declared `auth` may act for, or the error its verdict means: 401 without a
 * valid credential (and for an access key where only a login token is accepted), 403 for an access
 * key or a token without the admin role on an `admin` route (without `moderator` or `admin` on a
 * `moderator` route), 429 and 503 as the authorizer found.
 * Undefined for a route that takes no credential.
 */
export function principalFor(verdict: Verdict | undefined, auth: RouteAuth): Principal | undefined {
  if (auth === 'none') return undefined;
  if (!verdict) throw new AuthError('Missing credentials: send Authorization: Bearer <token or access key>', 'missing');
  if (verdict.kind === 'unavailable') throw new AuthorizerUnavailable(verdict.message, verdict.retryAfter);
  if (verdict.kind === 'rate_limited') throw new RateLimitedError(verdict.message, verdict.retryAfter);
  if (verdict.kind === 'refused') throw new AuthError(verdict.message);
  const { principal } = verdict;
  if (auth === 'jwt' && principal.auth_type !== 'jwt') throw new AuthError('This endpoint needs a login token (JWT); access keys are not accepted here');
  if (auth === 'key' && principal.auth_type !== 'api_key') throw new AuthError('This endpoint needs an access key');
  if (auth === 'admin') {
    if (principal.auth_type !== 'jwt') throw new ForbiddenError('Administration needs an admin login token (JWT); access keys carry no roles and are refused here');
    if (!principal.roles.includes('admin')) throw new ForbiddenError('Administration needs the admin role');
  }
  if (auth === 'moderator') {
    if (principal.auth_type !== 'jwt') throw new ForbiddenError('Moderation needs a login token (JWT) of a moderator; access keys carry no roles and are refused here');
    if (!principal.roles.some((role) => (MODERATING_ROLES as readonly string[]).includes(role))) throw new ForbiddenError('Moderation needs the moderator or admin role');
  }
  return principal;
}
