// The expohub command line: arguments, dispatch, exit codes (docs/cli.md in the repository).
import process from 'node:process';
import { parseArgs } from 'node:util';
import { account } from './commands/account.mjs';
import { exportRows } from './commands/export.mjs';
import { keys } from './commands/keys.mjs';
import { login, logout } from './commands/login.mjs';
import { publish } from './commands/publish.mjs';
import { whoami } from './commands/whoami.mjs';
import { CliError, EXIT, logError, settings, UsageError } from './output.mjs';
import { closeInput } from './prompt.mjs';
import { VERSION } from './version.mjs';

const HELP = `expohub ${VERSION}: the expohub API from the command line

Usage:
  expohub login [--url URL] [--phone PHONE]      sign in with an SMS code; the token is kept in
                                                 the config directory (mode 600)
  expohub logout [--url URL]                     end the session on the server, forget the token
  expohub whoami                                 who the credential is (user, scopes, roles)
  expohub keys list                              your access keys
  expohub keys create --name NAME [--scope S]... [--rate-limit N] [--expires-at T]
                                                 create a key; the key alone goes to stdout, once
  expohub keys revoke ID                         stop a key from the next request on
  expohub keys delete ID [--yes]                 remove a key for good
  expohub keys usage ID                          requests per day, last 30 days
  expohub publish FILE.jsonl [--dry-run] [--concurrency N]
                                                 publish one video per line (NDJSON results)
  expohub export comments|accounts [--since T] [--cursor C] [--limit N]
                                                 every row as NDJSON on stdout
  expohub account delete [--yes] [--wait]        delete the signed-in account for good (asks you
                                                 to type "delete"; --wait: until it is erased)
  expohub account export [-o FILE]               a copy of everything stored about your account,
                                                 one JSON document (stdout, or FILE with mode 600)

Server and credential:
  --url URL, else EXPOHUB_URL, else the server of the last login.
  EXPOHUB_KEY (an access key ak_... or a login token) when set, else the stored login of that server.
  Key management (keys ...) and account ... need a login token. Credentials are never printed.

Options for every command:
  --json             results as JSON on stdout; messages and errors as JSON lines on stderr
  -q, --quiet        no progress output
  -v, --verbose      one stderr line per HTTP request (no credentials, no query strings)
  --max-attempts N   attempts per request on 429/503/connection errors (1-10, default 5)
  -h, --help / -V, --version

Exit codes: 0 done; 1 failed (an API error, a failed line, no connection); 2 usage or configuration
error; 3 not signed in or credential refused (401); 4 not allowed (403); 5 not found (404);
6 rate limited or unavailable after every retry (429/503).
Config directory: EXPOHUB_CONFIG_DIR, else $XDG_CONFIG_HOME/expohub or ~/.config/expohub
(%APPDATA%\\expohub on Windows).`;

const OPTIONS = /** @type {const} */ ({
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  verbose: { type: 'boolean', short: 'v' },
  quiet: { type: 'boolean', short: 'q' },
  json: { type: 'boolean' },
  url: { type: 'string' },
  'max-attempts': { type: 'string' },
  phone: { type: 'string' },
  name: { type: 'string' },
  scope: { type: 'string', multiple: true },
  'rate-limit': { type: 'string' },
  'expires-at': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  'dry-run': { type: 'boolean' },
  concurrency: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  since: { type: 'string' },
  wait: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
});
const GLOBAL = ['help', 'version', 'verbose', 'quiet', 'json', 'url', 'max-attempts'];
/** The options each command takes besides the global ones. */
const COMMAND_OPTIONS = {
  login: ['phone'],
  logout: [],
  whoami: [],
  'keys list': [],
  'keys create': ['name', 'scope', 'rate-limit', 'expires-at'],
  'keys revoke': [],
  'keys delete': ['yes'],
  'keys usage': [],
  publish: ['dry-run', 'concurrency'],
  export: ['limit', 'cursor', 'since'],
  'account delete': ['yes', 'wait'],
  'account export': ['output'],
};

function intOption(value, name, min, max, fallback) {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return Number(value);
}

function checkOptions(values, commandName) {
  const allowed = COMMAND_OPTIONS[commandName];
  for (const name of Object.keys(values)) {
    if (!GLOBAL.includes(name) && !allowed.includes(name)) throw new UsageError(`--${name} is not an option of "${commandName}"`);
  }
}

async function main(argv) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  settings.json = Boolean(values.json);
  settings.quiet = Boolean(values.quiet);
  if (values.help || positionals[0] === 'help') {
    process.stdout.write(`${HELP}\n`);
    return EXIT.OK;
  }
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.OK;
  }
  const [command, ...args] = positionals;
  // An unknown command (or keys or account subcommand) is reported by its dispatcher below.
  const commandName = command === 'keys' || command === 'account' ? `${command} ${args[0]}` : command;
  if (commandName in COMMAND_OPTIONS) checkOptions(values, commandName);
  const options = {
    url: values.url,
    json: settings.json,
    verbose: Boolean(values.verbose),
    maxAttempts: intOption(values['max-attempts'], 'max-attempts', 1, 10, 5),
    phone: values.phone,
    name: values.name,
    scope: values.scope,
    rateLimit: intOption(values['rate-limit'], 'rate-limit', 1, 100000, undefined),
    expiresAt: values['expires-at'],
    yes: Boolean(values.yes),
    dryRun: Boolean(values['dry-run']),
    concurrency: intOption(values.concurrency, 'concurrency', 1, 16, 4),
    limit: intOption(values.limit, 'limit', 1, 500, 500),
    cursor: String(values.cursor ?? '').trim() || undefined,
    since: String(values.since ?? '').trim() || undefined,
    wait: Boolean(values.wait),
    output: values.output,
  };
  switch (command) {
    case 'login':
      if (args.length !== 0) throw new UsageError('login takes options only: expohub login [--url URL] [--phone PHONE]');
      return login(options);
    case 'logout':
      if (args.length !== 0) throw new UsageError('logout takes no arguments');
      return logout(options);
    case 'whoami':
      return whoami(args, options);
    case 'keys':
      return keys(args, options);
    case 'publish':
      return publish(args, options);
    case 'export':
      return exportRows(args, options);
    case 'account':
      return account(args, options);
    case undefined:
      throw new UsageError('a command is required: login, logout, whoami, keys, publish, export or account');
    default:
      throw new UsageError(`unknown command "${command}": use login, logout, whoami, keys, publish, export or account`);
  }
}

export async function run(argv) {
  try {
    process.exitCode = await main(argv);
  } catch (error) {
    // parseArgs reports unknown or malformed options with a TypeError carrying an ERR_PARSE_ARGS_* code.
    if (error instanceof UsageError || String(error?.code ?? '').startsWith('ERR_PARSE_ARGS')) {
      logError({ code: 'USAGE', message: `${error.message}\nRun "expohub --help" for usage.` }, EXIT.USAGE);
      process.exitCode = EXIT.USAGE;
    } else if (error instanceof CliError) {
      logError(error, error.exitCode);
      process.exitCode = error.exitCode;
    } else {
      logError({ code: 'UNEXPECTED', message: `unexpected error: ${error?.stack ?? error}` }, EXIT.FAILED);
      process.exitCode = EXIT.FAILED;
    }
  } finally {
    closeInput();
  }
}
