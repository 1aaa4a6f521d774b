/**
 * `npm run smoke -- --url <base> [--key <access key>] [--json] [--timeout <seconds>]`: does this
 * deployment answer? The checks of lib/features/smoke/checks.ts (the same the scheduled synthetic check runs),
 * one line each and a summary (docs/deploy.md, "Smoke check"). The key may come from EXPOHUB_KEY
 * instead of `--key` (out of the shell history); it is never printed.
 *
 * Exit codes: 0 every check passed, 1 one failed, 2 bad usage.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_TIMEOUT_MS, formatResult, runSmokeChecks, summarize } from '../lib/features/smoke/checks.js';

const USAGE = `usage: npm run smoke -- --url <base URL> [--key <access key>] [--json] [--timeout <seconds>]

  --url       the deployment's WebUrl (https://<domain or id.cloudfront.net>), or http://127.0.0.1:3000
  --key       an access key (ak_...): adds verify, /me and the key's usage; or set EXPOHUB_KEY
  --json      one JSON document on stdout instead of lines
  --timeout   seconds to wait for each answer (default ${DEFAULT_TIMEOUT_MS / 1000})

exit codes: 0 all checks passed, 1 a check failed, 2 bad usage`;

function usageError(message: string): never {
  process.stderr.write(`smoke: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: { url: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  }).values;
} catch (error) {
  usageError((error as Error).message);
}
if (parsed.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (!parsed.url) usageError('--url is required');
let url: URL;
try {
  url = new URL(parsed.url);
} catch {
  usageError(`--url is not a URL: ${parsed.url}`);
}
if (url.protocol !== 'https:' && url.protocol !== 'http:') usageError('--url must be http(s)');
const timeoutSeconds = parsed.timeout === undefined ? DEFAULT_TIMEOUT_MS / 1000 : Number(parsed.timeout);
if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > 120) usageError('--timeout must be a number of seconds from more than 0 to 120');
const key = parsed.key ?? (process.env.EXPOHUB_KEY || undefined);
if (key !== undefined && !/^ak_[A-Za-z0-9]{32}$/.test(key.trim())) {
  usageError(`${parsed.key === undefined ? 'EXPOHUB_KEY' : '--key'} must be an access key (ak_ and 32 letters or digits), not a login token`);
}

const results = await runSmokeChecks({ baseUrl: `${url.origin}${url.pathname}`, key: key?.trim(), timeoutMs: timeoutSeconds * 1000 });
const passed = results.every((r) => r.ok);
if (parsed.json) {
  process.stdout.write(`${JSON.stringify({ url: url.origin + url.pathname.replace(/\/+$/, ''), passed, checks: results })}\n`);
} else {
  process.stdout.write(`smoke check of ${url.origin}${url.pathname.replace(/\/+$/, '')}\n`);
  for (const r of results) process.stdout.write(`${formatResult(r)}\n`);
  process.stdout.write(`${summarize(results)}\n`);
}
process.exit(passed ? 0 : 1);
