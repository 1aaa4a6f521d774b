import type { Principal } from './principal.js';

/**
 * The context the Lambda authorizer hands to functions. The authorizer always allows the request
 * through and states its verdict here: HTTP APIs cannot shape an authorizer's deny response, and the
 * contract wants every 401 in its JSON envelope, so the function's middleware turns
 * `authenticated: false` into that 401.
 */
export type AuthorizerContext =
  | ({ authenticated: true } & Principal)
  | { authenticated: false; failure: string };

export function contextFromPrincipal(principal: Principal): AuthorizerContext {
  return { authenticated: true, ...principal };
}

function stringArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string' && value.startsWith('[')) return stringArray(JSON.parse(value));
  return [];
}

export function principalFromAuthorizer(ctx: Record<string, unknown> | undefined): {
  principal: Principal | undefined;
  failure: string | undefined;
} {
  if (!ctx || (ctx.authenticated !== true && ctx.authenticated !== 'true')) {
    return { principal: undefined, failure: typeof ctx?.failure === 'string' ? ctx.failure : undefined };
  }
  if (typeof ctx.user_id !== 'string' || (ctx.auth_type !== 'jwt' && ctx.auth_type !== 'api_key')) {
    return { principal: undefined, failure: undefined };
  }
  return {
    principal: { user_id: ctx.user_id, auth_type: ctx.auth_type, scopes: stringArray(ctx.scopes), roles: stringArray(ctx.roles) },
    failure: undefined,
  };
}
