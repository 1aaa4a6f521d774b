import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';

// Deployed, the functions get the origin secret's ARN and refuse requests that lack the secret in
// x-origin-verify (lib/transport/http/front-door.ts). Here they read it through the Parameters and Secrets
// extension's HTTP interface, from a Secrets Manager stand-in.
const ORIGIN_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:expohub-origin-Ab12Cd';

import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../lib/transport/http/origin-verify.js';
import { secretsManagerEnv, startSecretsManagerStandIn, type SecretsManagerCall, type StandIn } from '../support/aws-stand-ins.js';
import { hub, newNonce, newPhone } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { HOUR_MS, pinInsideWindow, resumeClock } from '../support/clock-windows.js';

const ORIGIN_SECRET = 'origin-secret-0123456789abcdefghijklmnopqrstuv';
const THROUGH_CLOUDFRONT = { [ORIGIN_VERIFY_HEADER]: ORIGIN_SECRET };

let sm: StandIn<SecretsManagerCall>;
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  sm = await startSecretsManagerStandIn({ [ORIGIN_SECRET_ARN]: ORIGIN_SECRET });
  Object.assign(process.env, secretsManagerEnv(sm));
  stack = await startTestStack({
    env: { ORIGIN_VERIFY_SECRET_ARN: ORIGIN_SECRET_ARN, RATE_SMS_IP_HOURLY: '2', AWS_ACCESS_KEY_ID: 'AKIDLOCALSTANDIN', AWS_SECRET_ACCESS_KEY: 'local-stand-in-secret' },
  });
  api = apiClient(stack.url);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await sm?.close();
  for (const name of Object.keys(secretsManagerEnv(sm))) delete process.env[name];
});

describe('the front door (origin secret configured)', () => {
  it('refuses API calls without the secret or with a wrong one, 403 in the envelope, and serves them with it', async () => {
    const attempts: Record<string, string>[] = [{}, { [ORIGIN_VERIFY_HEADER]: 'wrong' }, { [ORIGIN_VERIFY_HEADER]: `${ORIGIN_SECRET}x` }];
    for (const headers of attempts) {
      const res = await api.get('/api/v1/health', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
      const hubRes = await hub(api, 'gen_code', { phonenumber: newPhone(), nonce: newNonce() }, headers);
      expect(hubRes.status).toBe(403);
    }
    const ok = await api.get('/api/v1/health', { headers: THROUGH_CLOUDFRONT });
    expect(ok.status).toBe(200);
    expect(ok.data).toMatchObject({ status: 'ok' });
    expect(sm.received.every((c) => c.secretId === ORIGIN_SECRET_ARN)).toBe(true);
  });

  it('refuses the share page and the app association files without the secret (plain 403)', async () => {
    for (const path of ['/s/abcdefgh', '/.well-known/assetlinks.json']) {
      const refused = await fetch(stack.url + path);
      expect(refused.status, path).toBe(403);
      expect(await refused.text()).toBe('Forbidden');
      const served = await fetch(stack.url + path, { headers: THROUGH_CLOUDFRONT });
      expect(served.status, path).not.toBe(403);
    }
  });

  it("counts gen_code's per-IP limit by the viewer's address, not the address CloudFront connects from", async () => {
    // Every request here comes from the same socket address (as all do from a CloudFront edge).
    const from = (viewer: string) => ({ ...THROUGH_CLOUDFRONT, [VIEWER_ADDRESS_HEADER]: viewer });
    const viewerA = '203.0.113.7:50123';
    const viewerB = '[2001:db8::7]:443';
    // Viewer A's sends and refusals in one hour window, however slowly they run; the clock runs on after the test.
    pinInsideWindow(HOUR_MS, 5 * 60_000);
    onTestFinished(resumeClock);
    for (let i = 0; i < 2; i++) expect((await hub(api, 'gen_code', { phonenumber: newPhone(), nonce: newNonce() }, from(viewerA))).status).toBe(200);
    const third = await hub(api, 'gen_code', { phonenumber: newPhone(), nonce: newNonce() }, from(viewerA));
    expect(third.status).toBe(429);
    // Another viewer behind the same edge still gets a code; so does viewer A from another port.
    expect((await hub(api, 'gen_code', { phonenumber: newPhone(), nonce: newNonce() }, from(viewerB))).status).toBe(200);
    expect((await hub(api, 'gen_code', { phonenumber: newPhone(), nonce: newNonce() }, from('203.0.113.7:60000'))).status).toBe(429);
  });
});
