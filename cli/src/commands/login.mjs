// expohub login / logout: phone + SMS code, the token kept in the user's config directory (0600).
import { randomBytes } from 'node:crypto';
import process from 'node:process';
import { credentialsFile, forgetLogin, resolveUrl, saveLogin, storedLogin } from '../config.mjs';
import { makeClient, RequestError } from '../http.mjs';
import { addSecret, CliError, EXIT, log, result, UsageError } from '../output.mjs';
import { required } from '../prompt.mjs';

const CODE_ATTEMPTS_ON_A_TERMINAL = 3;

/**
 * gen_code, then the code from the terminal (or the next line of stdin), then create_phone_account.
 * A previous login to the same server is passed as openid0/token0, so the server ends that session.
 */
export async function login(options, env = process.env) {
  const named = options.url || env.EXPOHUB_URL?.trim();
  // Without --url or EXPOHUB_URL: the server of the last login, if there was one.
  const url = named
    ? await resolveUrl(options.url, env)
    : await resolveUrl(undefined, env).catch(() => {
        throw new UsageError('login needs a server: expohub login --url https://api.example.com (or set EXPOHUB_URL)');
      });
  const interactive = Boolean(process.stdin.isTTY);
  const phone = options.phone?.trim() || (interactive ? await required('Phone number (E.164, e.g. +8613800138000): ', 'phone number') : undefined);
  if (!phone) throw new UsageError('login needs --phone when stdin is not a terminal (the SMS code is then read from stdin)');

  const call = makeClient({ base: url, maxAttempts: options.maxAttempts, verbose: options.verbose });
  const nonce = randomBytes(18).toString('base64url');
  addSecret(nonce);
  let sent;
  try {
    sent = await call.hub('gen_code', { phonenumber: phone, nonce }, { idempotent: false, waitWhenBusy: false });
  } catch (error) {
    if (error instanceof RequestError && error.status === 429) {
      throw new RequestError(429, error.code, `${error.message}${error.retryAfter ? ` (try again in ${error.retryAfter} s)` : ''}`);
    }
    throw error;
  }
  log(`A 6-digit code was sent to ${phone}; it is valid for ${Math.round((sent?.expires_in ?? 300) / 60)} minutes.`);

  const previous = await storedLogin(url, env);
  const attempts = interactive ? CODE_ATTEMPTS_ON_A_TERMINAL : 1;
  for (let attempt = 1; ; attempt++) {
    const code = await required('Code: ', 'SMS code');
    addSecret(code);
    try {
      const signedIn = await call.hub(
        'create_phone_account',
        { openid: phone, token: nonce, code, openid0: previous?.openid ?? '', token0: previous?.token ?? '' },
        { idempotent: false, waitWhenBusy: false },
      );
      addSecret(signedIn.token);
      const file = await saveLogin(url, { token: signedIn.token, openid: signedIn.openid, expires_at: signedIn.expires_at, saved_at: new Date().toISOString() }, env);
      const summary = { url, openid: signedIn.openid, new_account: signedIn.new_account, expires_at: signedIn.expires_at, credentials_file: file };
      await result(
        summary,
        `Signed in to ${url} as ${signedIn.openid}${signedIn.new_account ? ' (a new account)' : ''}. The token is saved in ${file} (mode 600) and expires ${signedIn.expires_at}.`,
      );
      return EXIT.OK;
    } catch (error) {
      const wrongCode = error instanceof RequestError && error.status === 401;
      if (wrongCode && attempt < attempts) {
        log(`${error.message}. Try again (${attempts - attempt} more ${attempts - attempt === 1 ? 'try' : 'tries'}).`);
        continue;
      }
      if (wrongCode) throw new RequestError(401, error.code, `${error.message}: not signed in`);
      throw error;
    }
  }
}

/** Forgets the stored login of the server. The token itself stays valid until it expires. */
export async function logout(options, env = process.env) {
  const url = await resolveUrl(options.url, env);
  const login = await storedLogin(url, env);
  const removed = await forgetLogin(url, env);
  const summary = { url, logged_out: removed, ...(login?.expires_at ? { token_expires_at: login.expires_at } : {}) };
  if (!removed) {
    await result(summary, `Not signed in to ${url}; nothing to do.`);
    return EXIT.OK;
  }
  await result(
    summary,
    `Signed out of ${url}: the token is removed from ${credentialsFile(env)}. ` +
      `It stays valid until ${login.expires_at} for anyone holding a copy; signing in again on the same server ends it.`,
  );
  return EXIT.OK;
}

/** Why a command has no credential, as a failure with the exit code of an authentication error. */
export function notSignedIn(url, needsLogin = false) {
  return new CliError(
    needsLogin
      ? `managing keys needs a login token, not an access key: run "expohub login --url ${url}"`
      : `not signed in to ${url}: run "expohub login --url ${url}", or set EXPOHUB_KEY to an access key`,
    { exitCode: EXIT.AUTH, code: 'NOT_SIGNED_IN' },
  );
}
