// The client of publish, export and whoami: EXPOHUB_KEY (an access key or a login token) when set,
// otherwise the stored login of the server.
import process from 'node:process';
import { resolveCredential, resolveUrl } from '../config.mjs';
import { makeClient } from '../http.mjs';
import { notSignedIn } from './login.mjs';

export async function apiClient(options, env = process.env) {
  const url = await resolveUrl(options.url, env);
  const credential = await resolveCredential(url, env);
  if (!credential) throw notSignedIn(url);
  return { url, call: makeClient({ base: url, credential: credential.credential, maxAttempts: options.maxAttempts, verbose: options.verbose }) };
}

/**
 * The client of the commands the API takes a login token for (keys ..., account ...: an access key
 * is refused there): the stored login, or EXPOHUB_KEY only when it holds a login token. `what` the
 * command does, for the message when there is none.
 */
export async function loginClient(options, env = process.env, what = 'managing keys') {
  const url = await resolveUrl(options.url, env);
  const credential = await resolveCredential(url, env, { loginOnly: true });
  if (!credential) throw notSignedIn(url, Boolean(env.EXPOHUB_KEY?.trim()), what);
  return { url, call: makeClient({ base: url, credential: credential.credential, maxAttempts: options.maxAttempts, verbose: options.verbose }) };
}
