// expohub keys list|create|revoke|delete|usage: the access keys of the signed-in account.
// Key management takes a login token (the API refuses an access key there), so these commands use
// the stored login, or EXPOHUB_KEY only when it holds a login token.
import process from 'node:process';
import { addSecret, EXIT, log, result, table, UsageError } from '../output.mjs';
import { ask } from '../prompt.mjs';
import { loginClient } from './session.mjs';

const KNOWN_SCOPES = ['videos:write', 'export:read', 'hub:read', 'hub:write'];

const keyClient = async (options, env) => (await loginClient(options, env)).call;

function keyId(args, command) {
  if (args.length !== 1) throw new UsageError(`keys ${command} needs exactly one key id: expohub keys ${command} ID`);
  const id = args[0];
  if (!/^[1-9]\d{0,15}$/.test(id)) throw new UsageError(`"${id}" is not a key id (a positive whole number, as "expohub keys list" shows)`);
  return Number(id);
}

const day = (iso) => (iso ? iso.slice(0, 16).replace('T', ' ') : '-');

export async function keys(args, options, env = process.env) {
  const [command, ...rest] = args;
  switch (command) {
    case 'list':
      return listKeys(rest, options, env);
    case 'create':
      return createKey(rest, options, env);
    case 'revoke':
      return revokeKey(rest, options, env);
    case 'delete':
      return deleteKey(rest, options, env);
    case 'usage':
      return keyUsage(rest, options, env);
    case undefined:
      throw new UsageError('keys needs a command: list, create, revoke, delete or usage');
    default:
      throw new UsageError(`unknown keys command "${command}": use list, create, revoke, delete or usage`);
  }
}

async function listKeys(args, options, env) {
  if (args.length !== 0) throw new UsageError('keys list takes no arguments');
  const list = await (await keyClient(options, env))('keys.list');
  const rows = list.map((k) => [k.id, k.name, k.key_hint ?? 'ak_…', k.status, k.scopes.length ? k.scopes.join(',') : '(all)', k.rate_limit_per_minute ?? '-', day(k.created_at), day(k.last_used_at)]);
  await result(list, list.length === 0 ? 'No keys yet: create one with "expohub keys create --name NAME".' : table(['ID', 'NAME', 'HINT', 'STATUS', 'SCOPES', 'LIMIT/MIN', 'CREATED', 'LAST USED'], rows));
  return EXIT.OK;
}

async function createKey(args, options, env) {
  if (args.length !== 0) throw new UsageError('keys create takes options only: expohub keys create --name NAME [--scope S]... [--rate-limit N] [--expires-at T]');
  if (!options.name?.trim()) throw new UsageError('keys create needs --name NAME (1-64 characters: what the key is for)');
  const scopes = options.scope ?? [];
  for (const scope of scopes) {
    if (!KNOWN_SCOPES.includes(scope)) log(`note: "${scope}" is not one of the known scopes (${KNOWN_SCOPES.join(', ')}); it is stored as given`);
  }
  const body = {
    name: options.name.trim(),
    scopes,
    ...(options.rateLimit !== undefined ? { rate_limit_per_minute: options.rateLimit } : {}),
    ...(options.expiresAt ? { expires_at: options.expiresAt } : {}),
  };
  // Not retried on a lost answer: a second request could create a second key.
  const created = await (await keyClient(options, env))('keys.create', body, { idempotent: false });
  addSecret(created.api_key);
  // The key alone on stdout (KEY=$(expohub keys create ...)), or {api_key, key} with --json; what to know about it on stderr.
  await result(created, created.api_key);
  if (!options.json) {
    log(
      `Created key ${created.key.id} "${created.key.name}" (${created.key.scopes.length ? created.key.scopes.join(', ') : 'all scopes'}, ` +
        `${created.key.rate_limit_per_minute ?? 'default'} requests/minute). This is the only time the key is shown: store it now.`,
    );
  }
  return EXIT.OK;
}

async function revokeKey(args, options, env) {
  const id = keyId(args, 'revoke');
  const revoked = await (await keyClient(options, env))('keys.revoke', { id }, { idempotent: true });
  await result(revoked, `Revoked key ${id}: it is refused from the next request on. It stays in the list; "expohub keys delete ${id}" removes it.`);
  return EXIT.OK;
}

async function deleteKey(args, options, env) {
  const id = keyId(args, 'delete');
  if (!options.yes) {
    if (!process.stdin.isTTY) throw new UsageError(`keys delete removes key ${id} for good: pass --yes to confirm when not at a terminal`);
    const answer = (await ask(`Delete key ${id} for good? It stops working at once. [y/N] `))?.trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') {
      log('Not deleted.');
      return EXIT.FAILED;
    }
  }
  const deleted = await (await keyClient(options, env))('keys.delete', { id }, { idempotent: true });
  await result(deleted, `Deleted key ${id}.`);
  return EXIT.OK;
}

async function keyUsage(args, options, env) {
  const id = keyId(args, 'usage');
  const usage = await (await keyClient(options, env))('keys.usage', { id });
  const days = usage.days;
  const most = Math.max(1, ...days.map((d) => d.requests));
  const total = days.reduce((sum, d) => sum + d.requests, 0);
  const width = 40;
  const lines = days.map((d) => `${d.date}  ${String(d.requests).padStart(String(most).length)}  ${'#'.repeat(Math.round((d.requests / most) * width))}`);
  await result(usage, `${lines.join('\n')}\n${total} requests in ${days.length} days (UTC), key ${id}`);
  return EXIT.OK;
}
