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
    sent = await call('auth.requestCode', { phonenumber: phone, nonce }, { idempotent: false, waitWhenBusy: false });
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
      const signedIn = await call(
        'auth.signIn',
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

/**
 * Signs out of the server: the stored token's session is ended there (POST /api/v1/logout: the
 * token gets 401 everywhere from then on), then the stored login is removed. A token the server
 * already refuses (expired, ended) is only removed. When the server cannot be reached the login is
 * removed all the same and the command says that the token stays valid until it expires (exit 1).
 */
export async function logout(options, env = process.env) {
  const url = await resolveUrl(options.url, env);
  const login = await storedLogin(url, env);
  if (!login) {
    await result({ url, logged_out: false }, `Not signed in to ${url}; nothing to do.`);
    return EXIT.OK;
  }
  let ended = true;
  let failure;
  try {
    await makeClient({ base: url, credential: login.token, maxAttempts: options.maxAttempts, verbose: options.verbose })('auth.signOut', {}, { idempotent: true });
  } catch (error) {
    // 401: the token no longer works anyway (expired, or ended by a lost earlier answer).
    if (!(error instanceof RequestError && error.status === 401)) {
      ended = false;
      failure = error;
    }
  }
  await forgetLogin(url, env);
  const file = credentialsFile(env);
  if (!ended) {
    log(`Removed the token from ${file}, but the server could not end its session (${failure.message}): it stays valid until ${login.expires_at} for anyone holding a copy.`);
    await result({ url, logged_out: true, session_ended: false, token_expires_at: login.expires_at }, `Signed out of ${url} on this machine only.`);
    return EXIT.FAILED;
  }
  await result({ url, logged_out: true, session_ended: true }, `Signed out of ${url}: the session is ended on the server and the token is removed from ${file}.`);
  return EXIT.OK;
}

/** Why a command has no credential, as a failure with the exit code of an authentication error. */
export function notSignedIn(url, needsLogin = false, what = 'managing keys') {
  return new CliError(
    needsLogin
      ? `${what} needs a login token, not an access key: run "expohub login --url ${url}"`
      : `not signed in to ${url}: run "expohub login --url ${url}", or set EXPOHUB_KEY to an access key`,
    { exitCode: EXIT.AUTH, code: 'NOT_SIGNED_IN' },
  );
}
