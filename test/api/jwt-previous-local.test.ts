import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';

// Locally the rotation is two settings: JWT_SECRET (current) and JWT_SECRET_PREVIOUS.
const SECRETS = { previous: `previous-${'p'.repeat(40)}`, current: `current-${'c'.repeat(40)}` };

import { signingSecret } from '../../lib/platform/secrets/signing-secrets.js';
import { signUp } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { tokenSignedWith } from '../support/tokens.js';

const api = useTestStack({ http: false, env: { JWT_SECRET: SECRETS.current, JWT_SECRET_PREVIOUS: SECRETS.previous } });

describe('JWT_SECRET_PREVIOUS (local)', () => {
  it('signs with JWT_SECRET, accepts what JWT_SECRET_PREVIOUS signed (with or without its kid), refuses any other secret', async () => {
    const user = await signUp(api);
    expect(decodeProtectedHeader(user.token).kid).toBe(signingSecret(SECRETS.current).kid);
    const me = (token: string) => api.get('/api/v1/me', { token });
    expect((await me(user.token)).status).toBe(200);
    expect((await me(await tokenSignedWith(SECRETS.previous, user.openid, signingSecret(SECRETS.previous).kid))).status).toBe(200);
    expect((await me(await tokenSignedWith(SECRETS.previous, user.openid))).status).toBe(200);
    const other = randomBytes(48).toString('base64url');
    expect((await me(await tokenSignedWith(other, user.openid))).status).toBe(401);
    expect((await me(await tokenSignedWith(other, user.openid, signingSecret(SECRETS.previous).kid))).status).toBe(401);
    // The kid names the secret without revealing it.
    expect(JSON.stringify(decodeProtectedHeader(user.token))).not.toContain(SECRETS.current.slice(0, 12));
  });
});
