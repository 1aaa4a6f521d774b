import { clock } from '../lib/platform/clock.js';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { inParallel } from '../lib/platform/db/batch.js';
import { db, tableNames } from '../lib/platform/db/client.js';
import { createKey } from '../lib/features/keys/key-service.js';
import { minuteCounterKeys } from '../lib/features/keys/minute-counters.js';
import { accessKeyFor, bearer, jwtFor, mustSucceed, newNonce, newPhone, requestCode, signUp } from './fixtures.js';
import { hubRequest, invoke, type BenchRequest } from './invoke.js';
import { always, constant, hubOp, route, type Scenario } from './scenario.js';
import { HUB_SCENARIOS, PROTECTED_SCENARIOS } from './scenarios-hub.js';

const me = (credential: string): BenchRequest => ({ method: 'GET', path: '/api/v1/me', headers: bearer(credential) });
const verify = (key: string): BenchRequest => ({ method: 'GET', path: `/api/v1/api-keys/verify?key=${encodeURIComponent(key)}` });
const LAST_USED_INTERVAL_MS = 61_000;

/** Calls with the key's last_used_at kept recent: the write is made (unmeasured) every 30 s. */
function lastUsedRecent(apiKey: string, request: (key: string) => BenchRequest) {
  let lastTouch = -Infinity;
  return async () => {
    if (clock.now() - lastTouch > 30_000) {
      await mustSucceed(verify(apiKey));
      lastTouch = clock.now();
    }
    return request(apiKey);
  };
}

/** Calls a minute apart (on the shared clock): every one writes last_used_at. */
function lastUsedDue(apiKey: string, request: (key: string) => BenchRequest) {
  return async () => {
    clock.advance(LAST_USED_INTERVAL_MS);
    return request(apiKey);
  };
}

/** Writes the minute counters of a key used every minute of the last 30 days, as the rate limit stored them before the guard counted (lib/features/keys/minute-counters.ts). */
async function seedEveryMinute(id: number, nowMs: number): Promise<void> {
  const first = nowMs - (nowMs % 60_000) - (30 * 24 * 60 - 1) * 60_000;
  const items = Array.from({ length: 30 * 24 * 60 }, (_, i) => {
    const minute = first + i * 60_000;
    return { ...minuteCounterKeys.usageMinute(id, new Date(minute).toISOString().slice(0, 16)), n: 5, lim: 100_000, ttl: minute / 1000 + 32 * 24 * 3600 };
  });
  const chunks = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  await inParallel(chunks, 8, async (chunk) => {
    let pending: Record<string, unknown>[] = chunk.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableNames.apiKeys]: pending } }));
      pending = (out.UnprocessedItems?.[tableNames.apiKeys] ?? []) as Record<string, unknown>[];
    }
  });
}

