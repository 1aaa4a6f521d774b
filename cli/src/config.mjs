// Where the CLI keeps a login, and how a command finds its server and credential.
//
// The credentials file holds one login per server URL, and which server was signed in to last:
//   {"version": 1, "current": "https://api.example.com", "logins": {"https://api.example.com":
//     {"token": "<JWT>", "openid": "u_...", "expires_at": "...", "saved_at": "..."}}}
// It is written with mode 0600 in a directory of mode 0700, replaced atomically (a temporary file in
// the same directory, then rename), and a stored token is only ever sent to the server it came from.
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { addSecret, log, UsageError } from './output.mjs';

/** `EXPOHUB_CONFIG_DIR`, else the platform's per-user config directory + `expohub`. */
export function configDir(env = process.env) {
  if (env.EXPOHUB_CONFIG_DIR) return env.EXPOHUB_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'expohub');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'expohub');
}

export const credentialsFile = (env = process.env) => join(configDir(env), 'credentials.json');

/** The base URL without a trailing slash or `/api/v1`: how logins are keyed. */
export function normalizeUrl(raw, origin = 'EXPOHUB_URL') {
  let url;
  try {
    url = new URL(String(raw).trim());
  } catch {
    throw new UsageError(`${origin} is not a valid URL (expected e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${origin} must start with http:// or https://`);
  if (url.username || url.password) throw new UsageError(`${origin} must not carry a user name or password`);
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}

async function readStore(env) {
  const file = credentialsFile(env);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return { version: 1, current: null, logins: {} };
    throw new UsageError(`cannot read ${file}: ${error.message}`);
  }
  if (process.platform !== 'win32') {
    const mode = (await stat(file)).mode & 0o777;
    if (mode & 0o077) {
      await chmod(file, 0o600);
      log(`warning: ${file} was readable by others (mode ${mode.toString(8)}); it is now 600`);
    }
  }
  let store;
  try {
    store = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not valid JSON: remove it and run "expohub login" again`);
  }
  if (typeof store !== 'object' || store === null || typeof store.logins !== 'object' || store.logins === null) {
    throw new UsageError(`${file} is not an expohub credentials file: remove it and run "expohub login" again`);
  }
  for (const login of Object.values(store.logins)) addSecret(login?.token);
  return store;
}

async function writeStore(store, env) {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = credentialsFile(env);
  const temporary = `${file}.${process.pid}.tmp`;
  // Created with 0600 from the start (never briefly readable), then renamed over the old file.
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(store, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

export async function storedLogin(url, env = process.env) {
  const store = await readStore(env);
  return store.logins[url];
}

export async function saveLogin(url, login, env = process.env) {
  const store = await readStore(env);
  store.logins[url] = login;
  store.current = url;
  await writeStore(store, env);
  return credentialsFile(env);
}

/** Forgets the login of `url`; true when there was one. The file goes when it holds no login. */
export async function forgetLogin(url, env = process.env) {
  const store = await readStore(env);
  if (!store.logins[url]) return false;
  delete store.logins[url];
  if (store.current === url) store.current = Object.keys(store.logins)[0] ?? null;
  if (Object.keys(store.logins).length === 0) await rm(credentialsFile(env), { force: true });
  else await writeStore(store, env);
  return true;
}

/**
 * The server of a command: `--url`, else `EXPOHUB_URL`, else the server of the last login.
 * @returns {Promise<string>}
 */
export async function resolveUrl(option, env = process.env) {
  if (option) return normalizeUrl(option, '--url');
  if (env.EXPOHUB_URL?.trim()) return normalizeUrl(env.EXPOHUB_URL, 'EXPOHUB_URL');
  const store = await readStore(env);
  if (store.current) return store.current;
  throw new UsageError('no server: pass --url URL, set EXPOHUB_URL, or sign in with "expohub login --url URL"');
}

/**
 * The credential of a command against `url`: `EXPOHUB_KEY` (an access key or a login token) when
 * set, otherwise the stored login of that very server. `kind` says which it is.
 * @returns {Promise<{ credential: string, kind: 'key' | 'token', source: string, expiresAt?: string } | undefined>}
 */
export async function resolveCredential(url, env = process.env, { loginOnly = false } = {}) {
  const fromEnv = (env.EXPOHUB_KEY ?? '').trim();
  if (fromEnv) {
    addSecret(fromEnv);
    if (/\s/.test(fromEnv)) throw new UsageError('EXPOHUB_KEY contains whitespace; it must be the key alone (ak_ followed by 32 characters)');
    const kind = fromEnv.startsWith('ak_') ? 'key' : 'token';
    if (!loginOnly || kind === 'token') return { credential: fromEnv, kind, source: 'EXPOHUB_KEY' };
  }
  const login = await storedLogin(url, env);
  if (login?.token) return { credential: login.token, kind: 'token', source: credentialsFile(env), expiresAt: login.expires_at };
  return undefined;
}
