import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The signing secret as deployed (JWT_SECRET_ARN, no JWT_SECRET), read through the Parameters and
// Secrets extension's HTTP interface from a stand-in of Secrets Manager that keeps staging labels,
// rotated by the real rotation command. The functions keep what they read for 60 s (JWT_SECRET_CACHE_SECONDS);
// the test moves `clock` past it.
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:expohub-jwt-Rot8Ab';

import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { clock } from '../../lib/platform/clock.js';
import { signingSecret } from '../../lib/platform/secrets/signing-secrets.js';
import { main as rotate } from '../../scripts/rotate-jwt-secret.js';
import { secretsManagerEnv, startSecretsManagerStandIn, type SecretsManagerCall, type StandIn } from '../support/aws-stand-ins.js';
import { hub, latestCode, newNonce, newPhone, putTestVideo, signUp } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { tokenSignedWith } from '../support/tokens.js';

/** Secrets Manager requests in the order of their version stage (AWSCURRENT before AWSPREVIOUS). */
const byStage = <T extends { versionStage?: string }>(requests: T[]) => [...requests].sort((a, b) => String(a.versionStage).localeCompare(String(b.versionStage)));

const FIRST_SECRET = 'first-signing-secret-0123456789abcdefghijklmnopqrstuv';
const CACHE_MS = 60_000;

let sm: StandIn<SecretsManagerCall>;
beforeAll(async () => {
  sm = await startSecretsManagerStandIn({ [SECRET_ARN]: FIRST_SECRET });
  Object.assign(process.env, secretsManagerEnv(sm));
});
afterAll(async () => {
  await sm?.close();
  for (const name of Object.keys(secretsManagerEnv(sm))) delete process.env[name];
});
const api = useTestStack({ http: false,
  env: { JWT_SECRET_ARN: SECRET_ARN, JWT_SECRET_CACHE_SECONDS: '60', AWS_ACCESS_KEY_ID: 'AKIDLOCALSTANDIN', AWS_SECRET_ACCESS_KEY: 'local-stand-in-secret' },
});

const quiet = { log: () => undefined, error: () => undefined };
async function currentSecretValue(): Promise<string> {
  const client = new SecretsManagerClient({ endpoint: sm.url });
  const out = await client.send(new GetSecretValueCommand({ SecretId: SECRET_ARN }));
  client.destroy();
  return out.SecretString!;
}

const me = (token: string) => api.get<{ user_id: string }>('/api/v1/me', { token });
const editCity = (who: { openid: string }, token: string) => hub(api, 'change_city', { openid: who.openid, token, city: 'Xian' });

