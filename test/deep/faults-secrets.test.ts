import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The signing secret read from Secrets Manager as deployed (JWT_SECRET_ARN, no JWT_SECRET), through
// the Parameters and Secrets extension's HTTP interface, which the stand-in also serves
// (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, set once the stand-in listens, before the first request
// reads the secret; `down` is the extension unreachable). lib/platform/config.ts is
// read once, at the first import: the environment is set before that.
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:expohub-jwt-Ab12Cd';

import { clock } from '../../lib/platform/clock.js';
import { secretsManagerEnv, startSecretsManagerStandIn, type SecretsManagerCall, type StandIn } from '../support/aws-stand-ins.js';
import { expectUnavailable } from '../support/fault-sweep.js';
import { hub, newNonce, newPhone, signUp } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';

/** Secrets Manager requests in the order of their version stage (AWSCURRENT before AWSPREVIOUS). */
const byStage = <T extends { versionStage?: string }>(requests: T[]) => [...requests].sort((a, b) => String(a.versionStage).localeCompare(String(b.versionStage)));

const SIGNING_SECRET = 'stand-in-signing-secret-0123456789abcdefghijklmnop';
/** A well-formed JWT that cannot be checked without the signing key. */
const UNCHECKED_JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1X3NvbWVvbmUifQ.c2lnbmF0dXJl';

let sm: StandIn<SecretsManagerCall>;
beforeAll(async () => {
  sm = await startSecretsManagerStandIn({ [SECRET_ARN]: SIGNING_SECRET });
  Object.assign(process.env, secretsManagerEnv(sm));
});
afterAll(async () => {
  await sm?.close();
  for (const name of Object.keys(secretsManagerEnv(sm))) delete process.env[name];
});
const api = useTestStack({ env: { JWT_SECRET_ARN: SECRET_ARN, AWS_ACCESS_KEY_ID: 'AKIDLOCALSTANDIN', AWS_SECRET_ACCESS_KEY: 'local-stand-in-secret' } });

describe('the signing secret from Secrets Manager (a local stand-in of its JSON API)', () => {
  it('at a cold start while Secrets Manager fails: 503 on every path that needs the secret, no failure kept, and the first request after recovery works', async () => {
    for (const mode of ['internal-error', 'throttled', 'down'] as const) {
      await sm.setMode(mode);
      const received = sm.received.length;
      // The hub signs SMS codes with a key derived from the secret; the authorizer and the hub's own
      // token check need it to verify any JWT: none of them may answer 401 or 500 for it. (Sent
      // together, they wait on one read of the secret.)
      const [sent, me, edit] = await Promise.all([
        hub(api, 'gen_code', { phonenumber: newPhone(), nonce: newNonce() }),
        api.get('/api/v1/me', { token: UNCHECKED_JWT }),
        hub(api, 'change_city', { openid: 'u_someone', token: UNCHECKED_JWT, city: 'Xian' }),
      ]);
      expectUnavailable(sent, `gen_code, Secrets Manager ${mode}`);
      expectUnavailable(me, `authorizer, Secrets Manager ${mode}`);
      expectUnavailable(edit, `hub token, Secrets Manager ${mode}`);
      // The failure of the mode before was not kept: the secret was asked for again.
      if (mode !== 'down') expect(sm.received.length).toBeGreaterThan(received);
    }
    // The process is alive and serving.
    expect((await api.get('/api/v1/health')).status).toBe(200);

    await sm.setMode('ok');
    const received = sm.received.length;
    const user = await signUp(api);
    const me = await api.get('/api/v1/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.data).toMatchObject({ user_id: user.openid, auth_type: 'jwt' });
    // Read once after recovery (the current version and, for tokens signed before a rotation, the
    // previous one, which this secret does not have yet), then kept for JWT_SECRET_CACHE_SECONDS.
    // The two labels are read in parallel: in whichever order they finish.
    expect(byStage(sm.received.slice(received))).toEqual([
      { target: 'secretsmanager.GetSecretValue', secretId: SECRET_ARN, versionStage: 'AWSCURRENT' },
      { target: 'secretsmanager.GetSecretValue', secretId: SECRET_ARN, versionStage: 'AWSPREVIOUS' },
    ]);
    // Signed with the secret Secrets Manager holds (not a locally generated one).
    await expect(jwtVerify(user.token, new TextEncoder().encode(SIGNING_SECRET))).resolves.toMatchObject({ payload: { sub: user.openid } });

    // A later outage does not touch a container that has the secret, not even once its cache time
    // is over (it keeps what it read and tries again a few seconds later).
    await sm.setMode('down');
    expect((await api.get('/api/v1/me', { token: user.token })).status).toBe(200);
    expect((await hub(api, 'change_city', { openid: user.openid, token: user.token, city: 'Xian' })).status).toBe(200);
    clock.advance(301_000);
    expect((await api.get('/api/v1/me', { token: user.token })).status).toBe(200);
    expect((await hub(api, 'change_city', { openid: user.openid, token: user.token, city: 'Xian' })).status).toBe(200);
    await sm.setMode('ok');
  });
});
