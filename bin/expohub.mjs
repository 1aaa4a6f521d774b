#!/usr/bin/env node
/* global AbortSignal */
// The expohub command-line tool: publish videos from a JSONL file and export data as NDJSON,
// with an access key. Plain Node ESM (20+), no dependencies and no build step.
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URLSearchParams } from 'node:url';
import { parseArgs } from 'node:util';

const VERSION = '1.0.0';
const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;
const REQUEST_TIMEOUT_MS = 30_000;
const MAX_BACKOFF_MS = 30_000;
const MAX_RETRY_AFTER_MS = 120_000;

const HELP = `expohub ${VERSION}: publish videos and export data with an expohub access key

Usage:
  npx expohub publish FILE.jsonl [options]   publish one video per line of FILE
  npx expohub export comments [options]      write comments as NDJSON to stdout
  npx expohub export accounts [options]      write accounts as NDJSON to stdout
  npx expohub whoami                         show what the key is (user, scopes)
  npx expohub --help | --version

Environment (required):
  EXPOHUB_URL   base URL of the API, e.g. http://127.0.0.1:3000
  EXPOHUB_KEY   the access key (ak_...) or a login token; it is never printed

Options:
  --concurrency N    publish: lines in flight at once (1-16, default 4)
  --max-attempts N   attempts per request on 429/503/connection errors (1-10, default 5)
  --limit N          export: rows per page (1-500, default 500)
  --verbose          one line per HTTP request on stderr
  -h, --help         this help
  -V, --version      the version

publish: each non-empty line is a JSON object {title, description, video_url, cover_url,
duration_s, tags, external_id}; lines with an external_id already published by the same account
update that video. Published videos are printed to stdout as NDJSON {line, vid, external_id},
failed lines to stderr with their line number; progress goes to stderr.

Exit codes: 0 success; 1 a line or request failed; 2 usage or configuration error.
Docs: docs/cli.md`;

class UsageError extends Error {}

/** An HTTP failure in the contract's envelope ({code, error}), or a transport failure (status 0). */
class RequestError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// Output. Everything written to stderr passes through redact(): the key must never appear, even
// inside an error message from a lower layer.

let secret = '';
const redact = (text) => (secret ? String(text).split(secret).join('[redacted]') : String(text));
const isTty = Boolean(process.stderr.isTTY);
let progressShown = false;

function clearProgress() {
  if (progressShown) {
    process.stderr.write('\r\x1b[2K');
    progressShown = false;
  }
}

function log(message) {
  clearProgress();
  process.stderr.write(`${redact(message)}\n`);
}

/** Writes to stdout, waiting when the pipe is full; resolves false when the reader went away. */
function writeOut(text) {
  return new Promise((resolve) => {
    if (process.stdout.destroyed) return resolve(false);
    const ok = process.stdout.write(text, (error) => {
      if (error) resolve(false);
    });
    if (ok) resolve(true);
    else process.stdout.once('drain', () => resolve(true));
  });
}
process.stdout.on('error', (error) => {
  // A reader like `head` closing the pipe early is not an error of ours.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_OK);
});

// ---------------------------------------------------------------------------------------------
// Configuration and HTTP.