/** Every benchmarked operation, in report order. */
export const SCENARIOS: Scenario[] = [
  // Access keys -----------------------------------------------------------------------------------
  {
    name: 'create_key',
    group: 'keys',
    available: always,
    expect: 201,
    setup: async (w) => {
      const token = await jwtFor(w.alice.openid);
      return async (i) => ({ method: 'POST', path: '/api/v1/api-keys', headers: bearer(token), body: { name: `bench ${i}`, scopes: ['hub:read'] } });
    },
  },
  {
    name: 'list_keys (5 keys)',
    group: 'keys',
    available: always,
    expect: 200,
    setup: async () => {
      const user = `lister-${newNonce()}`;
      for (let i = 0; i < 5; i++) await accessKeyFor(user);
      return constant({ method: 'GET', path: '/api/v1/api-keys', headers: bearer(await jwtFor(user)) })();
    },
  },
  {
    name: 'revoke_key',
    group: 'keys',
    available: always,
    expect: 200,
    setup: async (w) => {
      const token = await jwtFor(w.alice.openid);
      return async () => ({ method: 'POST', path: `/api/v1/api-keys/${(await accessKeyFor(w.alice.openid)).id}/revoke`, headers: bearer(token) });
    },
  },
  {
    name: 'delete_key',
    group: 'keys',
    available: always,
    expect: 200,
    setup: async (w) => {
      const token = await jwtFor(w.alice.openid);
      return async () => ({ method: 'DELETE', path: `/api/v1/api-keys/${(await accessKeyFor(w.alice.openid)).id}`, headers: bearer(token) });
    },
  },
  {
    name: 'verify (last_used_at recent)',
    group: 'keys',
    available: always,
    expect: 200,
    note: 'the usual case: last_used_at was written less than a minute ago',
    setup: async (w) => lastUsedRecent((await accessKeyFor(w.alice.openid)).api_key, verify),
  },
  {
    name: 'verify (last_used_at due)',
    group: 'keys',
    available: always,
    expect: 200,
    note: 'at most once a minute per key: the conditional last_used_at write',
    setup: async (w) => lastUsedDue((await accessKeyFor(w.alice.openid)).api_key, verify),
  },
  {
    name: 'key_usage (used in 3 minutes today)',
    group: 'keys',
    available: route('GET', '/api/v1/api-keys/{id}/usage'),
    expect: 200,
    note: "ownership read, then the guard's day counters (GetItem) and one Query of the minute counters written before the guard counted (none here)",
    setup: async (w) => {
      const { api_key, id } = await accessKeyFor(w.alice.openid);
      for (let i = 0; i < 3; i++) {
        await mustSucceed(me(api_key));
        clock.advance(LAST_USED_INTERVAL_MS);
      }
      return constant({ method: 'GET', path: `/api/v1/api-keys/${id}/usage`, headers: bearer(await jwtFor(w.alice.openid)) })();
    },
  },
  {
    name: 'key_usage (used every minute for 30 days)',
    group: 'keys',
    available: route('GET', '/api/v1/api-keys/{id}/usage'),
    expect: 200,
    note: 'the most a key busy before the guard counted can have until they expire: 43,200 minute counters, read in 1 MB Query pages, and the guard',
    setup: async (w) => {
      const { id } = await accessKeyFor(w.alice.openid);
      await seedEveryMinute(id, clock.now());
      return constant({ method: 'GET', path: `/api/v1/api-keys/${id}/usage`, headers: bearer(await jwtFor(w.alice.openid)) })();
    },
  },
  {
    name: 'verify (unknown key, 401)',
    group: 'keys',
    available: always,
    expect: 401,
    setup: constant(verify(`ak_${'Q'.repeat(32)}`)),
  },
  // Authentication --------------------------------------------------------------------------------
  {
    name: 'authorizer: JWT',
    group: 'auth',
    available: always,
    expect: 200,
    authorizerOnly: true,
    setup: async (w) => constant(me(w.alice.token))(),
  },
  {
    name: 'authorizer: access key (last_used_at recent)',
    group: 'auth',
    available: always,
    expect: 200,
    authorizerOnly: true,
    setup: async (w) => lastUsedRecent((await accessKeyFor(w.alice.openid)).api_key, me),
  },
  {
    name: 'authorizer: access key (last_used_at due)',
    group: 'auth',
    available: always,
    expect: 200,
    authorizerOnly: true,
    setup: async (w) => lastUsedDue((await accessKeyFor(w.alice.openid)).api_key, me),
  },
  {
    name: 'authorizer: bad credential',
    group: 'auth',
    available: always,
    expect: 401,
    authorizerOnly: true,
    note: 'passes through as unauthenticated; the function answers 401',
    setup: constant(me('not-a-token')),
  },
  {
    name: 'GET /me (JWT)',
    group: 'auth',
    available: always,
    expect: 200,
    setup: async (w) => constant(me(w.alice.token))(),
  },
  {
    name: 'GET /me (access key)',
    group: 'auth',
    available: always,
    expect: 200,
    setup: async (w) => lastUsedRecent((await accessKeyFor(w.alice.openid)).api_key, me),
  },
  {
    name: 'POST /logout (sign out)',
    group: 'auth',
    available: route('POST', '/api/v1/logout'),
    expect: 200,
    note: 'a fresh login token each call: the authorizer session check, then the ended marker and its event in one transaction',
    setup: async (w) => async () => ({ method: 'POST', path: '/api/v1/logout', headers: bearer(await jwtFor(w.alice.openid)) }),
  },
  {
    name: 'GET /me (access key past its limit, 429)',
    group: 'auth',
    available: always,
    expect: 429,
    note: 'a refused call: the guard read and the counter update its condition refuses (still 1 WCU in AWS)',
    setup: async (w) => {
      const { api_key } = await createKey(w.alice.openid, { name: 'bench limited', rate_limit_per_minute: 1 });
      // An unmeasured call first takes the minute's one admission (or is refused already).
      return async () => {
        await invoke(me(api_key));
        return me(api_key);
      };
    },
  },
  {
    name: 'GET /health',
    group: 'auth',
    available: route('GET', '/api/v1/health'),
    expect: 200,
    setup: constant({ method: 'GET', path: '/api/v1/health' }),
  },
  // Hub: sign-up ----------------------------------------------------------------------------------
  {
    name: 'gen_code',
    group: 'hub',
    available: hubOp('gen_code'),
    expect: 200,
    setup: async () => async () => hubRequest('gen_code', { phonenumber: newPhone(), nonce: newNonce() }),
  },
  {
    name: 'create_phone_account (new account)',
    group: 'hub',
    available: hubOp('create_phone_account'),
    expect: 200,
    setup: async () => async () => {
      const phone = newPhone();
      const { nonce, code } = await requestCode(phone);
      return hubRequest('create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '' });
    },
  },
  {
    name: 'create_phone_account (sign-in, ends openid0/token0)',
    group: 'hub',
    available: hubOp('create_phone_account'),
    expect: 200,
    note: 'an existing account signs in and ends the device\'s previous session',
    setup: async () => {
      const account = await signUp();
      return async () => {
        clock.advance(LAST_USED_INTERVAL_MS); // one code per phone per minute
        const { nonce, code } = await requestCode(account.phone);
        // Ending an already ended session writes the same item again: every call costs the same.
        return hubRequest('create_phone_account', { openid: account.phone, token: nonce, code, openid0: account.openid, token0: account.token });
      };
    },
  },
  ...HUB_SCENARIOS,
  ...PROTECTED_SCENARIOS,
];
