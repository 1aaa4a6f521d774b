// HTTP: the API's operations through @expohub/client (a bundled copy, cli/src/vendor/client.mjs),
// with the CLI's own retry policy around them.
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient as createAnyClient, ExpohubError, OPERATIONS } from './vendor/client.mjs';
import { CliError, EXIT, log } from './output.mjs';
import { VERSION } from './version.mjs';

/** @typedef {import('../../client/src/index.js').Operations} Operations */
/** @type {typeof import('../../client/src/index.js').createClient} */
const createClient = /** @type {any} */ (createAnyClient);

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
    /** @type {string | undefined} the answer's Retry-After in seconds, when it had one */
    this.retryAfter = undefined;
  }
}

/** Exponential backoff with full jitter, never shorter than what the server asked for. */
function backoffMs(attempt, serverAskedMs) {
  const exponential = Math.min(MAX_BACKOFF_MS, 500 * 2 ** (attempt - 1));
  const jittered = exponential / 2 + Math.random() * (exponential / 2);
  return Math.max(jittered, serverAskedMs ?? 0);
}

function transportMessage(error) {
  const cause = error?.cause;
  if (cause?.code) return cause.message ? cause.message : cause.code;
  return cause?.message ?? error?.message ?? String(error);
}

/**
 * A client of one server with one credential (or none): `call('keys.list', params)` runs the
 * client's method of that name (client/README.md, "Operations"), typed by client/src/index.ts in
 * `npm run typecheck` (tsconfig.cli.json). The client itself does not retry (retries: 0): 429 and 503
 * are retried here (the contract promises that nothing was written) unless `waitWhenBusy` is false
 * (the sign-in reports its SMS limits instead of waiting a minute or more). A connection failure is
 * retried when `idempotent` is true (by default, when the client marks the operation safe to repeat),
 * or when the connection was refused (the request never reached the server).
 *
 * @param {{ base: string, credential?: string, maxAttempts: number, verbose: boolean }} options
 */
export function makeClient({ base, credential, maxAttempts, verbose }) {
  /** The client of one attempt: its --verbose line names the attempt (no query string: the sign-in carries the SMS code there). */
  const clientOf = (attempt) =>
    createClient({
      baseUrl: base,
      accessKey: credential,
      retries: 0,
      timeoutMs: REQUEST_TIMEOUT_MS,
      headers: { 'user-agent': `expohub-cli/${VERSION}` },
      fetch: async (input, init = {}) => {
        const url = String(input);
        const shown = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
        try {
          const response = await fetch(url, init);
          if (verbose) log(`${shown} -> ${response.status} (attempt ${attempt}/${maxAttempts}, request ${response.headers.get('x-request-id') ?? '-'})`);
          return response;
        } catch (error) {
          if (verbose) log(`${shown} -> ${init.signal?.aborted ? 'aborted' : transportMessage(error)} (attempt ${attempt}/${maxAttempts})`);
          throw error;
        }
      },
    });

  /**
   * @template {keyof Operations} N
   * @param {N} name
   * @param {Operations[N]['params']} [params]
   * @param {{ idempotent?: boolean, waitWhenBusy?: boolean }} [options]
   * @returns {Promise<Operations[N]['data']>}
   */
  async function call(name, params, { idempotent = OPERATIONS[name].idempotent, waitWhenBusy = true } = {}) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await clientOf(attempt).call(name, /** @type {any} */ (params ?? {}));
      } catch (error) {
        if (!(error instanceof ExpohubError)) throw error;
        if (error.status === 0) {
          // The client's NETWORK_ERROR keeps the fetch error: its cause names what failed (ECONNREFUSED...), not "fetch failed".
          const message = error.code === 'TIMEOUT' ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : error.code === 'NETWORK_ERROR' ? transportMessage(error.cause) : error.message;
          const retryable = idempotent || message.includes('ECONNREFUSED');
          if (!retryable || attempt >= maxAttempts) throw new RequestError(0, 'CONNECTION_ERROR', `cannot reach ${base}: ${message}`);
          await sleep(backoffMs(attempt));
          continue;
        }
        const asked = error.retryAfter === undefined ? undefined : Math.min(error.retryAfter * 1000, MAX_RETRY_AFTER_MS);
        if ((error.status === 429 || error.status === 503) && waitWhenBusy && attempt < maxAttempts) {
          await sleep(backoffMs(attempt, asked));
          continue;
        }
        // An answer that is not the API's envelope (a proxy's page) has no code or sentence of the API's.
        const bare = !error.envelope;
        const failure = new RequestError(error.status, bare ? `HTTP_${error.status}` : error.code, bare ? `unexpected answer (HTTP ${error.status})` : error.message);
        failure.retryAfter = error.retryAfter === undefined ? undefined : String(error.retryAfter);
        throw failure;
      }
    }
  }
  return call;
}
