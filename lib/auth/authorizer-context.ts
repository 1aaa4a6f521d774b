import type { Principal } from './principal.js';

/**
 * The context the Lambda authorizer hands to functions. The authorizer always allows the request
 * through and states its verdict here: HTTP APIs cannot shape an authorizer's deny response (nor
 * the 500 they answer when an authorizer throws), and the contract wants every 401 and every 503 in
 * its JSON envelope, so the function's middleware turns `authenticated: false` into that 401, or,
 * with `unavailable` (a dependency failed while checking the credential), into a 503 with
 * Retry-After `retry_after`.
 */
export type AuthorizerContext =
  | ({ authenticated: true } & Principal)
  | { authenticated: false; failure: string }
  | { authenticated: false; failure: string; unavailable: true; retry_after: number }
  | { authenticated: false; failure: string; rate_limited: true; retry_after: number };

/** The verdict of an authorizer that could not check the credential because a dependency failed. */
export function unavailableContext(message: string, retryAfterSeconds: number): AuthorizerContext {
  return { authenticated: false, failure: message, unavailable: true, retry_after: retryAfterSeconds };
}

/** The verdict on a valid key past its rate limit: the function answers 429 with Retry-After `retry_after`. */
export function rateLimitedContext(message: string, retryAfterSeconds: number): AuthorizerContext {
  return { authenticated: false, failure: message, rate_limited: true, retry_after: retryAfterSeconds };
}

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
  /** Set when the credential could not be checked: answer 503 after `retryAfter` seconds. */
  unavailable?: { retryAfter: number };
  /** Set when a valid key is past its rate limit: answer 429 after `retryAfter` seconds. */
  rateLimited?: { retryAfter: number };
} {
  if (!ctx || (ctx.authenticated !== true && ctx.authenticated !== 'true')) {
    const failure = typeof ctx?.failure === 'string' ? ctx.failure : undefined;
    if (ctx?.unavailable === true || ctx?.unavailable === 'true') return { principal: undefined, failure, unavailable: { retryAfter: Number(ctx.retry_after) || 1 } };
    if (ctx?.rate_limited === true || ctx?.rate_limited === 'true') return { principal: undefined, failure, rateLimited: { retryAfter: Number(ctx.retry_after) || 1 } };
    return { principal: undefined, failure };
  }
  if (typeof ctx.user_id !== 'string' || (ctx.auth_type !== 'jwt' && ctx.auth_type !== 'api_key')) {
    return { principal: undefined, failure: undefined };
  }
  return {
    principal: { user_id: ctx.user_id, auth_type: ctx.auth_type, scopes: stringArray(ctx.scopes), roles: stringArray(ctx.roles) },
    failure: undefined,
  };
}
