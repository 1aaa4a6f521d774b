import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { getHubItem, hub, newNonce, newPhone } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { smsKeys } from '../../lib/platform/sms/codes.js';

// Its own file: it fills this file's per-IP window (every request comes from 127.0.0.1).
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
});
afterAll(async () => stack?.stop());
afterEach(() => clock.reset());

describe('gen_code per source IP', () => {
  it('allows 50 codes per IP per hour, then 429 with Retry-After until the next window', async () => {
    clock.advance(3_600_000 - (clock.now() % 3_600_000) + 1_000);
    const sent = await Promise.all(Array.from({ length: 50 }, () => hub(api, 'gen_code', { phonenumber: newPhone(), nonce: newNonce() })));
    expect(sent.map((r) => r.status)).toEqual(sent.map(() => 200));

    const phone = newPhone();
    const nonce = newNonce();
    const refused = await hub(api, 'gen_code', { phonenumber: phone, nonce });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('network') });
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(3000);
    expect(wait).toBeLessThanOrEqual(3600);
    // Refused: no code was stored for that phone, and its own limits were not touched.
    expect(await getHubItem(smsKeys.smsCode(phone, nonce))).toBeUndefined();

    clock.advance(wait * 1000);
    const next = await hub(api, 'gen_code', { phonenumber: phone, nonce });
    expect(next.status).toBe(200);
  });
});
