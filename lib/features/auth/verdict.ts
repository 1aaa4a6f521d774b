import type { Principal } from './principal.js';

/**
 * The Lambda authorizer's verdict on a request's credential. The authorizer always lets the request
 * through and states its verdict in the context API Gateway hands to the function: HTTP APIs cannot
 * shape an authorizer's deny response (nor the 500 they answer when an authorizer throws), and every
 * 401, 429 and 503 must be the contract's envelope, which the function's chain writes
 * (docs/api-keys.md, "Envelope").
 */
export type Verdict =
  | { kind: 'authenticated'; principal: Principal }
  /** The credential is missing or does not verify: 401 with `message`. */
  | { kind: 'refused'; message: string }
  /** A valid key past its rate limit: 429 after `retryAfter` seconds. */
  | { kind: 'rate_limited'; message: string; retryAfter: number }
  /** The credential could not be checked (DynamoDB or Secrets Manager failing): 503 after `retryAfter` seconds. */
  | { kind: 'unavailable'; message: string; retryAfter: number };

/** The context API Gateway carries from the authorizer to the function (flat JSON values). */
export type VerdictContext = Record<string, string | number | boolean | string[]>;

/** The authorizer's side: the verdict as its context. */
export function encodeVerdict(verdict: Verdict): VerdictContext {
  if (verdict.kind === 'authenticated') {
    const { key_id, ...principal } = verdict.principal;
    return { verdict: 'authenticated', ...principal, ...(key_id !== undefined && { key_id }) };
  }
  if (verdict.kind === 'refused') return { verdict: 'refused', message: verdict.message };
  return { verdict: verdict.kind, message: verdict.message, retry_after: verdict.retryAfter };
}

/** API Gateway may hand arrays on as JSON text. */
function stringArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string' && value.startsWith('[')) return stringArray(JSON.parse(value));
  return [];
}

/**
 * The function's side, once per request: the verdict of its context, or undefined when no authorizer
 * ran (a route declared `none`). A context that is not a verdict this code wrote is a refusal.
 */
export function decodeVerdict(context: Record<string, unknown> | undefined): Verdict | undefined {
  if (!context || context.verdict === undefined) return undefined;
  const message = typeof context.message === 'string' ? context.message : 'Invalid credentials';
  const retryAfter = Number(context.retry_after) || 1;
  switch (context.verdict) {
    case 'authenticated': {
      if (typeof context.user_id !== 'string' || (context.auth_type !== 'jwt' && context.auth_type !== 'api_key')) break;
      const principal: Principal = { user_id: context.user_id, auth_type: context.auth_type, scopes: stringArray(context.scopes), roles: stringArray(context.roles) };
      // API Gateway may hand a number on as text.
      const keyId = Number(context.key_id);
      if (context.auth_type === 'api_key' && Number.isSafeInteger(keyId) && keyId > 0) principal.key_id = keyId;
      return { kind: 'authenticated', principal };
    }
    case 'rate_limited':
      return { kind: 'rate_limited', message, retryAfter };
    case 'unavailable':
      return { kind: 'unavailable', message, retryAfter };
  }
  return { kind: 'refused', message };
}
