import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// This file reads what the functions write: logs at INFO (the other files run SILENT) and the EMF
// metrics (off elsewhere), set in the stack's environment (the logger and the metrics follow it).
// POWERTOOLS_LOGGER_LOG_EVENT asks Powertools to log every event (tokens, keys, codes): refused.

import { clock } from '../../lib/platform/clock.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { clearFaults, failAt, failWhere } from '../support/faults.js';
import { hub, latestCode, newNonce, newPhone, type SignedUp } from '../support/hub-fixtures.js';
import { captureOutput, emfLines, logLines as logsOf, type Capture, type Line } from '../support/log-capture.js';
import { apiClient, startTestStack, type ApiResponse } from '../support/stack.js';
import { MINUTE_MS, pinInsideWindow, resumeClock } from '../support/clock-windows.js';

let output: Capture;

/** What one HTTP request wrote: its response and the lines written while it ran. */
interface Step {
  res: ApiResponse<unknown>;
  lines: Line[];
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
const steps: Record<string, Step> = {};
/** Every credential and secret the flow handled: none may appear in any line. */
const secrets: { what: string; value: string | RegExp }[] = [];

async function step<T>(name: string, call: () => Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
  const from = output.lines.length;
  const res = await call();
  steps[name] = { res: res as ApiResponse<unknown>, lines: output.lines.slice(from) };
  return res;
}

/** gen_code, then create_phone_account with the code from the local SMS outbox; each a recorded step. */
async function signIn(name: string, phone: string, previous?: SignedUp): Promise<SignedUp> {
  const nonce = newNonce();
  const sent = await step(`${name}: gen_code`, () => hub(api, 'gen_code', { phonenumber: phone, nonce }));
  expect(sent.status).toBe(200);
  const code = await latestCode(api, phone);
  // A 6-digit code may occur inside a longer number (an EMF timestamp): only the code alone counts.
  secrets.push({ what: `${name}: SMS code`, value: new RegExp(`(?<![0-9])${code}(?![0-9])`) });
  const res = await step(`${name}: create_phone_account`, () =>
    hub<Omit<SignedUp, 'phone'>>(api, 'create_phone_account', { openid: phone, token: nonce, code, openid0: previous?.openid ?? '', token0: previous?.token ?? '' }),
  );
  expect(res.status).toBe(200);
  secrets.push({ what: `${name}: JWT`, value: res.data.token });
  return { ...res.data, phone };
}

const jtiOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string }).jti;
const auditLines = (s: Step) => s.lines.filter((l) => l.message === 'audit');
const logLines = (s: Step) => logsOf(s.lines);
/** The EMF lines of `s` that publish metric `name` (with this dimension value, if given). */
const emf = (s: Step, name: string, dimension?: Record<string, string>) => emfLines(s.lines, name, dimension);

let user: SignedUp;
let admin: SignedUp;
let userAgain: SignedUp;
let apiKey: string;
let keyId: number;
const phone = newPhone();

