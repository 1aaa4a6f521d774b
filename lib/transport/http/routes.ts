import type { Scope } from '../../features/auth/scope-gate.js';

/**
 * Who may call a route, declared once in its route module (lib/transport/routes/) and enforced by
 * the shared chain (lib/transport/http/handler.ts) before the handler runs; the CDK stack and the
 * local server put the Lambda authorizer in front of every route that is not `none`, and the OpenAPI
 * document's `security` follows it (docs/protected-api.md, "Who may do what"):
 * - `none`: no credential (health, verification, the hub, which authenticates each operation itself,
 *   the share pages and the documents);
 * - `jwt`: a login token only (key management, the audit trail, sign-out, the account's data export):
 *   an access key is 401;
 * - `key`: an access key only (none yet);
 * - `either`: a login token or an access key;
 * - `admin`: a login token whose request-context roles hold `admin`; an access key is 403 (keys carry
 *   no roles), and so is a token without the role;
 * - `moderator`: a login token whose request-context roles hold `moderator` or `admin`; an access key
 *   is 403, as on `admin` routes (docs/moderation.md, "Moderation").
 */
export type RouteAuth = 'none' | 'jwt' | 'key' | 'either' | 'admin' | 'moderator';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** One row of the route table (ROUTES, derived from lib/transport/routes/index.ts). */
export interface RouteSpec<F extends string = string> {
  method: HttpMethod;
  /** API Gateway path syntax: `{name}` is a path parameter. */
  path: string;
  /** The deployed function that serves it (its route module's `name`). */
  function: F;
  auth: RouteAuth;
  /** The scope an access key needs when ENFORCE_KEY_SCOPES is on (docs/protected-api.md, "The scope gate"). */
  scope?: Scope;
  /** The function reads a JSON body. */
  body?: 'json';
}

/** Whether API Gateway runs the Lambda authorizer before the route's function. */
export const usesAuthorizer = (route: Pick<RouteSpec, 'auth'>) => route.auth !== 'none';
