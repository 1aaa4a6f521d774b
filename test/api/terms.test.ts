import { describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { configure } from '../../lib/platform/config.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { getHubItem, hub, latestCode, newNonce, newPhone, signUp } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';

const api = useTestStack({ http: false, env: { TERMS_VERSION: '2026-11-01', CONTACT_EMAIL: 'abuse@example.com', TERMS_URL: 'https://example.com/terms' } });

interface Terms {
  accepted_version: string | null;
  accepted_at: string | null;
  current_version: string;
  accepted_current: boolean;
}
interface AuditPage {
  items: { type: string; actor: string; details: { terms_version?: string; via?: string } }[];
}

/** Runs `body` with TERMS_VERSION changed, as a new deployment of the setting would. */
async function withTermsVersion<T>(version: string, body: () => Promise<T>): Promise<T> {
  const before = process.env.TERMS_VERSION;
  configure({ ...process.env, TERMS_VERSION: version });
  try {
    return await body();
  } finally {
    configure({ ...process.env, TERMS_VERSION: before });
  }
}

/** gen_code then create_phone_account with `extra` parameters. */
async function signInWith(phone: string, extra: Record<string, string>) {
  const nonce = newNonce();
  expect((await hub(api, 'gen_code', { phonenumber: phone, nonce })).status).toBe(200);
  const code = await latestCode(api, phone);
  return hub<{ openid: string; token: string; terms: Terms }>(api, 'create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '', ...extra });
}

const me = (token: string) => api.get<{ user_id: string; terms: Terms }>('/api/v1/me', { token });
const termsEvents = async (token: string) => (await api.get<AuditPage>('/api/v1/audit', { token })).data.items.filter((e) => e.type === 'terms.accepted');


describe('terms of use', () => {
  it('records the version a new account accepted at sign-up, and GET /me says it is the current one', async () => {
    const signed = await signInWith(newPhone(), { terms_version: '2026-11-01' });
    expect(signed.status).toBe(200);
    expect(signed.data.terms).toMatchObject({ accepted_version: '2026-11-01', current_version: '2026-11-01', accepted_current: true });
    const mine = await me(signed.data.token);
    expect(mine.status).toBe(200);
    expect(mine.data.terms).toEqual({ accepted_version: '2026-11-01', accepted_at: expect.any(String), current_version: '2026-11-01', accepted_current: true });
    expect(await termsEvents(signed.data.token)).toEqual([expect.objectContaining({ actor: signed.data.openid, details: { via: 'sign-in', terms_version: '2026-11-01' } })]);
  });

  it('without terms_version nothing is recorded: GET /me asks the client to show the terms', async () => {
    const user = await signUp(api);
    expect((await me(user.token)).data.terms).toEqual({ accepted_version: null, accepted_at: null, current_version: '2026-11-01', accepted_current: false });
    expect(await getHubItem(accountKeys.account(user.openid))).not.toHaveProperty('terms_version');
  });

  it('after the current version changes, GET /me says so, and accept_terms records the new acceptance once', async () => {
    const phone = newPhone();
    const first = await signInWith(phone, { terms_version: '2026-11-01' });
    await withTermsVersion('2027-01-01', async () => {
      expect((await me(first.data.token)).data.terms).toMatchObject({ accepted_version: '2026-11-01', current_version: '2027-01-01', accepted_current: false });
      const accepted = await hub<{ terms: Terms }>(api, 'accept_terms', { openid: first.data.openid, token: first.data.token, terms_version: '2027-01-01' });
      expect(accepted.status).toBe(200);
      expect(accepted.data.terms).toMatchObject({ accepted_version: '2027-01-01', accepted_current: true });
      // A retry (a second tap) records nothing more.
      const again = await hub<{ terms: Terms }>(api, 'accept_terms', { openid: first.data.openid, token: first.data.token, terms_version: '2027-01-01' });
      expect(again.data.terms).toEqual(accepted.data.terms);
      expect((await me(first.data.token)).data.terms).toEqual(accepted.data.terms);
    });
    expect((await termsEvents(first.data.token)).map((e) => e.details.terms_version)).toEqual(['2027-01-01', '2026-11-01']);
  });

  it('signing in again with a new version records it; with the same version records nothing', async () => {
    const phone = newPhone();
    const first = await signInWith(phone, { terms_version: '2026-11-01' });
    clock.advance(61_000);
    const same = await signInWith(phone, { terms_version: '2026-11-01' });
    expect(same.data.openid).toBe(first.data.openid);
    clock.advance(61_000);
    const newer = await signInWith(phone, { terms_version: 'v2' });
    expect(newer.data.terms).toMatchObject({ accepted_version: 'v2', accepted_current: false });
    expect((await termsEvents(newer.data.token)).map((e) => e.details.terms_version)).toEqual(['v2', '2026-11-01']);
  });

  it('refuses a malformed version with 400 naming it, changing nothing; an access key cannot accept terms for a person', async () => {
    const user = await signUp(api);
    for (const bad of ['', 'v 2', 'x'.repeat(33), '版本']) {
      const res = await hub(api, 'accept_terms', { openid: user.openid, token: user.token, terms_version: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('terms_version') });
    }
    const phone = newPhone();
    const refused = await signInWith(phone, { terms_version: 'v 2' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringContaining('terms_version') });
    expect(await getHubItem(accountKeys.account(user.openid))).not.toHaveProperty('terms_version');

    const key = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: user.token, body: { name: 'pipeline' } });
    const byKey = await hub(api, 'accept_terms', { openid: user.openid, terms_version: '2026-11-01' }, { authorization: `Bearer ${key.data.api_key}` });
    expect(byKey.status).toBe(403);
    expect((await me(key.data.api_key)).data.terms.accepted_version).toBeNull();
  });
});

describe('GET /api/v1/policies', () => {
  it('answers the configured terms and contact for reports, without a credential', async () => {
    const res = await api.get('/api/v1/policies');
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ terms: { version: '2026-11-01', url: 'https://example.com/terms' }, contact: { email: 'abuse@example.com', url: null } });
  });
});
