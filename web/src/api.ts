import { session } from './session.js';
import { typedClient, type ResponseData } from '../../lib/transport/openapi/client.js';

/** The client gives up on a request after 30 seconds (docs/web.md, "What it does"). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** A failed call, carrying the envelope's code and its message for a person. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A key record as the API returns it: the type the OpenAPI document gives it (lib/transport/openapi/generated/api-types.ts). */
export type ApiKey = ResponseData<'/api/v1/api-keys', 'get'>[number];

type Envelope = { code: 0; data: unknown } | { code: string; error: string };

let unauthorizedHandler: (() => void) | undefined;

/** Called when a request that carried the login token is answered with 401 (docs/web.md, "What it does"). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && 'code' in value;
}

function fallbackMessage(status: number): string {
  if (status === 401) return 'Please sign in again.';
  if (status === 403) return 'You are not allowed to do that.';
  if (status === 404) return 'Not found.';
  if (status === 429) return 'Too many requests.';
  if (status >= 500) return 'The server could not handle the request. Try again in a moment.';
  return `The request failed (HTTP ${status}).`;
}

/**
 * Every API call of the page: relative URL (same origin locally and behind CloudFront), JSON body,
 * 30-second timeout, the contract's envelope unwrapped or turned into an ApiError with words a
 * person can act on. `auth` sends the stored JWT as a Bearer token.
 */
export async function api<T>(path: string, options: { method?: string; body?: unknown; auth?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.auth) {
    const token = session.token();
    if (!token) {
      unauthorizedHandler?.();
      throw new ApiError(401, 'AUTH_ERROR', 'Please sign in.');
    }
    headers.authorization = `Bearer ${token}`;
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  let response: Response;
  let envelope: unknown;
  try {
    response = await fetch(path, { method: options.method ?? 'GET', headers, body, signal: controller.signal, cache: 'no-store', credentials: 'same-origin' });
    envelope = await response.json().catch(() => undefined);
  } catch {
    if (controller.signal.aborted) {
      throw new ApiError(0, 'TIMEOUT', 'The server did not answer within 30 seconds. Check your connection and try again.');
    }
    throw new ApiError(0, 'NETWORK_ERROR', 'Could not reach the server. Check your connection and try again.');
  } finally {
    clearTimeout(timer);
  }

  if (response.status === 401 && options.auth) unauthorizedHandler?.();
  if (response.ok && isEnvelope(envelope) && envelope.code === 0) return envelope.data as T;

  const failure = isEnvelope(envelope) && envelope.code !== 0 ? envelope : undefined;
  let message = failure?.error ?? fallbackMessage(response.status);
  const retryAfter = Number(response.headers.get('retry-after'));
  if ((response.status === 429 || response.status === 503) && retryAfter > 0) {
    // The server's messages have no final stop: end that sentence before adding another.
    if (!/[.!?。！？]$/.test(message)) message += '.';
    message += ` Try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`;
  }
  throw new ApiError(response.status, failure ? String(failure.code) : `HTTP_${response.status}`, message);
}

/**
 * The API as its OpenAPI document types it (lib/transport/openapi/client.ts), through api() above: `client`
 * sends the login token, `publicClient` sends none (sign-in, verify).
 */
export const client = typedClient((method, url, body) => api(url, { method, body, auth: true }));
export const publicClient = typedClient((method, url, body) => api(url, { method, body }));

export function errorMessage(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Something went wrong in the page. Reload it and try again.';
}