function readEnvironment() {
  const rawUrl = (process.env.EXPOHUB_URL ?? '').trim();
  const key = (process.env.EXPOHUB_KEY ?? '').trim();
  const missing = [!rawUrl && 'EXPOHUB_URL', !key && 'EXPOHUB_KEY'].filter(Boolean);
  if (missing.length > 0) {
    throw new UsageError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set. Set EXPOHUB_URL to the API base URL ` +
        '(e.g. http://127.0.0.1:3000) and EXPOHUB_KEY to an access key created on the key-management page.',
    );
  }
  secret = key;
  if (/\s/.test(key)) throw new UsageError('EXPOHUB_KEY contains whitespace; it must be the key alone (ak_ followed by 32 characters)');
  let url;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UsageError('EXPOHUB_URL is not a valid URL (expected e.g. http://127.0.0.1:3000)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('EXPOHUB_URL must start with http:// or https://');
  // Accept the base with or without the /api/v1 prefix.
  const base = url.href.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return { base, key };
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

/**
 * One API call with bounded retries. 429 and 503 are always retried (the contract promises that
 * nothing was written). A connection failure is retried when `idempotent` is true, or when the
 * connection was refused (the request never reached the server).
 *
 * Typed by the OpenAPI document (lib/openapi/client.ts, from the generated lib/openapi/api-types.ts):
 * `npm run typecheck` checks this file's paths, bodies and the fields read from answers through
 * tsconfig.cli.json; the types are JSDoc, so the CLI stays plain JavaScript with no build step.
 */
function makeClient({ base, key }, { maxAttempts, verbose }) {
  /**
   * @template {'GET' | 'POST'} M
   * @template {import('../lib/openapi/client.js').PathsWith<Lowercase<M>>} P
   * @param {M} method
   * @param {P} path
   * @param {{ query?: Record<string, string>, body?: import('../lib/openapi/client.js').CallOptions<P, Lowercase<M>>['body'], idempotent?: boolean }} [options]
   * @returns {Promise<import('../lib/openapi/client.js').ResponseData<P, Lowercase<M>>>}
   */
  return async function call(method, path, { query, body, idempotent = method === 'GET' } = {}) {
    const url = base + path + (query ? `?${new URLSearchParams(query)}` : '');
    for (let attempt = 1; ; attempt++) {
      let response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
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
        if (verbose) log(`${method} ${path} -> ${message} (attempt ${attempt}/${maxAttempts})`);
        if (!retryable || attempt >= maxAttempts) {
          throw new RequestError(0, 'CONNECTION_ERROR', `cannot reach ${base}: ${message}`);
        }
        await sleep(backoffMs(attempt));
        continue;
      }
      let envelope;
      try {
        envelope = await response.json();
      } catch {
        envelope = undefined;
      }
      if (verbose) log(`${method} ${path} -> ${response.status} (attempt ${attempt}/${maxAttempts}, request ${response.headers.get('x-request-id') ?? '-'})`);
      if (response.ok && envelope && envelope.code === 0) return envelope.data;
      const code = typeof envelope?.code === 'string' ? envelope.code : `HTTP_${response.status}`;
      const message = typeof envelope?.error === 'string' ? envelope.error : `unexpected answer (HTTP ${response.status})`;
      if ((response.status === 429 || response.status === 503) && attempt < maxAttempts) {
        await sleep(backoffMs(attempt, retryAfterMs(response.headers)));
        continue;
      }
      throw new RequestError(response.status, code, message);
    }
  };
}

function intOption(value, name, min, max, fallback) {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  }
  return Number(value);
}

// ---------------------------------------------------------------------------------------------
// publish

/** Non-empty lines of the file with their 1-based line numbers. */
async function readJsonLines(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  }
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((source, index) => ({ line: index + 1, source: source.trim() }))
    .filter((l) => l.source.length > 0);
}

function createProgress(total) {
  let done = 0;
  let ok = 0;
  let failed = 0;
  let nextPlainReport = Math.max(1, Math.ceil(total / 10));
  function render() {
    if (isTty) {
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      process.stderr.write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}  ok ${ok}  failed ${failed}`);
      progressShown = true;
    } else if (done >= nextPlainReport || done === total) {
      log(`progress: ${done}/${total} lines (ok ${ok}, failed ${failed})`);
      nextPlainReport = done + Math.max(1, Math.ceil(total / 10));
    }
  }
  return {
    record(success) {
      done += 1;
      if (success) ok += 1;
      else failed += 1;
      render();
    },
    finish: clearProgress,
  };
}

function describeFailure(error) {
  return error instanceof RequestError ? `${error.code}: ${error.message}` : String(error?.message ?? error);
}

async function publish(file, options, env) {
  const lines = await readJsonLines(file);
  const call = makeClient(env, options);
  const progress = createProgress(lines.length);
  const failures = [];
  let published = 0;
  /** @type {RequestError | undefined} */
  let stopReason;
  // Lines with the same external_id run in file order, so the last line wins as in a sequential run.
  const inFlightByExternalId = new Map();

  async function publishLine({ line, source }) {
    let video;
    try {
      video = JSON.parse(source);
    } catch (error) {
      throw new RequestError(0, 'INVALID_JSON', `not valid JSON (${error.message})`);
    }
    if (typeof video !== 'object' || video === null || Array.isArray(video)) {
      throw new RequestError(0, 'INVALID_JSON', 'the line must be a JSON object');
    }
    const externalId = typeof video.external_id === 'string' ? video.external_id : undefined;
    const previous = externalId === undefined ? undefined : inFlightByExternalId.get(externalId);
    const run = (async () => {
      await previous?.catch(() => undefined);
      // Without an external_id a repeated request could add a second video, so only a refused
      // connection is retried; with one the server makes the retry an update.
      return call('POST', '/api/v1/videos', { body: video, idempotent: externalId !== undefined });
    })();
    if (externalId !== undefined) inFlightByExternalId.set(externalId, run);
    let data;
    try {
      data = await run;
    } finally {
      if (externalId !== undefined && inFlightByExternalId.get(externalId) === run) inFlightByExternalId.delete(externalId);
    }
    await writeOut(`${JSON.stringify({ line, vid: data?.video?.vid ?? null, external_id: externalId ?? null })}\n`);
  }

  let next = 0;
  async function worker() {
    while (next < lines.length && !stopReason) {
      const item = lines[next++];
      try {
        await publishLine(item);
        published += 1;
        progress.record(true);
      } catch (error) {
        failures.push(item.line);
        log(`line ${item.line}: ${describeFailure(error)}`);
        progress.record(false);
        // A refused credential fails every line alike: stop instead of repeating it.
        if (error instanceof RequestError && (error.status === 401 || error.status === 403)) stopReason = error;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, Math.max(1, lines.length)) }, worker));
  progress.finish();

  const skipped = lines.length - published - failures.length;
  failures.sort((a, b) => a - b);
  const parts = [`published ${published} of ${lines.length} lines`];
  if (failures.length > 0) parts.push(`${failures.length} failed (line${failures.length === 1 ? '' : 's'} ${failures.slice(0, 20).join(', ')}${failures.length > 20 ? ', ...' : ''})`);
  if (skipped > 0) parts.push(`${skipped} not attempted: stopped after ${stopReason.status} ${stopReason.code}`);
  log(parts.join('; '));
  return failures.length > 0 || skipped > 0 ? EXIT_FAILED : EXIT_OK;
}

