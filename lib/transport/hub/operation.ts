import type * as z from '../../platform/zod.js';
import type { Principal } from '../../features/auth/principal.js';
import type { Scope } from '../../features/auth/scope-gate.js';

export interface HubContext {
  /** Set when the operation's auth is 'required', or 'optional' and a credential was sent. */
  principal: Principal | undefined;
  /**
   * The caller's person id when a login token authenticated it (read with the token's check); for
   * an access key, undefined: the use case reads the account when it needs it.
   */
  person?: string;
  requestId: string;
  sourceIp: string;
}

/**
 * One `do` operation: its query schema, who may call it, and a use case taking plain input.
 * - auth 'required': token (query) or Authorization Bearer (JWT or access key); the user must equal `openid`.
 * - auth 'optional': the same when a credential is present (an invalid one is still 401).
 * - auth 'none': the sign-up steps.
 */
export type HubOperation<S extends z.ZodMiniType = z.ZodMiniType> = {
  query: S;
  run(input: z.output<S>, ctx: HubContext): Promise<unknown>;
} & (
  | { auth: 'none' }
  /**
   * An operation that accepts a credential must name the scope a key needs when ENFORCE_KEY_SCOPES
   * is on; `loginTokenOnly` refuses access keys whatever their scopes (403).
   */
  | { auth: 'required' | 'optional'; scope: Scope; loginTokenOnly?: true }
);

/** Keeps each operation's input type tied to its schema. */
export function defineOperation<S extends z.ZodMiniType>(operation: HubOperation<S>): HubOperation<S> {
  return operation;
}
