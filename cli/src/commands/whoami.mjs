// expohub whoami: who the credential is (GET /api/v1/me).
import { EXIT, result, UsageError } from '../output.mjs';
import { apiClient } from './session.mjs';

export async function whoami(args, options) {
  if (args.length !== 0) throw new UsageError('whoami takes no arguments');
  const { url, call } = await apiClient(options);
  const me = await call('me.get');
  const what = me.auth_type === 'api_key' ? `an access key (scopes: ${me.scopes.length ? me.scopes.join(', ') : 'all'})` : 'a login token';
  await result({ url, ...me }, `${me.user_id} on ${url}, with ${what}; roles: ${me.roles.length ? me.roles.join(', ') : 'none'}`);
  return EXIT.OK;
}