beforeAll(async () => {
  stack = await startTestStack({ http: false, env: { LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false', POWERTOOLS_LOGGER_LOG_EVENT: 'true' } });
  api = apiClient(stack.url);
  output = captureOutput();
  secrets.push({ what: 'phone (E.164)', value: phone }, { what: 'phone (national)', value: phone.slice(3) }, { what: 'admin phone', value: ADMIN_PHONE });

  // Sign-up with an SMS code, a key created, used, verified, revoked (twice), used again, deleted.
  user = await signIn('user sign-up', phone);
  const created = await step('key create', () => api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: user.token, body: { name: 'ci' } }));
  expect(created.status).toBe(201);
  apiKey = created.data.api_key;
  keyId = created.data.key.id;
  secrets.push({ what: 'access key', value: apiKey });
  expect((await step('key use', () => api.get('/api/v1/me', { token: apiKey }))).status).toBe(200);
  expect((await step('key use in the hub', () => hub(api, 'get_follower', { openid: user.openid, watch_list: '', offset: 0 }, { authorization: `Bearer ${apiKey}` }))).status).toBe(200);
  expect((await step('key verify', () => api.get(`/api/v1/api-keys/verify?key=${apiKey}`))).status).toBe(200);
  expect((await step('key revoke', () => api.post(`/api/v1/api-keys/${keyId}/revoke`, { token: user.token }))).status).toBe(200);
  expect((await step('key revoke again', () => api.post(`/api/v1/api-keys/${keyId}/revoke`, { token: user.token }))).status).toBe(200);
  expect((await step('revoked key use', () => api.get('/api/v1/me', { token: apiKey }))).status).toBe(401);
  expect((await step('revoked key verify', () => api.get(`/api/v1/api-keys/verify?key=${apiKey}`))).status).toBe(401);
  expect((await step('key delete', () => api.delete(`/api/v1/api-keys/${keyId}`, { token: user.token }))).status).toBe(200);
  // A key limited to 1 request a minute: its second use and a verify in the same minute are refused (429).
  const limited = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: user.token, body: { name: 'slow', rate_limit_per_minute: 1 } });
  secrets.push({ what: 'rate-limited access key', value: limited.data.api_key });
  // Its use and the refusals in one minute window, however slowly they run; the clock runs on afterwards.
  pinInsideWindow(MINUTE_MS, 5_000);
  expect((await api.get('/api/v1/me', { token: limited.data.api_key })).status).toBe(200);
  // Its first refusal while the event cannot be stored: 503, no line; the client's retry stores it, one line.
  failWhere('throughput', (command, input) => command === 'TransactWriteItemsCommand' && JSON.stringify(input).includes('key.rate_limited'));
  expect((await step('rate-limited, event not stored', () => api.get('/api/v1/me', { token: limited.data.api_key }))).status).toBe(503);
  clearFaults();
  expect((await step('rate-limited key use', () => api.get('/api/v1/me', { token: limited.data.api_key }))).status).toBe(429);
  expect((await step('rate-limited key verify', () => api.get(`/api/v1/api-keys/verify?key=${limited.data.api_key}`))).status).toBe(429);
  resumeClock();

  // An admin (ADMIN_PHONES) gives the user the editor role, then sets the same roles again.
  admin = await signIn('admin sign-up', ADMIN_PHONE);
  const setEditor = () => api.post(`/api/v1/admin/users/${user.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } });
  expect((await step('role change', setEditor)).status).toBe(200);
  expect((await step('same roles again', setEditor)).status).toBe(200);

  // The same phone signs in again on the device, ending the first session; the old token is refused.
  clock.advance(61_000);
  userAgain = await signIn('user sign-in', phone, user);
  expect((await step('ended session use', () => api.get('/api/v1/me', { token: user.token }))).status).toBe(401);

  // DynamoDB throttles the first request: once in the authorizer, once in the hub's own token check.
  failAt(1, 'throttling');
  expect((await step('throttled in the authorizer', () => api.get('/api/v1/me', { token: userAgain.token }))).status).toBe(503);
  failAt(1, 'throttling');
  expect((await step('throttled in the hub', () => hub(api, 'get_follower', { openid: userAgain.openid, token: userAgain.token, watch_list: '', offset: 0 }))).status).toBe(503);
  clearFaults();

  expect((await step('health', () => api.get('/api/v1/health'))).status).toBe(200);
  expect((await step('feed', () => hub(api, 'get_next_list', { openid: 'anonymous', d: 'device-1' }))).status).toBe(200);
});

afterAll(async () => {
  output?.restore();
  clock.reset();
  clearFaults();
  await stack?.stop();
});

describe('log context', () => {
  it('every line of a request carries its request id as correlation_id, cold_start and the function name', () => {
    const logged = Object.entries(steps).filter(([, s]) => logLines(s).length > 0);
    // The requests that write lines: audits, the 503s' warnings.
    expect(logged.map(([name]) => name)).toEqual(
      expect.arrayContaining(['key create', 'key revoke', 'key delete', 'role change', 'user sign-in: create_phone_account', 'throttled in the authorizer', 'throttled in the hub']),
    );
    for (const [name, s] of logged) {
      const requestId = s.res.headers.get('x-request-id');
      expect(requestId, name).toBeTruthy();
      for (const line of logLines(s)) {
        expect(line, name).toMatchObject({ correlation_id: requestId, cold_start: expect.any(Boolean), function_name: expect.stringMatching(/^local-/), service: 'expohub' });
      }
    }
  });

  it('the authorizer and the function of one request log under the same correlation id, each with its own function name', () => {
    const s = steps['throttled in the authorizer']!;
    const requestId = s.res.headers.get('x-request-id');
    expect(logLines(s).map((l) => [l.function_name, l.correlation_id, l.level])).toEqual([
      ['local-authorizer', requestId, 'WARN'],
      ['local-me', requestId, 'WARN'],
    ]);
  });

  it('hub lines name the operation, and the key does not leak into the next invocation', () => {
    expect(logLines(steps['user sign-in: create_phone_account']!).map((l) => l.operation)).toEqual(['create_phone_account']);
    expect(logLines(steps['throttled in the hub']!).map((l) => [l.operation, l.function_name])).toEqual([['get_follower', 'local-hub']]);
    // The next requests after hub calls, in other functions: no `operation` key.
    for (const name of ['key create', 'throttled in the authorizer']) {
      for (const line of logLines(steps[name]!)) expect(line, name).not.toHaveProperty('operation');
    }
  });

  it('a request that has nothing to report writes nothing (no empty-metrics warning either)', () => {
    expect(steps.health!.lines).toEqual([]);
    expect(output.lines.filter((l) => JSON.stringify(l).includes('No application metrics'))).toEqual([]);
  });
});

describe('audit lines', () => {
  it('key create, revoke and delete: one line each, with who, what and the key id', () => {
    const keyFact = (action: string) => ({ action, actor: user.openid, subject: user.openid, key_id: String(keyId), key_name: 'ci', via: 'jwt' });
    expect(auditLines(steps['key create']!).map((l) => l.audit)).toEqual([keyFact('key.created')]);
    expect(auditLines(steps['key revoke']!).map((l) => l.audit)).toEqual([keyFact('key.revoked')]);
    expect(auditLines(steps['key delete']!).map((l) => l.audit)).toEqual([keyFact('key.deleted')]);
    expect(auditLines(steps['key create']!)[0]).toMatchObject({ level: 'INFO', message: 'audit', function_name: 'local-createKey' });
  });

  it("a key's first refusal writes its line once the event is stored: none for a 503, one for the retry, none for a later refusal", () => {
    expect(auditLines(steps['rate-limited, event not stored']!)).toEqual([]);
    expect(auditLines(steps['rate-limited key use']!).map((l) => l.audit)).toEqual([expect.objectContaining({ action: 'key.rate_limited', actor: user.openid, via: 'api_key' })]);
    expect(auditLines(steps['rate-limited key verify']!)).toEqual([]);
  });

  it('a repeated revoke, which changes nothing, writes no line', () => {
    expect(steps['key revoke again']!.res.status).toBe(200);
    expect(auditLines(steps['key revoke again']!)).toEqual([]);
  });

  it('a role change: who, whom, by which credential, the roles before and after; the same roles again write nothing', () => {
    expect(auditLines(steps['role change']!).map((l) => l.audit)).toEqual([
      { action: 'role.changed', actor: admin.openid, subject: user.openid, via: 'jwt', roles_before: [], roles_after: ['editor'] },
    ]);
    expect(auditLines(steps['same roles again']!)).toEqual([]);
  });

  it('a sign-in with openid0/token0 ends the earlier session: its id (jti), never the token', () => {
    expect(auditLines(steps['user sign-in: create_phone_account']!).map((l) => l.audit)).toEqual([
      { action: 'session.ended', actor: userAgain.openid, subject: user.openid, session_id: jtiOf(user.token), via: 'sms_code' },
    ]);
    // A first sign-up ends nothing.
    expect(auditLines(steps['user sign-up: create_phone_account']!)).toEqual([]);
    expect(steps['ended session use']!.res.status).toBe(401);
  });

  it('no line of the whole flow holds a key, a JWT, an SMS code or a phone number', () => {
    const { rawLines } = output;
    expect(rawLines.length).toBeGreaterThan(20);
    // 3 phone forms, an SMS code and a JWT for each of the 3 sign-ins, the two keys.
    expect(secrets.length).toBe(11);
    for (const { what, value } of secrets) {
      const hits = rawLines.filter((l) => (typeof value === 'string' ? l.includes(value) : value.test(l)));
      expect(hits, what).toEqual([]);
    }
  });
});

describe('EMF metrics', () => {
  it('authentications by outcome: ok, revoked_key, session_ended, unavailable', () => {
    expect(emf(steps['key use']!, 'Authentications', { outcome: 'ok' })).toHaveLength(1);
    expect(emf(steps['key use in the hub']!, 'Authentications', { outcome: 'ok' })).toHaveLength(1);
    expect(emf(steps['revoked key use']!, 'Authentications')).toEqual([expect.objectContaining({ outcome: 'revoked_key', Authentications: 1, service: 'expohub' })]);
    expect(emf(steps['ended session use']!, 'Authentications')).toEqual([expect.objectContaining({ outcome: 'session_ended' })]);
    expect(emf(steps['throttled in the hub']!, 'Authentications')).toEqual([expect.objectContaining({ outcome: 'unavailable' })]);
    expect(emf(steps['rate-limited key use']!, 'Authentications')).toEqual([expect.objectContaining({ outcome: 'rate_limited', Authentications: 1 })]);
    expect(emf(steps['rate-limited key use']!, 'KeysRateLimited')).toHaveLength(1);
    const line = emf(steps['revoked key use']!, 'Authentications')[0]!;
    expect(line._aws).toMatchObject({ CloudWatchMetrics: [{ Namespace: 'expohub', Dimensions: [['service', 'outcome']], Metrics: [{ Name: 'Authentications', Unit: 'Count' }] }] });
  });

  it('key verifications by outcome', () => {
    expect(emf(steps['key verify']!, 'KeyVerifications')).toEqual([expect.objectContaining({ outcome: 'valid', KeyVerifications: 1 })]);
    expect(emf(steps['revoked key verify']!, 'KeyVerifications')).toEqual([expect.objectContaining({ outcome: 'revoked' })]);
    expect(emf(steps['rate-limited key verify']!, 'KeyVerifications')).toEqual([expect.objectContaining({ outcome: 'rate_limited' })]);
  });

  it('keys created, revoked (not a repeat) and deleted, flushed once at the end of their invocation', () => {
    expect(emf(steps['key create']!, 'KeysCreated')).toEqual([expect.objectContaining({ KeysCreated: 1, service: 'expohub' })]);
    expect(emf(steps['key revoke']!, 'KeysRevoked')).toHaveLength(1);
    expect(emf(steps['key revoke again']!, 'KeysRevoked')).toEqual([]);
    expect(emf(steps['key delete']!, 'KeysDeleted')).toHaveLength(1);
  });

  it('SMS sent, feed calls', () => {
    expect(emf(steps['user sign-up: gen_code']!, 'SmsSent')).toHaveLength(1);
    expect(emf(steps.feed!, 'FeedCalls')).toEqual([expect.objectContaining({ FeedCalls: 1 })]);
  });

  it('each 503 counted once, by cause: dynamodb in the authorizer, dynamodb in the function', () => {
    expect(emf(steps['throttled in the authorizer']!, 'Unavailable')).toEqual([expect.objectContaining({ cause: 'dynamodb', Unavailable: 1 })]);
    expect(emf(steps['throttled in the hub']!, 'Unavailable')).toEqual([expect.objectContaining({ cause: 'dynamodb', Unavailable: 1 })]);
  });
});
