import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { signUp } from '../support/hub-fixtures.js';
import { startPrismProxy, type PrismProxy } from '../support/prism.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { MINUTE_MS, pinInsideWindow, resumeClock } from '../support/clock-windows.js';

/**
 * Statuses the conformance test (test/e2e/conformance.test.ts) does not provoke, each answered by the
 * server through Stoplight Prism's validating proxy (`--errors`): an answer whose status the
 * document lacks is a violation Prism reports (its `sl-violations` header, or its own 500), so each
 * case below fails when a route answers a status its document does not list
 * (docs/testing.md, "The conformance test").
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let prism: PrismProxy;
beforeAll(async () => {
  stack = await startTestStack();
  prism = await startPrismProxy(`${stack.url}/api/v1/openapi.json`, stack.url);
});
afterAll(async () => {
  await prism?.stop();
  await stack?.stop();
});

interface Exchange {
  status: number;
  violations: string | null;
  problem: boolean;
  retryAfter: string | null;
}

async function throughPrism(path: string, token?: string): Promise<Exchange> {
  const res = await fetch(prism.url + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  await res.text();
  return {
    status: res.status,
    violations: res.headers.get('sl-violations'),
    problem: (res.headers.get('content-type') ?? '').startsWith('application/problem+json'),
    retryAfter: res.headers.get('retry-after'),
  };
}

/**
 * Stops the clock inside a minute for the rest of the test (the server runs in this process), so that
 * a key limited to one request a minute is refused by its second request whatever the time of the run.
 */
function inOneMinute(): void {
  pinInsideWindow(MINUTE_MS, 5_000);
  onTestFinished(resumeClock);
}

/** Calls `path` until the server answers 429 (at most `tries` times), every exchange recorded. */
async function untilRateLimited(path: string, token: string | undefined, tries = 5): Promise<Exchange[]> {
  const seen: Exchange[] = [];
  for (let i = 0; i < tries; i++) {
    const exchange = await throughPrism(path, token);
    seen.push(exchange);
    if (exchange.status === 429) break;
  }
  return seen;
}

describe('the statuses a route answers are in the document (through Prism)', () => {
  it("GET /api/v1/api-keys/verify: 429 for a key past its own per-minute limit, with Retry-After", async () => {
    const api = apiClient(stack.url);
    const user = await signUp(api);
    inOneMinute();
    const created = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: user.token, body: { name: 'limited', rate_limit_per_minute: 1 } });
    expect(created.status).toBe(201);
    const seen = await untilRateLimited(`/api/v1/api-keys/verify?key=${created.data.api_key}`, undefined);
    expect(seen.filter((e) => e.violations || e.problem)).toEqual([]);
    expect(seen.map((e) => e.status)).toEqual([200, 429]);
    expect(seen.at(-1)).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) });
  });

  it('a login-token-only route (GET /api/v1/api-keys): 429 for a limited key, which the authorizer counts before the route refuses it', async () => {
    const api = apiClient(stack.url);
    const user = await signUp(api);
    inOneMinute();
    const created = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: user.token, body: { name: 'limited', rate_limit_per_minute: 1 } });
    const seen = await untilRateLimited('/api/v1/api-keys', created.data.api_key);
    expect(seen.filter((e) => e.violations || e.problem)).toEqual([]);
    expect(seen.map((e) => e.status)).toEqual([401, 429]);
    expect(seen.at(-1)).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) });
  });
});
