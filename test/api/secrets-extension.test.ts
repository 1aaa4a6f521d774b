import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// The functions read their secrets through the AWS Parameters and Secrets Lambda Extension's HTTP
// interface (lib/platform/secrets/secrets-extension.ts): here a stand-in of it, in front of a Secrets Manager
// stand-in (test/support/aws-stand-ins.ts), with the front door on as deployed and the logs at DEBUG.

import { clock } from '../../lib/platform/clock.js';
import { ORIGIN_SECRET_MAX_AGE_SECONDS } from '../../lib/transport/http/front-door.js';
import { ORIGIN_VERIFY_HEADER } from '../../lib/transport/http/origin-verify.js';
import { readSecretString, SecretReadError } from '../../lib/platform/secrets/secrets-extension.js';
import { secretsManagerEnv, startSecretsManagerStandIn, type SecretsManagerCall, type StandIn } from '../support/aws-stand-ins.js';
import { captureOutput, type Capture } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';

const ORIGIN_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:expohub-origin-Ext9Ab';
const ORIGIN_SECRET = 'origin-secret-through-the-extension-0123456789abcdef';
const THROUGH_CLOUDFRONT = { [ORIGIN_VERIFY_HEADER]: ORIGIN_SECRET };

let sm: StandIn<SecretsManagerCall>;
let output: Capture;
beforeAll(async () => {
  sm = await startSecretsManagerStandIn({ [ORIGIN_ARN]: ORIGIN_SECRET });
  Object.assign(process.env, secretsManagerEnv(sm));
  output = captureOutput();
});
afterAll(async () => {
  output?.restore();
  await sm?.close();
  for (const name of Object.keys(secretsManagerEnv(sm))) delete process.env[name];
});
const api = useTestStack({ http: false, env: { ORIGIN_VERIFY_SECRET_ARN: ORIGIN_ARN, LOG_LEVEL: 'DEBUG', POWERTOOLS_LOG_LEVEL: 'DEBUG' } });
// Each test stops time a day after the one before: the secret a test read is stale for the next.
let day = 0;
beforeEach(() => clock.set(Date.now() + ++day * 86_400_000));
afterEach(async () => sm.setMode('ok'));

const reads = () => sm.received.filter((c) => c.secretId === ORIGIN_ARN).length;
const health = () => api.get('/api/v1/health', { headers: THROUGH_CLOUDFRONT });

describe('secrets through the Parameters and Secrets extension', () => {
  it('reads the origin secret with the session token, keeps it ORIGIN_SECRET_MAX_AGE_SECONDS, then reads it again', async () => {
    const before = reads();
    expect((await health()).status).toBe(200);
    expect((await api.get('/api/v1/health', { headers: { [ORIGIN_VERIFY_HEADER]: 'wrong' } })).status).toBe(403);
    expect(reads()).toBe(before + 1);
    clock.advance(ORIGIN_SECRET_MAX_AGE_SECONDS * 1000 - 1);
    expect((await health()).status).toBe(200);
    expect(reads()).toBe(before + 1);
    clock.advance(1);
    expect((await health()).status).toBe(200);
    expect(reads()).toBe(before + 2);
    expect(sm.received.at(-1)).toEqual({ target: 'secretsmanager.GetSecretValue', secretId: ORIGIN_ARN });
  });

  it.each(['internal-error', 'throttled', 'down'] as const)('answers 503 UNAVAILABLE with Retry-After when the read fails (%s), keeps no failure, and never logs the secret', async (mode) => {
    const from = output.rawLines.length;
    await sm.setMode(mode);
    const failed = await health();
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ code: 'UNAVAILABLE' });
    expect(failed.headers.get('retry-after')).toBe('2');
    await sm.setMode('ok');
    // The failure was not kept: the next request reads again, and is served.
    const before = reads();
    expect((await health()).status).toBe(200);
    expect(reads()).toBe(before + 1);
    const written = output.rawLines.slice(from);
    expect(written.some((line) => line.includes('origin secret unavailable'))).toBe(true);
    expect(written.filter((line) => line.includes(ORIGIN_SECRET))).toEqual([]);
  });

  it('classifies what the extension answers: an outage may pass, a refusal is a deployment error; the message never holds the value', async () => {
    await sm.setMode('internal-error');
    await expect(readSecretString(ORIGIN_ARN)).rejects.toMatchObject({ name: 'InternalServiceError', status: 500, isOutage: true });
    await sm.setMode('throttled');
    await expect(readSecretString(ORIGIN_ARN)).rejects.toMatchObject({ name: 'ThrottlingException', status: 400, isOutage: true });
    await sm.setMode('down');
    await expect(readSecretString(ORIGIN_ARN)).rejects.toMatchObject({ name: 'ExtensionUnreachable', status: undefined, isOutage: true });
    // An answer naming no Secrets Manager error (the extension still starting) may pass too.
    await sm.setMode('not-ready');
    await expect(readSecretString(ORIGIN_ARN)).rejects.toMatchObject({ name: 'SecretsExtensionError', status: 400, isOutage: true });
    await sm.setMode('ok');
    await expect(readSecretString(`${ORIGIN_ARN}-unknown`)).rejects.toMatchObject({ name: 'ResourceNotFoundException', status: 400, isOutage: false });
    await expect(readSecretString(ORIGIN_ARN, 'AWSPREVIOUS')).rejects.toBeInstanceOf(SecretReadError);
    // Without the execution environment's session token the extension refuses.
    const token = process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_SESSION_TOKEN;
    try {
      await expect(readSecretString(ORIGIN_ARN)).rejects.toMatchObject({ status: 401, isOutage: false });
    } finally {
      process.env.AWS_SESSION_TOKEN = token;
    }
    await expect(readSecretString(ORIGIN_ARN)).resolves.toBe(ORIGIN_SECRET);
    await expect(readSecretString(ORIGIN_ARN, 'AWSCURRENT')).resolves.toBe(ORIGIN_SECRET);
  });
});
