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

/** A request example of the OpenAPI document, validated against the query and data schemas (test/unit/openapi.test.ts). */
export interface HubExample<D> {
  summary: string;
  query: Record<string, string>;
  /** The answer's `data`. */
  data?: D;
}

/**
 * One `do` operation, declared once in its module under lib/transport/hub/: its name, its query
 * schema, who may call it, what the OpenAPI document says of it (summary, the answer's `data`
 * schema, examples) and a use case taking plain input, whose answer tsc checks against `data`.
 * - auth 'required': token (query) or Authorization Bearer (JWT or access key); the user must equal `openid`.
 * - auth 'optional': the same when a credential is present (an invalid one is still 401).
 * - auth 'none': the sign-up steps.
 */
export type HubOperation<S extends z.ZodMiniType = z.ZodMiniType, D extends z.ZodMiniType = z.ZodMiniType> = {
  /** The `do` value. */
  name: string;
  summary: string;
  query: S;
  /** The answer's `data`. */
  data: D;
  examples: HubExample<NoInfer<z.output<D>>>[];
  run(input: z.output<S>, ctx: HubContext): Promise<NoInfer<z.output<D>>>;
} & (
  | { auth: 'none' }
  /**
   * An operation that accepts a credential must name the scope a key needs when ENFORCE_KEY_SCOPES
   * is on; `loginTokenOnly` refuses access keys whatever their scopes (403).
   */
  | { auth: 'required' | 'optional'; scope: Scope; loginTokenOnly?: true }
);

/** Keeps each operation's input type tied to its query schema and its answer to its data schema. */
export function defineOperation<S extends z.ZodMiniType, D extends z.ZodMiniType>(operation: HubOperation<S, D>): HubOperation<S, D> {
  return operation;
}
