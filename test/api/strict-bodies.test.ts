import { describe, expect, it } from 'vitest';
import { ADMIN_PHONE } from '../support/constants.js';
import { snapshotDiff, storeSnapshot } from '../support/fault-sweep.js';
import { signUp, type SignedUp } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';

// Strict JSON bodies (docs/api-keys.md, "Envelope"): a field a body does not declare is 400 naming
// it, and nothing is written. A typo must never widen what is created (a key without scopes may call
// everything).
const api = useTestStack({ http: false });

let admin: SignedUp | undefined;
let user: SignedUp | undefined;
const accounts = async () => {
  admin ??= await signUp(api, ADMIN_PHONE);
  user ??= await signUp(api);
  return { admin, user };
};

const video = { title: 'Booth tour', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60 };

const cases: { route: string; call: (a: { admin: SignedUp; user: SignedUp }, body: unknown) => ReturnType<typeof api.post>; body: Record<string, unknown>; typo: string }[] = [
  { route: 'POST /api/v1/api-keys', call: ({ user }, body) => api.post('/api/v1/api-keys', { token: user.token, body }), body: { name: 'ci', scope: ['export:read'] }, typo: 'scope' },
  {
    route: 'POST /api/v1/admin/users/{openid}/roles',
    call: ({ admin, user }, body) => api.post(`/api/v1/admin/users/${user.openid}/roles`, { token: admin.token, body }),
    body: { roles: ['editor'], role: 'admin' },
    typo: 'role',
  },
  { route: 'POST /api/v1/videos', call: ({ admin }, body) => api.post('/api/v1/videos', { token: admin.token, body }), body: { ...video, tag: ['robotics'] }, typo: 'tag' },
  {
    route: 'POST /api/v1/admin/api-keys/lookup',
    call: ({ admin }, body) => api.post('/api/v1/admin/api-keys/lookup', { token: admin.token, body }),
    body: { key: 'ak_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', revoked: true },
    typo: 'revoked',
  },
];

describe('strict JSON bodies', () => {
  it.each(cases)('$route refuses an unknown field ($typo) with 400 naming it, and writes nothing', async ({ call, body, typo }) => {
    const who = await accounts();
    const before = await storeSnapshot();
    const res = await call(who, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringMatching(new RegExp(`^Invalid parameter "${typo}": is not a field of this body; its fields are `)) });
    expect(snapshotDiff(before, await storeSnapshot())).toEqual([]);
  });

  it('names the fields a body has, so the typo can be fixed', async () => {
    const { user } = await accounts();
    const res = await api.post('/api/v1/api-keys', { token: user.token, body: { name: 'ci', scope: ['export:read'] } });
    expect(res.body).toMatchObject({ error: 'Invalid parameter "scope": is not a field of this body; its fields are name, scopes, expires_at, rate_limit_per_minute, user_id' });
  });

  it('still accepts a key create with user_id, which is ignored (the key is the caller’s)', async () => {
    const { user } = await accounts();
    const res = await api.post<{ key: { user_id: string; scopes: string[] } }>('/api/v1/api-keys', { token: user.token, body: { name: 'ci', scopes: ['export:read'], user_id: 'someone-else' } });
    expect(res.status).toBe(201);
    expect(res.data.key).toMatchObject({ user_id: user.openid, scopes: ['export:read'] });
  });
});
