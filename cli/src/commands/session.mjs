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
