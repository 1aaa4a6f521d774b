import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { config } from '../../lib/platform/config.js';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { HUB_OPERATION_NAMES, hubSample, PLACEHOLDER_WORLD } from '../support/hub-operations.js';
import { hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { apiClient, startTestStack } from '../support/stack.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: SignedUp;
let editor: SignedUp;
let vid: string;

const keyOf = async (owner: SignedUp, scopes: string[]) => {
  const res = await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: owner.token, body: { name: `scoped ${scopes.join(' ')}`, scopes } });
  expect(res.status).toBe(201);
  return res.data;
};

let n = 0;
const publish = (token: string) =>
  api.post<{ video: { vid: string } }>('/api/v1/videos', {
    token,
    body: { title: `Gate test ${++n}`, video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 30 },
  });

/** One call per protected route, each returning its HTTP status, with `credential` as Bearer. */
function calls(owner: SignedUp, credential: string) {
  const hubCall = (op: string, params: Record<string, string | number>) => hub(api, op, { openid: owner.openid, ...params }, { authorization: `Bearer ${credential}` });
  return {
    'videos:write': async () => (await publish(credential)).status,
    'export:read comments': async () => (await api.get('/api/v1/export/comments', { token: credential })).status,
    'export:read accounts': async () => (await api.get('/api/v1/export/accounts', { token: credential })).status,
    'hub:read get_fav': async () => (await hubCall('get_fav', { next_id: 0, fav_index: 0, watch_list: '', view: '', q: '' })).status,
    'hub:read comment_get': async () => (await hubCall('comment_get', { vid, page: 1, d: '' })).status,
    'hub:read get_next_list': async () => (await hubCall('get_next_list', { order: 'new', d: 'gate' })).status,
    'hub:write follow_user': async () => (await hubCall('follow_user', { follow_user: admin.openid })).status,
    'hub:write change_city': async () => (await hubCall('change_city', { city: 'Shanghai' })).status,
  };
}
type Call = keyof ReturnType<typeof calls>;

async function statuses(owner: SignedUp, credential: string): Promise<Record<Call, number>> {
  const out = {} as Record<Call, number>;
  for (const [name, call] of Object.entries(calls(owner, credential))) out[name as Call] = await call();
  return out;
}

const allowedOnly = (allowed: (scope: string) => boolean): Record<Call, number> =>
  Object.fromEntries(Object.keys(calls(editor, '')).map((name) => [name, allowed(name.split(' ')[0]!) ? (name === 'videos:write' ? 201 : 200) : 403])) as Record<Call, number>;

