import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../lib/features/smoke/checks.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { runTsScript, type CliRun } from '../support/cli-run.js';
import { proxyBreaking } from '../support/broken-proxy.js';

// `npm run smoke`, run as an operator runs it after a deploy: a child process against the local
// server over HTTP (the page served from a folder, as npm start serves web/dist).
const SMOKE_TS = fileURLToPath(new URL('../../scripts/smoke.ts', import.meta.url));

let stack: Awaited<ReturnType<typeof startTestStack>>;
let key: string;
let keyId: number;

beforeAll(async () => {
  const staticDir = mkdtempSync(join(tmpdir(), 'expohub-static-'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>page</title>');
  stack = await startTestStack({ staticDir });
  const created = await apiClient(stack.url).post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: await tokenFor('smoke-owner'), body: { name: 'smoke' } });
  expect(created.status).toBe(201);
  key = created.data.api_key;
  keyId = created.data.key.id;
});
afterAll(async () => stack?.stop());

const smoke = (args: string[]) => runTsScript(SMOKE_TS, args, { ...process.env, EXPOHUB_KEY: undefined });

const checksOf = (run: CliRun) => (JSON.parse(run.stdout) as { passed: boolean; checks: CheckResult[] }).checks;

describe('npm run smoke against the local server', () => {
  it('without a key: health, the OpenAPI document, an anonymous feed page, the share page 404 and the key page pass, exit 0', async () => {
    const run = await smoke(['--url', stack.url]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe(`smoke check of ${stack.url}`);
    expect(lines.slice(1, -1)).toEqual([
      expect.stringMatching(/^ok {3}200 +\d+ ms {2}health +GET \/api\/v1\/health$/),
      expect.stringMatching(/^ok {3}200 .*openapi +GET \/api\/v1\/openapi\.json$/),
      expect.stringMatching(/^ok {3}200 .*feed +GET \/api\/v1\?do=get_next_list&openid=smoke-check&order=new&watch_count=1$/),
      expect.stringMatching(/^ok {3}404 .*share_404 +GET \/s\/0smokecheck000000000$/),
      expect.stringMatching(/^ok {3}200 .*page +GET \/$/),
    ]);
    expect(lines.at(-1)).toBe('5 checks passed');
  });

  it('with a key: verify, /me and the key usage pass too; the key is never printed', async () => {
    const run = await smoke(['--url', `${stack.url}/`, '--key', key, '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { url: string; passed: boolean; checks: CheckResult[] };
    expect(out.passed).toBe(true);
    expect(out.url).toBe(stack.url);
    expect(out.checks.map((c) => [c.name, c.status, c.ok])).toEqual([
      ['health', 200, true],
      ['openapi', 200, true],
      ['feed', 200, true],
      ['share_404', 404, true],
      ['page', 200, true],
      ['verify', 200, true],
      ['me', 200, true],
      ['usage', 200, true],
    ]);
    expect(out.checks.find((c) => c.name === 'usage')!.request).toBe(`GET /api/v1/api-keys/${keyId}/usage`);
    expect(out.checks.find((c) => c.name === 'verify')!.request).toBe('GET /api/v1/api-keys/verify?key=<key>');
    expect(run.stdout + run.stderr).not.toContain(key.slice(3));
  });

  it('a broken route fails its check and the run (exit 1), naming it; the other checks still pass', async () => {
    const proxy = await proxyBreaking(stack.url, '/api/v1');
    try {
      const text = await smoke(['--url', proxy.url, '--key', key]);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/^FAIL 500 +\d+ ms {2}feed +GET \/api\/v1\?do=get_next_list.* expected 200, got 500: broken on purpose$/m);
      expect(text.stdout.trim().split('\n').at(-1)).toBe('1 of 8 checks failed: feed');
      const json = await smoke(['--url', proxy.url, '--json']);
      expect(json.code).toBe(1);
      expect(checksOf(json).filter((c) => !c.ok).map((c) => c.name)).toEqual(['feed']);
    } finally {
      await proxy.close();
    }
  });

  it('a key that does not verify fails verify, /me and usage, without printing it', async () => {
    const unknown = `ak_${'Z'.repeat(32)}`;
    const run = await smoke(['--url', stack.url, '--key', unknown, '--json']);
    expect(run.code).toBe(1);
    expect(checksOf(run).filter((c) => !c.ok).map((c) => [c.name, c.status])).toEqual([
      ['verify', 401],
      ['me', 401],
      ['usage', null],
    ]);
    expect(run.stdout).not.toContain(unknown);
  });

  it('bad usage exits 2 with the usage: no --url, an unknown option, a malformed key; EXPOHUB_KEY stands for --key', async () => {
    for (const args of [[], ['--url', stack.url, '--verbose'], ['--url', stack.url, '--key', 'not-a-key'], ['--url', 'ftp://example.com']]) {
      const run = await smoke(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('usage: npm run smoke');
      expect(run.stdout).toBe('');
    }
    // EXPOHUB_KEY (which the expohub CLI also takes) is used when --key is not given: an access key only.
    const fromEnv = await runTsScript(SMOKE_TS, ['--url', stack.url], { ...process.env, EXPOHUB_KEY: 'eyJhbGciOiJIUzI1NiJ9.e30.sig' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('EXPOHUB_KEY must be an access key');
    const keyFromEnv = await runTsScript(SMOKE_TS, ['--url', stack.url, '--json'], { ...process.env, EXPOHUB_KEY: key });
    expect(keyFromEnv.code).toBe(0);
    expect(checksOf(keyFromEnv).map((c) => c.name)).toContain('usage');
  });
});
