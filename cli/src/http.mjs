/* global AbortSignal */
// HTTP: one API call with bounded retries, answers read from the contract's envelope.
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, EXIT, log } from './output.mjs';
import { VERSION } from './version.mjs';

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_BACKOFF_MS = 30_000;
const MAX_RETRY_AFTER_MS = 120_000;

/** The exit code of a refused request (docs/cli.md, "Exit codes"). */
export function exitCodeOf(status) {
  if (status === 401) return EXIT.AUTH;
  if (status === 403) return EXIT.FORBIDDEN;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 429 || status === 503) return EXIT.BUSY;
  return EXIT.FAILED;
}

/** An HTTP failure in the contract's envelope ({code, error}), or a transport failure (status 0). */
export class RequestError extends CliError {
  constructor(status, code, message) {
    super(message, { exitCode: exitCodeOf(status), code, status });
    /** @type {string | undefined} the answer's Retry-After, when it had one */
    this.retryAfter = undefined;
  }
}

function retryAfterMs(headers) {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - Date.now()), MAX_RETRY_AFTER_MS);
}

/** Exponential backoff with full jitter, never shorter than what the server asked for. */
function backoffMs(attempt, serverAskedMs) {
  const exponential = Math.min(MAX_BACKOFF_MS, 500 * 2 ** (attempt - 1));
  const jittered = exponential / 2 + Math.random() * (exponential / 2);
  return Math.max(jittered, serverAskedMs ?? 0);
}

function transportMessage(error) {
  if (error?.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = error?.cause;
  if (cause?.code) return cause.message ? cause.message : cause.code;
  return cause?.message ?? error?.message ?? String(error);
}

/** `/api/v1/api-keys/{id}/usage` with `{id: 7}` and a query -> the URL path and query string. */
function buildPath(path, params = {}, query = undefined) {
  const filled = path.replace(/\{(\w+)\}/g, (_, name) => {
    if (params[name] === undefined) throw new Error(`missing path parameter ${name} of ${path}`);
    return encodeURIComponent(String(params[name]));
  });
  const qs = Object.entries(query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return qs ? `${filled}?${qs}` : filled;
}

/**
 * A client of one server with one credential (or none). 429 and 503 are retried (the contract
 * promises that nothing was written) unless `waitWhenBusy` is false: the sign-in reports its SMS
 * limits instead of waiting a minute or more. A connection failure is retried when `idempotent`
 * is true (GET by default), or when the connection was refused (the request never reached the server).
 *
 * Typed by the OpenAPI document: in the repository, `npm run typecheck` checks the paths, bodies
 * and fields read from answers against lib/transport/openapi/client.ts (generated lib/transport/openapi/generated/api-types.ts),
 * through tsconfig.cli.json. The types are JSDoc, so the package is plain JavaScript with no build step.
 *
 * @param {{ base: string, credential?: string, maxAttempts: number, verbose: boolean }} options
 */
export function makeClient({ base, credential, maxAttempts, verbose }) {
  /**
   * @template {'GET' | 'POST' | 'DELETE'} M
   * @template {import('../../lib/transport/openapi/client.js').PathsWith<Lowercase<M>>} P
   * @param {M} method
   * @param {P} path
   * @param {{ params?: Record<string, string | number>, query?: Record<string, string | undefined>, body?: import('../../lib/transport/openapi/client.js').CallOptions<P, Lowercase<M>>['body'], idempotent?: boolean, waitWhenBusy?: boolean }} [options]
   * @returns {Promise<import('../../lib/transport/openapi/client.js').ResponseData<P, Lowercase<M>>>}
   */
  async function call(method, path, { params, query, body, idempotent = method === 'GET', waitWhenBusy = true } = {}) {
    const url = base + buildPath(path, params, query);
    // Logged without the query string: the hub's sign-in carries the SMS code there.
    const shown = `${method} ${buildPath(path, params)}`;
    for (let attempt = 1; ; attempt++) {
      let response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            ...(credential ? { authorization: `Bearer ${credential}` } : {}),
            accept: 'application/json',
            'user-agent': `expohub-cli/${VERSION}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        const message = transportMessage(error);
        const retryable = idempotent || error?.cause?.code === 'ECONNREFUSED';
        if (verbose) log(`${shown} -> ${message} (attempt ${attempt}/${maxAttempts})`);
        if (!retryable || attempt >= maxAttempts) throw new RequestError(0, 'CONNECTION_ERROR', `cannot reach ${base}: ${message}`);
        await sleep(backoffMs(attempt));
        continue;
      }
      let envelope;
      try {
        envelope = await response.json();
      } catch {
        envelope = undefined;
      }
      if (verbose) log(`${shown} -> ${response.status} (attempt ${attempt}/${maxAttempts}, request ${response.headers.get('x-request-id') ?? '-'})`);
      if (response.ok && envelope && envelope.code === 0) return envelope.data;
      const code = typeof envelope?.code === 'string' ? envelope.code : `HTTP_${response.status}`;
      const message = typeof envelope?.error === 'string' ? envelope.error : `unexpected answer (HTTP ${response.status})`;
      if ((response.status === 429 || response.status === 503) && waitWhenBusy && attempt < maxAttempts) {
        await sleep(backoffMs(attempt, retryAfterMs(response.headers)));
        continue;
      }
      const error = new RequestError(response.status, code, message);
      error.retryAfter = response.headers.get('retry-after') ?? undefined;
      throw error;
    }
  }
  /**
   * `GET /api/v1?do=<op>&...`, typed by the hub's documented operations.
   * @template {import('../../lib/transport/openapi/client.js').HubOperationName} O
   * @param {O} op
   * @param {import('../../lib/transport/openapi/client.js').HubQuery<O>} query
   * @param {{ idempotent?: boolean, waitWhenBusy?: boolean }} [options]
   * @returns {Promise<import('../../lib/transport/openapi/client.js').HubData<O>>}
   */
  function hub(op, query, { idempotent = true, waitWhenBusy = true } = {}) {
    return /** @type {any} */ (call('GET', '/api/v1', { query: { do: op, ...query }, idempotent, waitWhenBusy }));
  }
  return Object.assign(call, { hub });
}
