import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from '../../lib/platform/zod.js';
import { REFERENCE_PAGE_CSP } from '../../lib/transport/openapi/reference-page.js';
import { ROUTE_DOCS } from '../../lib/transport/routes/index.js';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { HUB_OPERATION_NAMES, hubSample } from '../support/hub-operations.js';
import { hub, latestCode, newNonce, newPhone, putTestVideo, signUp } from '../support/hub-fixtures.js';
import { apiClient, startTestStack, type ApiResponse } from '../support/stack.js';

/**
 * The served description (README.md, "API reference") and the documented answers checked against real ones: the
 * answers of a sample of routes and `do` operations validate against the schemas the document was
 * generated from, so a response that drifts from the document fails here.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  stack = await startTestStack();
  api = apiClient(stack.url);
});
afterAll(async () => stack?.stop());
const ROOT = join(import.meta.dirname, '../..');

const dataSchema = (route: string): z.ZodMiniType => {
  const success = ROUTE_DOCS[route]!.success;
  if (success.kind !== 'json') throw new Error(`${route} has no JSON answer`);
  return success.data;
};

/** The answer is a success and its `data` validates against the documented schema. */
function expectDocumented(res: ApiResponse, schema: z.ZodMiniType, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const parsed = schema.safeParse(res.data);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
}

describe('GET /api/v1/openapi.json and GET /api/v1/docs', () => {
  it('serves the generated document, without a credential', async () => {
    const res = await fetch(`${stack.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toEqual(JSON.parse(readFileSync(join(ROOT, 'lib/transport/openapi/generated/openapi.json'), 'utf8')));
  });

  it('serves the reference page, HTML under a strict CSP', async () => {
    const res = await fetch(`${stack.url}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(REFERENCE_PAGE_CSP);
    const html = await res.text();
    expect(html).toContain('id="do-get_next_list"');
    expect(html).toContain('<code>/api/v1/api-keys/{id}/revoke</code>');
  });
});

describe('Spectral (spectral:oas, the repository\'s .spectral.yaml)', () => {
  it('reports no error and no warning on the generated document', async () => {
    const spectral = join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
    const args = [spectral, 'lint', join(ROOT, 'lib/transport/openapi/generated/openapi.json'), '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--fail-severity', 'hint', '--quiet'];
    // Exit code 1 with the findings as JSON when there are any.
    const output = await promisify(execFile)(process.execPath, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    const findings = (JSON.parse(output.trim() || '[]') as { code: string; message: string; path: string[]; severity: number }[]).map((f) => `${f.code}: ${f.message} at ${f.path.join('.')}`);
    expect(findings).toEqual([]);
  });
});

describe('real answers match the documented schemas', () => {
  it('the service, the key routes and /me', async () => {
    expectDocumented(await api.get('/api/v1/health'), dataSchema('GET /api/v1/health'));
    const user = await signUp(api);
    const created = await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: user.token, body: { name: 'docs', scopes: ['export:read'] } });
    expectDocumented(created, dataSchema('POST /api/v1/api-keys'), 201);
    expectDocumented(await api.get('/api/v1/api-keys', { token: user.token }), dataSchema('GET /api/v1/api-keys'));
    expectDocumented(await api.get(`/api/v1/api-keys/verify?key=${created.data.api_key}`), dataSchema('GET /api/v1/api-keys/verify'));
    expectDocumented(await api.get('/api/v1/me', { token: created.data.api_key }), dataSchema('GET /api/v1/me'));
    expectDocumented(await api.get('/api/v1/me/data', { token: user.token }), dataSchema('GET /api/v1/me/data'));
    expectDocumented(await api.get('/api/v1/export/comments?limit=5', { token: user.token }), dataSchema('GET /api/v1/export/comments'));
    expectDocumented(await api.get('/api/v1/export/accounts?limit=5', { token: user.token }), dataSchema('GET /api/v1/export/accounts'));
    expectDocumented(await api.post(`/api/v1/api-keys/${created.data.key.id}/revoke`, { token: user.token }), dataSchema('POST /api/v1/api-keys/{id}/revoke'));
    expectDocumented(await api.delete(`/api/v1/api-keys/${created.data.key.id}`, { token: user.token }), dataSchema('DELETE /api/v1/api-keys/{id}'));
  });

  it('every hub operation', async () => {
    const phone = newPhone();
    const nonce = newNonce();
    expectDocumented(await hub(api, 'gen_code', { phonenumber: phone, nonce }), HUB_OPERATIONS.gen_code!.data);
    const signIn = { openid: phone, token: nonce, code: await latestCode(api, phone), openid0: '', token0: '' };
    expectDocumented(await hub(api, 'create_phone_account', signIn), HUB_OPERATIONS.create_phone_account!.data);
    const user = await signUp(api);
    const other = await signUp(api);
    const video = await putTestVideo(other.openid);
    const as = { openid: user.openid, token: user.token };
    const check = async (op: string, params: Record<string, string>) => expectDocumented(await hub(api, op, params), HUB_OPERATIONS[op]!.data);
    const posted = await hub<{ comment: { cid: string } }>(api, 'comment_set', { ...as, vid: video.vid, content: 'to delete' });
    let n = 0;
    const world = { vid: video.vid, other: other.openid, ownComment: posted.data.comment.cid, unique: () => String(++n) };
    // Every other operation, in the order of lib/transport/hub/operations.ts (the sign-up steps above, with a real code).
    for (const op of HUB_OPERATION_NAMES.filter((name) => name !== 'gen_code' && name !== 'create_phone_account')) {
      const sample = hubSample(op);
      const caller = sample.endsAccount ? await signUp(api) : user;
      await check(op, { openid: caller.openid, token: caller.token, ...sample.params(world) });
    }
    await check('sharetext', { openid: user.openid, vid: video.vid, d: '', locale: 'en', country: '' });
    await check('get_follower', { ...as, watch_list: other.openid, offset: '0' });
    await check('get_fav', { ...as, next_id: '0', fav_index: '0', watch_list: 'like', view: other.openid, q: '' });
    await check('change_signature', { ...as, signature: '' });
  });
});