beforeAll(async () => {
  stack = await startTestStack({ http: false, env: { ENFORCE_KEY_SCOPES: 'true' } });
  api = apiClient(stack.url);
  admin = await signUp(api, ADMIN_PHONE);
  editor = await signUp(api);
  expect((await api.post(`/api/v1/admin/users/${editor.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } })).status).toBe(200);
  const published = await publish(admin.token);
  expect(published.status).toBe(201);
  vid = published.data.video.vid;
});
afterAll(async () => stack?.stop());

describe('scope gate on (ENFORCE_KEY_SCOPES=true)', () => {
  it('is on in this file', () => {
    expect(config.ENFORCE_KEY_SCOPES).toBe(true);
  });

  it("a key scoped export:read of an editor cannot publish but still exports", async () => {
    const { api_key } = await keyOf(editor, ['export:read']);
    const res = await publish(api_key);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining('videos:write') });
    expect(await statuses(editor, api_key)).toEqual(allowedOnly((s) => s === 'export:read'));
  });

  it.each([['videos:write'], ['hub:read'], ['hub:write'], ['hub:read', 'hub:write'], ['videos:write', 'export:read']])(
    'a key scoped %s reaches exactly the endpoints of its scopes',
    async (...scopes) => {
      const { api_key } = await keyOf(editor, scopes);
      expect(await statuses(editor, api_key)).toEqual(allowedOnly((s) => scopes.includes(s)));
    },
  );

  it('a key whose scopes name nothing known is refused everywhere a scope is needed, but /me answers', async () => {
    const { api_key } = await keyOf(editor, ['read-everything']);
    expect(await statuses(editor, api_key)).toEqual(allowedOnly(() => false));
    expect((await api.get('/api/v1/me', { token: api_key })).status).toBe(200);
  });

  it('a key with no scopes may do everything', async () => {
    const { api_key } = await keyOf(editor, []);
    expect(await statuses(editor, api_key)).toEqual(allowedOnly(() => true));
  });

  it('a JWT is never scope-limited', async () => {
    expect(await statuses(editor, editor.token)).toEqual(allowedOnly(() => true));
  });

  it('the scope is checked before the body: a key without videos:write gets 403 even for a malformed body', async () => {
    const { api_key } = await keyOf(editor, ['export:read']);
    const res = await api.post('/api/v1/videos', { token: api_key, rawBody: '{"title": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(403);
  });

  it('roles still apply on top of scopes: a fully scoped key of a user without a role cannot publish', async () => {
    const nobody = await signUp(api);
    const { api_key } = await keyOf(nobody, ['videos:write']);
    expect((await publish(api_key)).status).toBe(403);
  });

  it('the admin roles route refuses keys whatever their scopes', async () => {
    for (const scopes of [[], ['videos:write', 'export:read', 'hub:read', 'hub:write']]) {
      const { api_key } = await keyOf(admin, scopes);
      const res = await api.post(`/api/v1/admin/users/${editor.openid}/roles`, { token: api_key, body: { roles: ['editor'] } });
      expect(res.status).toBe(403);
    }
  });

  it('a revoked key is refused with 401 on every protected route on the next request', async () => {
    const { api_key, key } = await keyOf(editor, []);
    expect(await statuses(editor, api_key)).toEqual(allowedOnly(() => true));
    expect((await api.post(`/api/v1/api-keys/${key.id}/revoke`, { token: editor.token })).status).toBe(200);
    const after = await statuses(editor, api_key);
    expect(after).toEqual(Object.fromEntries(Object.keys(after).map((k) => [k, 401])));
    const admin401 = await api.post(`/api/v1/admin/users/${editor.openid}/roles`, { token: api_key, body: { roles: ['editor'] } });
    expect(admin401.status).toBe(401);
  });
});

/**
 * The scope of every hub operation that takes a credential, as the contract gives it
 * (test/support/hub-operations.ts, `access`): hub:read = get_*, comment_get and my_reports,
 * hub:write = every other hub operation that takes a credential; delete_account and accept_terms
 * refuse keys whatever their scopes.
 */
const CONTRACT_HUB_SCOPES = Object.fromEntries(
  HUB_OPERATION_NAMES.map((op) => [op, hubSample(op).access] as const).filter((entry): entry is [string, 'hub:read' | 'hub:write'] => entry[1] === 'hub:read' || entry[1] === 'hub:write'),
);
const LOGIN_TOKEN_ONLY = HUB_OPERATION_NAMES.filter((op) => hubSample(op).access === 'login token only');

describe('the scope of every authenticated hub operation (docs/protected-api.md, "The scope gate")', () => {
  let readKey: string;
  let writeKey: string;
  let commentNumber = 0;
  /** Parameters that pass each operation's validation, so that the only thing left to refuse is the scope. */
  const validParams = (op: string): Record<string, string> =>
    hubSample(op).params({ vid, other: admin.openid, ownComment, unique: () => `scope table ${++commentNumber}` });
  const call = (op: string, key: string) => hub(api, op, { openid: editor.openid, ...validParams(op) }, { authorization: `Bearer ${key}` });

  let ownComment = '';
  beforeAll(async () => {
    readKey = (await keyOf(editor, ['hub:read'])).api_key;
    writeKey = (await keyOf(editor, ['hub:write'])).api_key;
    ownComment = (await hub<{ comment: { cid: string } }>(api, 'comment_set', { openid: editor.openid, vid, content: 'to delete' }, { authorization: `Bearer ${writeKey}` })).data.comment.cid;
  });

  it('the table covers exactly the hub operations that take a credential', () => {
    const authenticated = Object.entries(HUB_OPERATIONS)
      .filter(([, operation]) => operation.auth !== 'none')
      .map(([name]) => name);
    expect(authenticated.sort()).toEqual([...Object.keys(CONTRACT_HUB_SCOPES), ...LOGIN_TOKEN_ONLY].sort());
  });

  it.each(LOGIN_TOKEN_ONLY)('%s: a key gets 403 whatever its scopes', async (op) => {
    for (const key of [readKey, writeKey, (await keyOf(editor, [])).api_key]) {
      const refused = await hub(api, op, { openid: editor.openid, ...hubSample(op).params(PLACEHOLDER_WORLD) }, { authorization: `Bearer ${key}` });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining('login token') });
    }
  });

  it.each(Object.entries(CONTRACT_HUB_SCOPES))('%s: a key with only the other hub scope gets 403, a key with %s gets 200', async (op, scope) => {
    const [own, other] = scope === 'hub:read' ? [readKey, writeKey] : [writeKey, readKey];
    const refused = await call(op, other);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 'FORBIDDEN', error: expect.stringContaining(`"${scope}"`) });
    const allowed = await call(op, own);
    expect(allowed.body).toMatchObject({ code: 0 });
    expect(allowed.status).toBe(200);
  });
});
