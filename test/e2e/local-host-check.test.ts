import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newNonce, newPhone } from '../support/hub-fixtures.js';
import { startTestStack } from '../support/stack.js';

/**
 * The local server answers only to loopback host names (docs/web.md, "Running it locally"): a web page
 * whose host name an attacker re-points at 127.0.0.1 (DNS rebinding) sends its own name in `Host`
 * and must reach neither the SMS outbox, nor the API, nor the page.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let port: string;

beforeAll(async () => {
  const staticDir = mkdtempSync(join(tmpdir(), 'expohub-static-'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>page</title>');
  stack = await startTestStack({ staticDir });
  port = new URL(stack.url).port;
});
afterAll(async () => stack?.stop());

/** A request to the server's loopback address with the Host header given (fetch cannot set Host). */
function get(path: string, host: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'GET', path, headers: { host }, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ADMIN_SMS = `/_dev/sms?phone=${encodeURIComponent('+8613800138000')}`;
const PATHS = [ADMIN_SMS, '/api/v1/health', '/', '/index.html'];

describe('a Host that is not a loopback name', () => {
  const foreign = () => ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example`, `LOCALHOST.evil.example:${port}`, `127.0.0.2:${port}`, `localhost:${port}@evil.example`, `[::2]:${port}`, ''];

  it.each(PATHS)('gets 400 in the envelope with a request id on %s, for every foreign name', async (path) => {
    for (const host of foreign()) {
      const res = await get(path, host);
      expect(res.status, host).toBe(400);
      expect(res.headers['x-request-id'], host).toMatch(/\S/);
      expect(res.headers['content-type'], host).toMatch(/application\/json/);
      expect(JSON.parse(res.body), host).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('Invalid Host') });
      expect(res.body, host).not.toContain('messages');
    }
  });

  it('reaches no handler: a gen_code sent that way stores and sends nothing', async () => {
    const phone = newPhone();
    const query = new URLSearchParams({ do: 'gen_code', phonenumber: phone, nonce: newNonce() });
    const refused = await get(`/api/v1?${query}`, `evil.example:${port}`);
    expect(refused.status).toBe(400);
    const outbox = await get(`/_dev/sms?phone=${encodeURIComponent(phone)}`, `127.0.0.1:${port}`);
    expect(outbox.status).toBe(200);
    expect(JSON.parse(outbox.body)).toEqual({ code: 0, data: { messages: [] } });
    // The same call by a loopback name is served (so the empty outbox above means refused, not broken).
    const served = await get(`/api/v1?${query}`, `127.0.0.1:${port}`);
    expect(served.status).toBe(200);
    expect(JSON.parse((await get(`/_dev/sms?phone=${encodeURIComponent(phone)}`, `localhost:${port}`)).body).data.messages).toHaveLength(1);
  });
});

describe('loopback names', () => {
  const loopback = () => [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'localhost', `LocalHost:${port}`, `[::1]:${port}`, '[::1]', `app.localhost:${port}`];

  it.each(PATHS)('are served on %s, with or without the port, in any case', async (path) => {
    for (const host of loopback()) {
      const res = await get(path, host);
      expect(res.status, `${host} ${res.body.slice(0, 200)}`).toBe(200);
    }
  });
});
