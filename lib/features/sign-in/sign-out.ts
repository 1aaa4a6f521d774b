import type { Principal } from '../auth/principal.js';
import { bearerCredential } from '../auth/authenticate.js';
import { decodeVerifiedToken } from '../auth/jwt.js';
import { endSessionItem } from '../../entities/accounts/sessions.js';
import { liveAccountCheck, NOT_DELETED } from '../../entities/accounts/accounts.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { cancellationCode, transactWrite } from '../../platform/db/transact.js';
import { AuthError } from '../../platform/errors.js';

/**
 * `POST /api/v1/logout`: ends the session of the login token that calls it, as signing in again
 * with it as `token0` would (docs/api-keys.md, "Credentials": an ended token gets 401 everywhere),
 * so that signing out of the page or the CLI leaves no valid token behind. The authorizer has
 * checked the token (its session is not ended); its `jti` and `exp` are read here from the same
 * token (signature only, no read). The ended marker and the `session.ended` event are one
 * transaction; the marker's condition makes two parallel sign-outs of one token store one event.
 */
export async function signOut(principal: Principal, headers: Record<string, string | undefined>): Promise<{ ended: true }> {
  const token = bearerCredential(headers);
  if (!token) throw new AuthError('Missing credentials: send Authorization: Bearer <token>', 'missing');
  const claims = await decodeVerifiedToken(token);
  if (claims.sub !== principal.user_id) throw new AuthError('Invalid token', 'invalid_token');
  const event: AuditEvent = { action: 'session.ended', actor: claims.sub, subject: claims.sub, session_id: claims.jti, via: 'jwt' };
  const end = endSessionItem(claims.jti, claims.exp);
  try {
    // The account check keeps the event out of a deleted account's erased partition (docs/accounts.md, "Erasure").
    await transactWrite([{ Put: { ...end.Put!, ConditionExpression: 'attribute_not_exists(pk)' } }, auditItem(event), liveAccountCheck(claims.sub, NOT_DELETED)]);
    writeAuditLine(event);
  } catch (error) {
    // Ended by a parallel sign-out of the same token in the meantime, or the account deleted (every
    // token of it refused): what was asked is done.
    if (cancellationCode(error, 0) !== 'ConditionalCheckFailed' && cancellationCode(error, 2) !== 'ConditionalCheckFailed') throw error;
  }
  return { ended: true };
}
