import { config } from '../../platform/config.js';
import { ForbiddenError } from '../../platform/errors.js';
import type { Principal } from './principal.js';

/** Scope names (docs/protected-api.md, "The scope gate"). */
export const SCOPES = ['videos:write', 'export:read', 'hub:read', 'hub:write'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * The scope gate: off unless ENFORCE_KEY_SCOPES=true. A JWT is never scope-limited; a key with an
 * empty scope list may do everything; otherwise the key must hold the endpoint's scope.
 */
export function enforceScope(principal: Principal, scope: string, enabled = config.ENFORCE_KEY_SCOPES): void {
  if (!enabled || principal.auth_type !== 'api_key' || principal.scopes.length === 0) return;
  if (!principal.scopes.includes(scope)) {
    throw new ForbiddenError(`This access key lacks the scope "${scope}" needed here`);
  }
}
