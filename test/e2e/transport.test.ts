import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';
import { hub, signUp } from '../support/hub-fixtures.js';
import { ADMIN_PHONE } from '../support/constants.js';

/**
 * What the local server answers to requests that never reach a handler: paths whose percent-encoding
 * does not decode, URLs and headers past Node's limit. Always the contract's envelope with an
 * x-request-id, never a 500 or a bare status. And the three ways to delete an account, over HTTP.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  const staticDir = mkdtempSync(join(tmpdir(), 'expohub-static-'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>page</title>');
  stack = await startTestStack({ staticDir });
});
afterAll(async () => stack?.stop());

/** A raw HTTP request (fetch would normalize or refuse some of these URLs). */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const expectEnvelope400 = (res: Awaited<ReturnType<typeof raw>>, mentions: string) => {
  expect(res.status).toBe(400);
  expect(res.headers['x-request-id']).toMatch(/\S/);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(JSON.parse(res.body)).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining(mentions) });
};

describe('malformed percent-encoding in a path', () => {
  it.each([
    ['POST', '/api/v1/api-keys/%E0%A4%A/revoke'],
    ['DELETE', '/api/v1/api-keys/%ZZ'],
    ['POST', '/api/v1/admin/users/%E0%A4/roles'],
    ['GET', '/%E0%A4%A'],
  ])('%s %s is 400 in the envelope', async (method, path) => {
    expectEnvelope400(await raw(method, path, { authorization: 'Bearer whatever' }), 'percent-encoding');
  });

  it('a well-formed encoded path still reaches its handler', async () => {
    const res = await raw('DELETE', '/api/v1/api-keys/%31', {});
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'AUTH_ERROR' });
  });
});

describe('requests past the server\'s size limits', () => {
  it('a URL of 1 MB gets the envelope and a request id', async () => {
    expectEnvelope400(await raw('GET', `/api/v1?do=get_next_list&openid=x&q=${'a'.repeat(1024 * 1024)}`), 'too large');
  });

  it('headers past 16 KB get the envelope and a request id', async () => {
    expectEnvelope400(await raw('GET', '/api/v1/health', { 'x-padding': 'p'.repeat(20_000) }), 'too large');
  });

  it('a request just under the limit is served', async () => {
    const res = await raw('GET', `/api/v1?do=get_next_list&openid=x&q=${'a'.repeat(90)}&d=${'b'.repeat(20)}`);
    expect(res.status).toBe(200);
  });
});

describe('account deletion over HTTP (docs/accounts.md): the hub, REST and the administrator', () => {
  it('each answers its deletion, the tokens are refused at once, and the status page follows the erasure', async () => {
    const api = apiClient(stack.url);
    const admin = await signUp(api, ADMIN_PHONE);
    const [byHub, byRest, byAdmin] = [await signUp(api), await signUp(api), await signUp(api)];
    type Answer = { deletion: { id: string; state: string; status_url: string } };
    const answers = [
      await hub<Answer>(api, 'delete_account', { openid: byHub.openid, token: byHub.token, confirm: 'delete' }),
      await api.delete<Answer>('/api/v1/me?confirm=delete', { token: byRest.token }),
      await api.delete<Answer>(`/api/v1/admin/users/${byAdmin.openid}?confirm=delete`, { token: admin.token }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 202, 202]);
    for (const a of answers) {
      expect(a.headers.get('x-request-id')).toMatch(/\S/);
      expect(a.data.deletion.state).toBe('erasing');
    }
    for (const gone of [byHub, byRest, byAdmin]) expect((await api.get('/api/v1/me', { token: gone.token })).status).toBe(401);
    await settleStreams();
    for (const a of answers) expect((await api.get<Answer>(a.data.deletion.status_url)).data.deletion.state).toBe('erased');
  });
});
