import { afterAll, beforeAll, describe, expect, it } from 'vitest';


import { clock } from '../../lib/platform/clock.js';
import { getAccount } from '../../lib/entities/accounts/accounts.js';
import { signUp, type SignedUp } from '../support/hub-fixtures.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: SignedUp;
let user: SignedUp;
let adminKey: string;

const setRoles = (token: string | undefined, openid: string, body: unknown) =>
  api.post<{ openid: string; roles: string[] }>(`/api/v1/admin/users/${encodeURIComponent(openid)}/roles`, { token, body });
const storedRoles = async (openid: string) => (await getAccount(openid, true))?.roles;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  admin = await signUp(api, ADMIN_PHONE);
  user = await signUp(api);
  const created = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: admin.token, body: { name: 'admin pipeline' } });
  expect(created.status).toBe(201);
  adminKey = created.data.api_key;
});
afterAll(async () => stack?.stop());

describe('POST /api/v1/admin/users/{openid}/roles', () => {
  it('an ADMIN_PHONES account signs up with the admin role in its JWT', async () => {
    const me = await api.get('/api/v1/me', { token: admin.token });
    expect(me.data).toEqual({ user_id: admin.openid, auth_type: 'jwt', scopes: [], roles: ['admin'], terms: expect.objectContaining({ accepted_version: null }) });
    expect(await storedRoles(admin.openid)).toEqual(['admin']);
  });

  it('an admin JWT sets the stored roles, dropping duplicates', async () => {
    const res = await setRoles(admin.token, user.openid, { roles: ['editor', 'editor'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, data: { openid: user.openid, roles: ['editor'] } });
    expect(await storedRoles(user.openid)).toEqual(['editor']);

    const both = await setRoles(admin.token, user.openid, { roles: ['admin', 'editor'] });
    expect(both.data.roles).toEqual(['admin', 'editor']);
    expect(await storedRoles(user.openid)).toEqual(['admin', 'editor']);

    const none = await setRoles(admin.token, user.openid, { roles: [] });
    expect(none.data).toEqual({ openid: user.openid, roles: [] });
    expect(await storedRoles(user.openid)).toEqual([]);
  });

  it('the new roles reach the next login token of that account', async () => {
    expect((await setRoles(admin.token, user.openid, { roles: ['editor'] })).status).toBe(200);
    clock.advance(61_000); // one SMS code per phone per minute
    try {
      const again = await signUp(api, user.phone);
      expect(again.openid).toBe(user.openid);
      const me = await api.get('/api/v1/me', { token: again.token });
      expect(me.data).toMatchObject({ user_id: user.openid, roles: ['editor'] });
    } finally {
      clock.reset();
    }
  });

  it("refuses an access key with 403 even when the key's owner is an admin", async () => {
    const before = await storedRoles(user.openid);
    const res = await setRoles(adminKey, user.openid, { roles: ['admin'] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining('access key') });
    expect(await storedRoles(user.openid)).toEqual(before);
    // The key itself is fine: it authenticates elsewhere.
    expect((await api.get('/api/v1/me', { token: adminKey })).status).toBe(200);
  });

  it('refuses a JWT without the admin role with 403, even for its own account', async () => {
    const before = await storedRoles(user.openid);
    for (const target of [user.openid, admin.openid]) {
      const res = await setRoles(user.token, target, { roles: ['admin'] });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
    }
    expect(await storedRoles(user.openid)).toEqual(before);
    expect(await storedRoles(admin.openid)).toEqual(['admin']);
  });

  it('authorizes by the request-context roles as well: an account whose stored roles hold admin, with a JWT whose roles claim does not, is 403', async () => {
    const promoted = await signUp(api);
    expect((await setRoles(admin.token, promoted.openid, { roles: ['admin'] })).status).toBe(200);
    expect(await storedRoles(promoted.openid)).toEqual(['admin']);
    // promoted.token was issued at sign-up, before the promotion: its roles claim is empty.
    const res = await setRoles(promoted.token, user.openid, { roles: ['admin'] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining('admin role') });
    expect(await storedRoles(user.openid)).not.toContain('admin');
  });

  it('a removed admin role stops working on the next request: the demoted admin can neither re-grant itself nor suspend an admin, and its old token stays without the role after a new grant', async () => {
    const former = await signUp(api);
    expect((await setRoles(admin.token, former.openid, { roles: ['admin'] })).status).toBe(200);
    clock.advance(61_000); // one SMS code per phone per minute
    try {
      const signedInAsAdmin = await signUp(api, former.phone);
      expect((await api.get('/api/v1/me', { token: signedInAsAdmin.token })).data).toMatchObject({ roles: ['admin'] });
      expect((await setRoles(admin.token, former.openid, { roles: [] })).status).toBe(200);
      expect(await storedRoles(former.openid)).toEqual([]);

      // The token still names admin; the request may use only what the account holds now.
      expect((await api.get('/api/v1/me', { token: signedInAsAdmin.token })).data).toMatchObject({ roles: [] });
      const regrant = await setRoles(signedInAsAdmin.token, former.openid, { roles: ['admin'] });
      expect(regrant.status).toBe(403);
      expect(await storedRoles(former.openid)).toEqual([]);
      const suspend = await api.post(`/api/v1/admin/users/${encodeURIComponent(admin.openid)}/suspend`, { token: signedInAsAdmin.token });
      expect(suspend.status).toBe(403);
      expect((await api.get('/api/v1/me', { token: admin.token })).status).toBe(200);
      // A token minted for the account with the claim alone (no stored role) is refused the same way.
      expect((await setRoles(await tokenFor(former.openid, ['admin']), user.openid, { roles: ['admin'] })).status).toBe(403);
      expect(await storedRoles(user.openid)).not.toContain('admin');

      // Granted again: a token issued before the removal never regains the role; one issued after does.
      expect((await setRoles(admin.token, former.openid, { roles: ['admin'] })).status).toBe(200);
      expect((await setRoles(signedInAsAdmin.token, user.openid, { roles: ['editor'] })).status).toBe(403);
      clock.advance(1_000);
      const fresh = await tokenFor(former.openid, ['admin']);
      expect((await setRoles(fresh, user.openid, { roles: ['editor'] })).status).toBe(200);
      expect(await storedRoles(user.openid)).toEqual(['editor']);
      expect((await setRoles(fresh, user.openid, { roles: [] })).status).toBe(200);
    } finally {
      clock.reset();
    }
  });

  it('answers 401 without a credential or with a revoked key', async () => {
    const created = await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: admin.token, body: { name: 'to revoke' } });
    expect((await api.post(`/api/v1/api-keys/${created.data.key.id}/revoke`, { token: admin.token })).status).toBe(200);
    for (const token of [undefined, 'not-a-token', created.data.api_key]) {
      const res = await setRoles(token, user.openid, { roles: ['admin'] });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    }
  });

  it('answers 404 for an unknown account and creates nothing', async () => {
    const res = await setRoles(admin.token, 'u_doesnotexist', { roles: ['editor'] });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    expect(await getAccount('u_doesnotexist', true)).toBeUndefined();
  });

  it.each([
    ['an unknown role', { roles: ['editor', 'superuser'] }],
    ['a role that is not a string', { roles: [1] }],
    ['roles that are not an array', { roles: 'editor' }],
    ['missing roles', {}],
    ['a JSON array body', ['editor']],
  ])('answers 400 naming roles for %s and changes nothing', async (_label, body) => {
    expect((await setRoles(admin.token, user.openid, { roles: ['editor'] })).status).toBe(200);
    const res = await setRoles(admin.token, user.openid, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    if (!Array.isArray(body)) expect((res.body as { error: string }).error).toContain('roles');
    expect(await storedRoles(user.openid)).toEqual(['editor']);
  });

  it('answers 400 for a malformed JSON body', async () => {
    const res = await api.post(`/api/v1/admin/users/${user.openid}/roles`, {
      token: admin.token,
      rawBody: '{"roles": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
