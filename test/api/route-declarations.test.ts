import { describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../lib/transport/http/routes.js';
import { ROUTES } from '../../lib/transport/routes/index.js';
import { putTestAccounts, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack, type ApiResponse } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';

/**
 * Every route answers as its route module (lib/transport/routes/) declares (docs/protected-api.md, "Who may do what"): a
 * function whose behaviour and declaration disagree (a use case that refuses what the route admits,
 * a handler that does not read its declaration, a declaration the stack ignores) fails here. The
 * scope gate is on, so a declared scope is checked too. "Admitted" means the credential got past
 * authorization: the use case may still answer 400 or 404 for the placeholder path and body.
 */
const api = useTestStack({ http: false, env: { ENFORCE_KEY_SCOPES: 'true' } });

const PLACEHOLDERS: Record<string, string> = { id: '999999', openid: 'u_nobody', shareid: 'nosuchshare1' };
const pathOf = (route: RouteSpec) => route.path.replace(/\{(\w+)\}/g, (_, name: string) => PLACEHOLDERS[name]!);

let fixtures: { user: TestAccount; admin: TestAccount; moderator: TestAccount; userKey: string; adminKey: string; scopedKey: (scope: string) => Promise<string> } | undefined;
async function credentials() {
  if (fixtures) return fixtures;
  // The user is an editor: publishing also needs a stored role (the use case's check, not the route's).
  const [user, admin, moderator] = (await putTestAccounts(1, ['editor'])).concat(await putTestAccounts(1, ['admin']), await putTestAccounts(1, ['moderator'])) as [TestAccount, TestAccount, TestAccount];
  const keyOf = async (owner: TestAccount, scopes: string[]) => {
    const res = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: owner.token, body: { name: 'declared', scopes } });
    expect(res.status).toBe(201);
    return res.data.api_key;
  };
  fixtures = { user, admin, moderator, userKey: await keyOf(user, []), adminKey: await keyOf(admin, []), scopedKey: (scope) => keyOf(user, [scope]) };
  return fixtures;
}

function call(route: RouteSpec, credential?: string): Promise<ApiResponse> {
  const options = { token: credential, ...(route.body === 'json' ? { body: {} } : {}) };
  const path = pathOf(route);
  if (route.method === 'GET') return api.get(path, options);
  if (route.method === 'DELETE') return api.delete(path, options);
  return api.post(path, options);
}

const admitted = (res: ApiResponse) => ![401, 403].includes(res.status);
const codeOf = (res: ApiResponse) => (res.body as { code?: unknown } | undefined)?.code ?? null;

describe.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_, route) => {
  it(`answers as declared: ${route.auth}${route.scope ? `, scope ${route.scope}` : ''}`, async () => {
    const { user, admin, moderator, userKey, adminKey, scopedKey } = await credentials();
    if (route.auth === 'none') {
      // No authorizer: a credential changes nothing (not even a bad one).
      const [without, withBad] = [await call(route), await call(route, 'not-a-credential')];
      expect([withBad.status, codeOf(withBad)]).toEqual([without.status, codeOf(without)]);
      expect(without.status).not.toBe(403);
      return;
    }
    expect((await call(route)).status, 'no credential').toBe(401);
    expect((await call(route, 'not-a-credential')).status, 'a bad credential').toBe(401);
    // A fresh login token for each call: the sign-out route ends the one it is sent.
    const tokenOf = (who: TestAccount, roles: string[] = []) => tokenFor(who.openid, roles);
    const asUser = await call(route, await tokenOf(user));
    const asKey = await call(route, userKey);
    if (route.auth === 'jwt') {
      expect(admitted(asUser), `a login token: ${asUser.status}`).toBe(true);
      expect(asKey.status, 'an access key').toBe(401);
    } else if (route.auth === 'either') {
      expect(admitted(asUser), `a login token: ${asUser.status}`).toBe(true);
      expect(admitted(asKey), `an access key with every scope: ${asKey.status}`).toBe(true);
    } else if (route.auth === 'admin') {
      expect(asUser.status, 'a login token without the admin role').toBe(403);
      expect((await call(route, adminKey)).status, "an administrator's access key").toBe(403);
      const asAdmin = await call(route, await tokenOf(admin, ['admin']));
      expect(admitted(asAdmin), `an administrator's login token: ${asAdmin.status}`).toBe(true);
    } else if (route.auth === 'moderator') {
      expect(asUser.status, 'a login token without the moderator or admin role').toBe(403);
      expect((await call(route, adminKey)).status, "an administrator's access key").toBe(403);
      const asModerator = await call(route, await tokenOf(moderator, ['moderator']));
      expect(admitted(asModerator), `a moderator's login token: ${asModerator.status}`).toBe(true);
      const asAdmin = await call(route, await tokenOf(admin, ['admin']));
      expect(admitted(asAdmin), `an administrator's login token: ${asAdmin.status}`).toBe(true);
    } else {
      expect(asUser.status, 'a login token').toBe(401);
      expect(admitted(asKey), `an access key: ${asKey.status}`).toBe(true);
    }
    if (route.scope) {
      const other = route.scope === 'export:read' ? 'videos:write' : 'export:read';
      expect((await call(route, await scopedKey(other))).status, `a key with only ${other}`).toBe(403);
      expect(admitted(await call(route, await scopedKey(route.scope))), `a key with ${route.scope}`).toBe(true);
    }
  });
});