// ---------------------------------------------------------------------------------------------
// export

async function exportRows(kind, options, env) {
  const call = makeClient(env, options);
  let cursor = '';
  let rows = 0;
  let pages = 0;
  for (;;) {
    const query = { limit: String(options.limit), ...(cursor ? { cursor } : {}) };
    let data;
    try {
      data = await call('GET', kind === 'comments' ? '/api/v1/export/comments' : '/api/v1/export/accounts', { query });
    } catch (error) {
      log(`export ${kind} failed after ${rows} rows: ${describeFailure(error)}`);
      return EXIT_FAILED;
    }
    pages += 1;
    const items = Array.isArray(data?.items) ? data.items : [];
    if (items.length > 0 && !(await writeOut(items.map((item) => `${JSON.stringify(item)}\n`).join('')))) return EXIT_OK;
    rows += items.length;
    if (isTty) {
      process.stderr.write(`\r\x1b[2K${kind}: ${rows} rows`);
      progressShown = true;
    }
    cursor = typeof data?.next_cursor === 'string' ? data.next_cursor : '';
    if (!cursor) break;
  }
  clearProgress();
  log(`exported ${rows} ${rows === 1 ? kind.slice(0, -1) : kind} in ${pages} page${pages === 1 ? '' : 's'}`);
  return EXIT_OK;
}

async function whoami(options, env) {
  try {
    const data = await makeClient(env, options)('GET', '/api/v1/me');
    await writeOut(`${JSON.stringify(data)}\n`);
    return EXIT_OK;
  } catch (error) {
    log(`whoami failed: ${describeFailure(error)}`);
    return EXIT_FAILED;
  }
}

// ---------------------------------------------------------------------------------------------

async function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
      verbose: { type: 'boolean', short: 'v' },
      concurrency: { type: 'string' },
      'max-attempts': { type: 'string' },
      limit: { type: 'string' },
    },
  });
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(`${HELP}\n`);
    return EXIT_OK;
  }
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT_OK;
  }
  const [command, ...args] = positionals;
  const options = {
    verbose: Boolean(values.verbose),
    concurrency: intOption(values.concurrency, 'concurrency', 1, 16, 4),
    maxAttempts: intOption(values['max-attempts'], 'max-attempts', 1, 10, 5),
    limit: intOption(values.limit, 'limit', 1, 500, 500),
  };
  switch (command) {
    case 'publish': {
      if (args.length !== 1) throw new UsageError('publish needs exactly one file: expohub publish FILE.jsonl');
      return publish(args[0], options, readEnvironment());
    }
    case 'export': {
      if (args.length !== 1 || !['comments', 'accounts'].includes(args[0])) {
        throw new UsageError('export needs what to export: expohub export comments|accounts');
      }
      return exportRows(args[0], options, readEnvironment());
    }
    case 'whoami':
      if (args.length !== 0) throw new UsageError('whoami takes no arguments');
      return whoami(options, readEnvironment());
    case undefined:
      throw new UsageError('a command is required: publish, export or whoami');
    default:
      throw new UsageError(`unknown command "${command}": use publish, export or whoami`);
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // parseArgs reports unknown or malformed options with a TypeError carrying an ERR_PARSE_ARGS_* code.
  if (error instanceof UsageError || String(error?.code ?? '').startsWith('ERR_PARSE_ARGS')) {
    log(`expohub: ${error.message}\nRun "npx expohub --help" for usage.`);
    process.exitCode = EXIT_USAGE;
  } else {
    log(`expohub: unexpected error: ${error?.stack ?? error}`);
    process.exitCode = EXIT_FAILED;
  }
}
