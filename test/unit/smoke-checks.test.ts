import { describe, expect, it } from 'vitest';
import { runSmokeChecks, scrub, VERDICTS } from '../../lib/features/smoke/checks.js';

// The verdicts of lib/features/smoke/checks.ts on answers a deployment can give; the whole run against a real
// server is test/e2e/smoke.test.ts.
const KEY = `ak_${'a1B2'.repeat(8)}`;
const answer = (status: number, body: unknown, contentType = 'application/json') => ({
  status,
  contentType,
  text: typeof body === 'string' ? body : JSON.stringify(body),
  location: null,
});

describe('smoke check verdicts', () => {
  it('health wants 200 and the envelope with status ok', () => {
    expect(VERDICTS.health(answer(200, { code: 0, data: { status: 'ok' } }))).toBeUndefined();
    expect(VERDICTS.health(answer(200, { status: 'ok' }))).toBe('expected the envelope {"code":0,"data":...}');
    expect(VERDICTS.health(answer(503, { code: 'UNAVAILABLE', error: 'retry' }))).toBe('expected 200, got 503: retry');
    expect(VERDICTS.health(answer(200, '<html>', 'text/html'))).toBe('expected the envelope {"code":0,"data":...}');
  });

  it('openapi wants an OpenAPI 3 document with paths', () => {
    expect(VERDICTS.openapi(answer(200, { openapi: '3.1.0', paths: { '/a': {} } }))).toBeUndefined();
    expect(VERDICTS.openapi(answer(200, { swagger: '2.0', paths: { '/a': {} } }))).toBe('expected an OpenAPI 3 document');
    expect(VERDICTS.openapi(answer(200, { openapi: '3.1.0', paths: {} }))).toBe('expected an OpenAPI document with paths');
  });

  it('the pages want their status and text/html', () => {
    expect(VERDICTS.share_404(answer(404, '<!doctype html>', 'text/html; charset=utf-8'))).toBeUndefined();
    expect(VERDICTS.share_404(answer(404, { code: 'NOT_FOUND' }))).toBe('expected text/html, got application/json');
    expect(VERDICTS.page(answer(403, '<html>', 'text/html'))).toBe('expected 200, got 403');
  });

  it('me wants an access key with its id; usage 30 days', () => {
    expect(VERDICTS.me(answer(200, { code: 0, data: { auth_type: 'api_key', key_id: 3 } }))).toBeUndefined();
    expect(VERDICTS.me(answer(200, { code: 0, data: { auth_type: 'jwt' } }))).toBe('expected auth_type "api_key"');
    expect(VERDICTS.usage(answer(200, { code: 0, data: { days: Array.from({ length: 29 }, () => ({})) } }))).toBe('expected data.days, 30 days');
  });

  it('scrubs the key and anything shaped like a key or a JWT from a reason', () => {
    expect(scrub(`bad ${KEY} and ak_ZZZZZZZZZZZZ and eyJhbGciOi.eyJzdWIi.c2ln`, KEY)).toBe('bad <key> and <redacted> and <redacted>');
  });
});

describe('runSmokeChecks', () => {
  it('does not follow a redirect: the check fails naming where it points', async () => {
    const results = await runSmokeChecks({
      baseUrl: 'http://hub.example.com',
      fetch: async (_url, init) => {
        expect(init?.redirect).toBe('manual');
        return new Response(null, { status: 301, headers: { location: 'https://hub.example.com/api/v1/health' } });
      },
    });
    expect(results).toHaveLength(5);
    expect(results[0]).toMatchObject({ name: 'health', status: 301, ok: false, reason: 'redirected (301) to https://hub.example.com/api/v1/health: redirects are not followed' });
  });

  it('a check without an answer in time fails with status null; usage does not run when /me fails; the key is in no result', async () => {
    const results = await runSmokeChecks({
      baseUrl: 'http://hub.example.com',
      key: KEY,
      timeoutMs: 50,
      // What fetch rejects with when the per-check signal (AbortSignal.timeout) fires, without waiting for it.
      fetch: async (_url, init) => {
        expect(init?.signal).toBeInstanceOf(AbortSignal);
        throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      },
    });
    expect(results.map((r) => [r.name, r.status, r.ok])).toEqual([
      ['health', null, false],
      ['openapi', null, false],
      ['feed', null, false],
      ['share_404', null, false],
      ['page', null, false],
      ['verify', null, false],
      ['me', null, false],
      ['usage', null, false],
    ]);
    expect(results[0]!.reason).toBe('no answer within 50 ms');
    expect(results[7]!.reason).toBe('not run: /me did not name the key id');
    expect(JSON.stringify(results)).not.toContain(KEY.slice(3));
  });
});