describe('rotating the JWT signing secret (npm run rotate-jwt-secret)', () => {
  it('keeps sessions, cursors and SMS codes from before the rotation working; new tokens carry the new kid; other secrets are refused', async () => {
    const firstKid = signingSecret(FIRST_SECRET).kid;
    const user = await signUp(api);
    expect(decodeProtectedHeader(user.token).kid).toBe(firstKid);
    // A token from before kids existed, signed with the same secret.
    const legacy = await tokenSignedWith(FIRST_SECRET, user.openid);
    // A cursor of the comments export, and an SMS code in flight.
    const video = await putTestVideo(user.openid);
    for (const content of ['First look', 'Second look']) {
      expect((await hub(api, 'comment_set', { openid: user.openid, token: user.token, vid: video.vid, content })).status).toBe(200);
    }
    const page1 = await api.get<{ items: unknown[]; next_cursor: string }>('/api/v1/export/comments?limit=1', { token: user.token });
    expect(page1.data.next_cursor).toBeTruthy();
    const phone = newPhone();
    const nonce = newNonce();
    expect((await hub(api, 'gen_code', { phonenumber: phone, nonce })).status).toBe(200);
    const code = await latestCode(api, phone);

    // The rotation command against the stand-in: one PutSecretValue, a new value of the same shape.
    const puts = () => sm.received.filter((c) => c.target === 'secretsmanager.PutSecretValue');
    expect(await rotate(['--secret-id', SECRET_ARN], quiet)).toBe(0);
    expect(puts()).toHaveLength(1);
    const second = await currentSecretValue();
    expect(second).toMatch(/^[A-Za-z0-9]{64}$/);
    const secondKid = signingSecret(second).kid;
    expect(secondKid).not.toBe(firstKid);

    // The functions pick it up once their cache expires: both labels read again.
    const reads = sm.received.length;
    clock.advance(CACHE_MS + 1_000);
    expect((await me(user.token)).status).toBe(200);
    // The two labels are read in parallel: in whichever order they finish.
    expect(byStage(sm.received.slice(reads))).toEqual([
      { target: 'secretsmanager.GetSecretValue', secretId: SECRET_ARN, versionStage: 'AWSCURRENT' },
      { target: 'secretsmanager.GetSecretValue', secretId: SECRET_ARN, versionStage: 'AWSPREVIOUS' },
    ]);

    // Signed before the rotation, verified after it: the token (by the authorizer and by the hub),
    // the token without a kid, the cursor and the SMS code.
    expect((await me(user.token)).data).toMatchObject({ user_id: user.openid });
    expect((await editCity(user, user.token)).status).toBe(200);
    expect((await me(legacy)).status).toBe(200);
    const page2 = await api.get<{ items: unknown[] }>(`/api/v1/export/comments?limit=1&cursor=${encodeURIComponent(page1.data.next_cursor)}`, { token: user.token });
    expect(page2.status).toBe(200);
    expect(page2.data.items).toHaveLength(1);
    const signedIn = await hub<{ token: string; openid: string }>(api, 'create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '' });
    expect(signedIn.status).toBe(200);

    // New tokens are signed with the new secret and name it.
    const fresh = signedIn.data.token;
    expect(decodeProtectedHeader(fresh).kid).toBe(secondKid);
    await expect(jwtVerify(fresh, new TextEncoder().encode(second))).resolves.toMatchObject({ payload: { sub: signedIn.data.openid } });
    expect((await me(fresh)).status).toBe(200);

    // A secret that is neither current nor previous: refused with or without a kid, and when its
    // token claims the kid of a known secret.
    const stranger = randomBytes(48).toString('base64url');
    for (const forged of [
      await tokenSignedWith(stranger, user.openid),
      await tokenSignedWith(stranger, user.openid, signingSecret(stranger).kid),
      await tokenSignedWith(stranger, user.openid, firstKid),
      await tokenSignedWith(stranger, user.openid, secondKid),
    ]) {
      const refused = await me(forged);
      expect(refused.status).toBe(401);
      expect((await editCity(user, forged)).body).toMatchObject({ code: 'AUTH_ERROR' });
    }

    // A second rotation within a token's lifetime ends the sessions two generations old only.
    expect(await rotate(['--secret-id', SECRET_ARN], quiet)).toBe(0);
    clock.advance(CACHE_MS + 1_000);
    expect((await me(fresh)).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
    expect((await me(legacy)).status).toBe(401);
  });

  it('a container that has not yet read the new secret accepts a token naming it (reads again on an unknown kid)', async () => {
    const user = await signUp(api);
    expect(await rotate(['--secret-id', SECRET_ARN], quiet)).toBe(0);
    // Within the cache time: this container still signs with the old secret...
    clock.advance(10_000);
    const newest = await currentSecretValue();
    // ...and another container already signs with the new one.
    const fromElsewhere = await tokenSignedWith(newest, user.openid, signingSecret(newest).kid);
    expect((await me(fromElsewhere)).status).toBe(200);
    expect((await me(user.token)).status).toBe(200);
  });

  it('the rotation command: 2 without a secret id, 1 with its message when Secrets Manager refuses', async () => {
    const errors: string[] = [];
    const capture = { log: () => undefined, error: (line: string) => errors.push(line) };
    expect(await rotate([], capture, {})).toBe(2);
    expect(errors.join('\n')).toContain('missing --secret-id');
    expect(await rotate(['--secret', 'x'], capture, {})).toBe(2);
    const before = sm.received.length;
    expect(await rotate(['--secret-id', 'arn:aws:secretsmanager:us-east-1:000000000000:secret:unknown'], capture, {})).toBe(1);
    expect(errors.at(-1)).toContain('ResourceNotFoundException');
    expect(sm.received.length).toBe(before + 1);
  });
});
