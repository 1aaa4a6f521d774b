import type { Scope } from '../../features/auth/scope-gate.js';

/**
 * Who may call a route, declared once here and enforced by its function's handler
 * (lib/transport/http/handler.ts) before the use case runs; the CDK stack and the local server put the Lambda
 * authorizer in front of every route that is not `none`, and the OpenAPI document's `security`
 * follows it (docs/protected-api.md, "Who may do what"):
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

export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway path syntax: `{name}` is a path parameter. */
  path: string;
  /** The deployed function (infra/routes.ts FUNCTIONS) that serves it. */
  function: RouteFunction;
  auth: RouteAuth;
  /** The scope an access key needs when ENFORCE_KEY_SCOPES is on (docs/protected-api.md, "The scope gate"). */
  scope?: Scope;
  /** The function reads a JSON body. */
  body?: 'json';
}

/**
 * The one list of HTTP routes: the CDK stack (infra/constructs/http-api.ts), the local server
 * (local/server.ts), each function's handler and the OpenAPI document (scripts/openapi/) read
 * it, so none of them can drift from the others. test/api/route-declarations.test.ts checks every
 * route's answers against its declaration.
 */
const ROUTE_LIST = [
  { method: 'GET', path: '/api/v1/health', function: 'health', auth: 'none' },
  { method: 'GET', path: '/api/v1', function: 'hub', auth: 'none' },
  { method: 'GET', path: '/api/v1/openapi.json', function: 'openapi', auth: 'none' },
  { method: 'GET', path: '/api/v1/policies', function: 'policies', auth: 'none' },
  { method: 'GET', path: '/api/v1/docs', function: 'openapi', auth: 'none' },
  { method: 'POST', path: '/api/v1/api-keys', function: 'createKey', auth: 'jwt', body: 'json' },
  { method: 'GET', path: '/api/v1/api-keys', function: 'listKeys', auth: 'jwt' },
  { method: 'POST', path: '/api/v1/api-keys/{id}/revoke', function: 'revokeKey', auth: 'jwt' },
  { method: 'DELETE', path: '/api/v1/api-keys/{id}', function: 'deleteKey', auth: 'jwt' },
  { method: 'GET', path: '/api/v1/api-keys/verify', function: 'verifyKey', auth: 'none' },
  { method: 'GET', path: '/api/v1/api-keys/{id}/usage', function: 'keyUsage', auth: 'either' },
  { method: 'GET', path: '/api/v1/me', function: 'me', auth: 'either' },
  { method: 'GET', path: '/api/v1/me/data', function: 'myData', auth: 'jwt' },
  { method: 'POST', path: '/api/v1/admin/users/{openid}/roles', function: 'setRoles', auth: 'admin', body: 'json' },
  { method: 'POST', path: '/api/v1/logout', function: 'signOut', auth: 'jwt' },
  { method: 'GET', path: '/api/v1/audit', function: 'listAudit', auth: 'jwt' },
  { method: 'GET', path: '/api/v1/admin/users/{openid}/api-keys', function: 'adminListKeys', auth: 'admin' },
  { method: 'POST', path: '/api/v1/admin/api-keys/{id}/revoke', function: 'adminRevokeKey', auth: 'admin' },
  { method: 'POST', path: '/api/v1/admin/api-keys/lookup', function: 'adminLookupKey', auth: 'admin', body: 'json' },
  { method: 'POST', path: '/api/v1/admin/users/{openid}/suspend', function: 'suspendAccount', auth: 'admin' },
  { method: 'POST', path: '/api/v1/admin/users/{openid}/reinstate', function: 'reinstateAccount', auth: 'admin' },
  { method: 'DELETE', path: '/api/v1/me', function: 'deleteAccount', auth: 'jwt' },
  { method: 'DELETE', path: '/api/v1/admin/users/{openid}', function: 'adminDeleteAccount', auth: 'admin' },
  { method: 'GET', path: '/api/v1/deletions/{id}', function: 'deletionStatus', auth: 'none' },
  { method: 'GET', path: '/api/v1/admin/filter-terms', function: 'listFilterTerms', auth: 'admin' },
  { method: 'POST', path: '/api/v1/admin/filter-terms', function: 'putFilterTerms', auth: 'admin', body: 'json' },
  { method: 'DELETE', path: '/api/v1/admin/filter-terms/{term}', function: 'deleteFilterTerm', auth: 'admin' },
  { method: 'POST', path: '/api/v1/videos', function: 'publishVideo', auth: 'either', scope: 'videos:write', body: 'json' },
  { method: 'GET', path: '/api/v1/export/comments', function: 'exportComments', auth: 'either', scope: 'export:read' },
  { method: 'GET', path: '/api/v1/export/accounts', function: 'exportAccounts', auth: 'either', scope: 'export:read' },
  { method: 'GET', path: '/api/v1/moderation/reports', function: 'moderationQueue', auth: 'moderator' },
  { method: 'POST', path: '/api/v1/moderation/actions', function: 'moderationAction', auth: 'moderator', body: 'json' },
  { method: 'GET', path: '/s/{shareid}', function: 'sharePage', auth: 'none' },
  { method: 'GET', path: '/.well-known/apple-app-site-association', function: 'wellKnown', auth: 'none' },
  { method: 'GET', path: '/.well-known/assetlinks.json', function: 'wellKnown', auth: 'none' },
] as const satisfies readonly (Omit<RouteSpec, 'function'> & { function: string })[];

export type RouteFunction = (typeof ROUTE_LIST)[number]['function'];
export const ROUTES: readonly RouteSpec[] = ROUTE_LIST;

/** Whether API Gateway runs the Lambda authorizer before the route's function. */
export const usesAuthorizer = (route: Pick<RouteSpec, 'auth'>) => route.auth !== 'none';

/** What a function's routes declare: one authorization, scope and body for all of them (several routes may share a function). */
export function declarationOf(fn: RouteFunction): Pick<RouteSpec, 'auth' | 'scope' | 'body'> {
  const routes = ROUTES.filter((r) => r.function === fn);
  const [first, ...rest] = routes;
  if (!first) throw new Error(`no route is served by ${fn}`);
  for (const r of rest) {
    if (r.auth !== first.auth || r.scope !== first.scope || r.body !== first.body) throw new Error(`the routes of ${fn} declare different access`);
  }
  return { auth: first.auth, scope: first.scope, body: first.body };
}
