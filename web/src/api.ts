import { createClient, ExpohubError, OPERATIONS, type ExpohubClient, type KeysListData } from '../../client/src/index.js';
import { session } from './session.js';

/** The client gives up on a request after 30 seconds (docs/web.md, "What it does"). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** A failed call: @expohub/client's error (client/README.md, "Errors"); errorMessage() words it for a person. */
export { ExpohubError as ApiError };

/** A key record as the API returns it: the client's type, generated from the same declarations as the OpenAPI document (client/src/generated.ts). */
export type ApiKey = KeysListData[number];

let unauthorizedHandler: (() => void) | undefined;

/** Called when a request that carried the login token is answered with 401 (docs/web.md, "What it does"). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

/**
 * Every API call of the page goes through @expohub/client (client/src/index.ts): relative URLs (same
 * origin locally and behind CloudFront), a 30-second timeout, no retries (the person sees the wait the
 * server asks for), the login token from localStorage (web/src/session.ts) on the operations that take
 * one. The page keeps the token itself: the login view saves it with the masked phone number, and a 401
 * to a call made with it calls the onUnauthorized handler, which forgets it.
 */
const raw = createClient({
  baseUrl: '',
  timeoutMs: REQUEST_TIMEOUT_MS,
  retries: 0,
  fetch: (input, init) => fetch(input, { ...init, cache: 'no-store', credentials: 'same-origin' }),
  session: {
    get: () => {
      const token = session.token();
      return token ? { token, openid: session.username() ?? '' } : null;
    },
    // Signing in is saved by the login view (with the name to greet); an ended session by the handler.
    set: () => undefined,
  },
  onSessionEnded: () => unauthorizedHandler?.(),
});

/** An operation that takes the login token, called without one: the login view, without a request. */
function guarded(api: ExpohubClient): ExpohubClient {
  const table = OPERATIONS as unknown as Record<string, { auth: string }>;
  const groups = api as unknown as Record<string, Record<string, unknown>>;
  for (const [name, spec] of Object.entries(table)) {
    if (spec.auth === 'none') continue;
    const [group, member] = name.split('.') as [string, string];
    const method = groups[group]![member] as (...args: unknown[]) => Promise<unknown>;
    groups[group]![member] = (...args: unknown[]) => {
      if (!session.token()) {
        unauthorizedHandler?.();
        return Promise.reject(new ExpohubError('AUTH_ERROR', 'Please sign in.', 401));
      }
      return method(...args);
    };
  }
  return api;
}

/** The API, one typed method per operation (client/README.md, "Operations"). */
export const client = guarded(raw);

function fallbackMessage(status: number): string {
  if (status === 401) return 'Please sign in again.';
  if (status === 403) return 'You are not allowed to do that.';
  if (status === 404) return 'Not found.';
  if (status === 429) return 'Too many requests.';
  if (status >= 500) return 'The server could not handle the request. Try again in a moment.';
  return `The request failed (HTTP ${status}).`;
}

/** What to tell the person: the server's sentence, or words they can act on when it gave none, and the wait it asks for. */
export function errorMessage(error: unknown): string {
  if (!(error instanceof ExpohubError)) return 'Something went wrong in the page. Reload it and try again.';
  if (error.code === 'TIMEOUT') return 'The server did not answer within 30 seconds. Check your connection and try again.';
  if (error.status === 0) return 'Could not reach the server. Check your connection and try again.';
  // An answer that is not the API's envelope (a gateway's page) carries no sentence for a person.
  let message = error.envelope ? error.message : fallbackMessage(error.status);
  if ((error.status === 429 || error.status === 503) && error.retryAfter !== undefined && error.retryAfter > 0) {
    // The server's messages have no final stop: end that sentence before adding another.
    if (!/[.!?。！？]$/.test(message)) message += '.';
    message += ` Try again in ${error.retryAfter} second${error.retryAfter === 1 ? '' : 's'}.`;
  }
  return message;
}
