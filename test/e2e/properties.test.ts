import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setSmsSender } from '../../lib/platform/sms/sender.js';
import { textProblem } from '../../lib/platform/text.js';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { ROUTES, type RouteSpec } from '../../infra/routes.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { changedItems, storeSnapshot } from '../support/store-digest.js';
import { evasionOf } from '../support/filter-evasions.js';

/**
 * Property-based tests over every hub `do` and every route of infra/routes.ts: generated
 * query strings, bodies, path values, credentials and mutated cursors, sent through the local server
 * (the same routes, authorizer and handlers as `npm start`). For every answer:
 *  - the status is one the contract lists for that route, and never 500;
 *  - the body is the contract's envelope; every answer has an x-request-id;
 *  - a 4xx leaves the stored state unchanged (both tables compared item by item before and after).
 * `PROPERTY_RUNS` sets the cases per operation and route (default 200; e.g. 5000 for a long run).
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
/**
 * 200 cases of one operation take about 10 s on an idle 2-core machine (each case snapshots the
 * store before and after); the margin is for a loaded machine and a file running beside it.
 */
const PROPERTY_TIMEOUT_MS = Math.max(120_000, RUNS * 600);

let stack: Awaited<ReturnType<typeof startTestStack>>;
let base: string;
let alice: SignedUp;
let bob: SignedUp;
let admin: SignedUp;
let aliceKey: string;
let vid: string;
let keyId: number;
let feedCursor: string;
let exportCursor: string;
let dataCursor: string;
/** A comment of bob's: comment_delete and report target it. */
let bobComment: string;
/** Another comment of bob's, which only alice's credentials meet (the real-ids property): it stays live. */
let bobKept: string;
let snapshot: Map<string, string>;

interface Answer {
  status: number;
  requestId: string | null;
  body: unknown;
}

/**
 * The running test's signal, aborted when the test ends or times out: a property that ran out of
 * time stops at its next request instead of writing on while the next test compares the store.
 */
let testSignal: AbortSignal | undefined;
beforeEach(({ signal }) => {
  testSignal = signal;
});

async function send(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  testSignal?.throwIfAborted();
  const res = await fetch(base + path, { method, headers: init.headers, body: init.body, signal: testSignal });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text: the envelope check fails on it
  }
  return { status: res.status, requestId: res.headers.get('x-request-id'), body };
}

/** The contract's envelope: `{code: 0, data}` on success, `{code: "<CODE>", error: "<message>"}` otherwise. */
function expectEnvelope(answer: Answer) {
  expect(answer.requestId, 'x-request-id').toMatch(/\S/);
  const body = answer.body as Record<string, unknown>;
  expect(typeof body, JSON.stringify(answer.body).slice(0, 200)).toBe('object');
  if (answer.status < 300) {
    expect(body.code).toBe(0);
    expect(body).toHaveProperty('data');
  } else {
    expect(Object.keys(body).sort()).toEqual(['code', 'error']);
    expect(body.code).toMatch(/^[A-Z_]+$/);
    expect(typeof body.error).toBe('string');
  }
}

/**
 * A 4xx must change nothing. Exceptions by design: a wrong SMS code counts a try on the code item
 * (docs/hub-api.md, "create_phone_account": the 5th wrong try ends it), and a key that verified counts its use on its hash
 * guard even when the request then fails (the key was used: changedItems leaves that out).
 */
// Called right after each request, before the case's other checks: a case that fails another check
// still leaves `snapshot` current, so the cases fast-check replays while shrinking compare with the
// state they really start from.
const keyUseCounter = (id: string) => /\|KEYUSE#\d+\|MIN#[^|]+$/.test(id);

async function expectUnchangedAfter4xx(answer: Answer, allowedToo: (id: string) => boolean = () => false) {
  const allowed = (id: string) => keyUseCounter(id) || allowedToo(id);
  const before = snapshot;
  const after = await storeSnapshot();
  // The next case compares with this state, whatever this one found (fast-check replays while shrinking).
  snapshot = after;
  if (answer.status >= 400 && answer.status < 500) {
    const changed = changedItems(before, after).filter((id) => !allowed(id));
    const detail = changed.map((id) => `${id}\n  before: ${before.get(id) ?? '(none)'}\n  after:  ${after.get(id) ?? '(none)'}`).join('\n');
    expect(changed, `a ${answer.status} changed the store: ${JSON.stringify(answer.body).slice(0, 200)}\n${detail}`).toEqual([]);
  }
}

// Generators ---------------------------------------------------------------------------------------

/** Strings as careless clients and attackers send them: empty, control characters, any Unicode, long, numeric extremes. */
const junk = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ minLength: 200, maxLength: 3000 }),
  fc.constantFrom('0', '-1', '1e308', '5e-324', '99999999999999999999', '1.5', ' 7 ', 'NaN', '0x10', 'null', '[]', '{}', '\u0000', '\n', 'ak_', '%00'),
  fc.integer({ min: -5, max: 100_000 }).map(String),
);

/** A value for a hub parameter: mostly junk, sometimes a real value of the right kind. */
function hubValue(name: string): fc.Arbitrary<string> {
  const real: Record<string, () => string[]> = {
    openid: () => [alice.openid, bob.openid],
    follow_user: () => [bob.openid, alice.openid],
    block_user: () => [bob.openid, alice.openid],
    watch_list: () => ['', bob.openid, 'like', 'history', 'comment'],
    view: () => ['', bob.openid, vid],
    vid: () => [vid, 'nosuchvideo'],
    view_list: () => [vid, `${vid},${vid}`],
    fav_index: () => ['', '0', '20', feedCursor],
    order: () => ['rec', 'hot', 'new'],
    cmd: () => ['', 'refresh'],
    action: () => ['dislike'],
    watch_count: () => ['1', '10', '20'],
    offset: () => ['0', '20'],
    page: () => ['1', '2'],
    next_id: () => ['0', '-1', '20'],
    locale: () => ['zh-CN', 'en', ''],
    country: () => ['CN', ''],
    phonenumber: () => ['13800138000', '+8613900139000'],
    nonce: () => ['nonce-123456'],
    terms_version: () => ['1', '2026-11-01'],
    cid: () => [bobComment, 'c_nosuchcomment00'],
    target: () => ['video', 'comment', 'user'],
    id: () => [vid, bobComment, bob.openid, alice.openid, 'nosuch'],
    reason: () => ['spam', 'abusive', 'sexual', 'violent', 'illegal', 'privacy', 'other'],
    text: () => ['', 'an advert', 'line one\nline two'],
    cursor: () => [''],
  };
  // delete_account's confirmation is never "delete" here: the generated calls leave the accounts in place.
  if (name === 'confirm') return junk.filter((v) => v.trim() !== 'delete');
  const options = real[name];
  return options ? fc.oneof({ weight: 3, arbitrary: junk }, { weight: 1, arbitrary: fc.constantFrom(...options()) }) : junk;
}

/** The caller's credential: none, its JWT (in the query or the header), another user's JWT, a key (in the query too), garbage. */
const credentialChoice = fc.constantFrom('none', 'jwt-query', 'jwt-header', 'other-jwt', 'key-header', 'key-query', 'garbage-query', 'garbage-header');

function credential(choice: string): { query: Record<string, string>; headers: Record<string, string> } {
  switch (choice) {
    case 'jwt-query':
      return { query: { token: alice.token }, headers: {} };
    case 'jwt-header':
      return { query: {}, headers: { authorization: `Bearer ${alice.token}` } };
    case 'other-jwt':
      return { query: { token: bob.token }, headers: {} };
    case 'key-header':
      return { query: {}, headers: { authorization: `Bearer ${aliceKey}` } };
    case 'key-query':
      return { query: { token: aliceKey }, headers: {} };
    case 'garbage-query':
      return { query: { token: 'eyJhbGciOiJIUzI1NiJ9.e30.x' }, headers: {} };
    case 'garbage-header':
      return { query: {}, headers: { authorization: 'Bearer ak_garbage' } };
    default:
      return { query: {}, headers: {} };
  }
}

/** A cursor as the server issued it, altered: a flipped character, cut short, extended, re-encoded with extreme numbers. */
const mutatedCursor = (real: () => string) =>
  fc.oneof(
    fc.nat().map((i) => {
      const c = real();
      const at = i % c.length;
      return c.slice(0, at) + (c[at] === 'A' ? 'B' : 'A') + c.slice(at + 1);
    }),
    fc.nat().map((i) => real().slice(0, i % real().length)),
    fc.string({ maxLength: 10 }).map((s) => real() + s),
    fc.constantFrom(1e308, 5e-324, -1, Number.MAX_SAFE_INTEGER).map((t) => Buffer.from(JSON.stringify({ o: 'hot', w: 'abc', ph: 1, p: 'x', t })).toString('base64url')),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
  );

const CONTRACT_HUB_STATUSES = [200, 400, 401, 403, 404, 429];

const parsedObject = (body: string): Record<string, unknown> => {
  try {
    const value = JSON.parse(body) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};
const strings = (value: unknown): string[] => (typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(strings) : []);

/** Parameter names an operation's schema knows. */
const paramsOf = (op: string) => Object.keys((HUB_OPERATIONS[op]!.query as unknown as { shape?: Record<string, unknown> }).shape ?? {});

beforeAll(async () => {
  // Pages of one record: the first page of alice's data export ends with a cursor to mutate.
  stack = await startTestStack({ env: { ENFORCE_KEY_SCOPES: 'false', DATA_EXPORT_PAGE_SIZE: '1' } });
  base = stack.url;
  const api = (await import('../support/stack.js')).apiClient(base);
  admin = await signUp(api, ADMIN_PHONE);
  // The filter's reject terms, before the first write reads (and caches) the list.
  expect((await api.post('/api/v1/admin/filter-terms', { token: admin.token, body: { terms: REJECTED.map((term) => ({ term, action: 'reject' })) } })).status).toBe(200);
  [alice, bob] = [await signUp(api), await signUp(api)];
  const key = await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: alice.token, body: { name: 'property tests', rate_limit_per_minute: 100_000 } });
  // The highest limit: the generated calls with this key are many within a minute; its limit is tested in api-key-limits.test.ts.
  aliceKey = key.data.api_key;
  keyId = key.data.key.id;
  expect((await api.post(`/api/v1/admin/users/${alice.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } })).status).toBe(200);
  const published = await api.post<{ video: { vid: string } }>('/api/v1/videos', {
    token: alice.token,
    body: { title: 'Property hall', video_url: 'https://cdn.example.com/p.mp4', cover_url: 'https://cdn.example.com/p.jpg', duration_s: 30, tags: ['expo'] },
  });
  vid = published.data.video.vid;
  for (const title of ['Second', 'Third']) {
    await api.post('/api/v1/videos', { token: alice.token, body: { title, video_url: 'https://cdn.example.com/q.mp4', cover_url: 'https://cdn.example.com/q.jpg', duration_s: 30 } });
  }
  const commented = await hub<{ comment: { cid: string } }>(api, 'comment_set', { openid: bob.openid, token: bob.token, vid, content: 'first' });
  expect(commented.status).toBe(200);
  bobComment = commented.data.comment.cid;
  bobKept = (await hub<{ comment: { cid: string } }>(api, 'comment_set', { openid: bob.openid, token: bob.token, vid, content: 'kept' })).data.comment.cid;
  feedCursor = (await hub<{ fav_index: string }>(api, 'get_next_list', { openid: 'x', order: 'hot', watch_count: 1 })).data.fav_index;
  expect(feedCursor).not.toBe('');
  exportCursor = (await api.get<{ next_cursor: string }>('/api/v1/export/accounts?limit=1', { token: admin.token })).data.next_cursor;
  expect(exportCursor).toEqual(expect.any(String));
  dataCursor = (await api.get<{ next_cursor: string }>('/api/v1/me/data', { token: alice.token })).data.next_cursor;
  expect(dataCursor).toEqual(expect.any(String));
  // Generated gen_code calls send codes: dropped instead of printed on the console.
  setSmsSender({ send: async () => undefined });
  snapshot = await storeSnapshot();
}, 120_000);
afterAll(async () => {
  setSmsSender(undefined);
  await stack?.stop();
});

describe('every hub do, generated query strings', () => {
  it.each(Object.keys(HUB_OPERATIONS))('%s', async (op) => {
    const names = [...new Set([...paramsOf(op), 'openid', 'd'])];
    const params = fc.record(Object.fromEntries(names.map((n) => [n, fc.option(hubValue(n), { nil: undefined })])) as Record<string, fc.Arbitrary<string | undefined>>);
    const raw = fc.constantFrom('', '&%ZZ=1', '&x=%E0%A4%A', '&%=%', '&token', '&do=like');
    await fc.assert(
      fc.asyncProperty(params, credentialChoice, raw, async (values, who, tail) => {
        const { query, headers } = credential(who);
        const search = new URLSearchParams({ do: op });
        for (const [k, v] of Object.entries({ ...values, ...query })) if (v !== undefined) search.set(k, v);
        const answer = await send('GET', `/api/v1?${search.toString()}${tail}`, { headers });
        await expectUnchangedAfter4xx(answer, (id) => op === 'create_phone_account' && /\|PHONE#[^|]+\|CODE#[^|]+$/.test(id));
        expect(CONTRACT_HUB_STATUSES, `${op} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`).toContain(answer.status);
        expectEnvelope(answer);
        // Every text parameter goes through the one text check: a success never accepted a control character.
        if (answer.status === 200) {
          for (const [name, value] of Object.entries(values)) {
            // A parameter the operation does not know (`openid` of gen_code, `d` of most) is ignored, whatever it holds.
            if (value !== undefined && paramsOf(op).includes(name)) expect(textProblem(value.trim(), name === 'content' || name === 'text'), `${op} accepted ${name}=${JSON.stringify(value)}`).toBeUndefined();
          }
        }
      }),
      { numRuns: RUNS },
    );
  }, PROPERTY_TIMEOUT_MS);

  it('comment_delete and report with real ids: contract statuses, the envelope, a 4xx changes nothing', async () => {
    // The generic property above sends mostly junk; here every value is one that reaches the use case.
    const real = <T,>(...values: T[]) => fc.constantFrom(...values);
    const call = fc.oneof(
      fc.record({ do: real('comment_delete'), openid: real(alice.openid), vid: real(vid, vid, 'nosuchvideo'), cid: real(bobKept, 'c_nosuchcomment00') }),
      fc.record({
        do: real('report'),
        openid: real(alice.openid, bob.openid),
        target: real('video', 'comment', 'user', 'song'),
        id: real(vid, bobKept, bob.openid, alice.openid, 'nosuch'),
        reason: real('spam', 'privacy', 'boring'),
        text: real('', 'an advert', 'x'.repeat(501), 'bad\u0000'),
      }),
    );
    await fc.assert(
      // Never bob's own token: his comment stays live, so alice's deletes of it meet the 403.
      fc.asyncProperty(call, credentialChoice.filter((c) => c !== 'other-jwt'), async (params, who) => {
        const { query, headers } = credential(who);
        const answer = await send('GET', `/api/v1?${new URLSearchParams({ ...params, ...query })}`, { headers });
        await expectUnchangedAfter4xx(answer);
        expect(CONTRACT_HUB_STATUSES, `${params.do} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`).toContain(answer.status);
        expectEnvelope(answer);
      }),
      // At least 150 cases: each kind of call (a stranger's delete, a report on oneself, ...) is met many times.
      { numRuns: Math.max(RUNS, 150) },
    );
  }, PROPERTY_TIMEOUT_MS);

  it('get_next_list with mutated cursors: 400 naming fav_index, or the list when the cursor is intact', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedCursor(() => feedCursor), fc.constantFrom('hot', 'new', 'rec'), async (cursor, order) => {
        const answer = await send('GET', `/api/v1?${new URLSearchParams({ do: 'get_next_list', openid: 'x', order, fav_index: cursor })}`);
        await expectUnchangedAfter4xx(answer);
        expectEnvelope(answer);
        // Hub parameters are trimmed: the real cursor with trailing blanks is the real cursor, and a
        // cursor cut down to nothing (or blanks) is no cursor: a new walk (the contract's empty fav_index).
        if (cursor.trim() === feedCursor) expect([200, 400]).toContain(answer.status);
        else if (cursor.trim() === '') expect(answer.status).toBe(200);
        else {
          expect(answer.status, cursor).toBe(400);
          expect((answer.body as { error: string }).error).toContain('fav_index');
        }
      }),
      { numRuns: RUNS },
    );
  }, PROPERTY_TIMEOUT_MS);
});

// The filter: no normalised variant of a reject term is stored --------------------------------------

/** Reject terms stored in beforeAll (docs/moderation.md, "Filter"). */
const REJECTED = ['zqxjvk', '违禁词语'];
/** A reject term as an evader writes it: any case, full-width forms, separators between its characters, words around it. */
const rejectedVariant = evasionOf(fc.constantFrom(...REJECTED)).map((v) => v.text);

describe('the filter, generated evasions', () => {
  it('comment_set, change_* and a publish with a variant of a reject term: 400 naming the field, nothing stored', async () => {
    const where = fc.constantFrom('content', 'nickname', 'signature', 'city', 'title', 'tags.1');
    await fc.assert(
      fc.asyncProperty(rejectedVariant, where, async (text, field) => {
        const answer =
          field === 'title' || field === 'tags.1'
            ? await send('POST', '/api/v1/videos', {
                headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
                body: JSON.stringify({
                  ...(field === 'title' ? { title: text } : { title: 'A clean title', tags: ['expo', text] }),
                  video_url: 'https://cdn.example.com/f.mp4',
                  cover_url: 'https://cdn.example.com/f.jpg',
                  duration_s: 30,
                }),
              })
            : await send(
                'GET',
                `/api/v1?${new URLSearchParams({ do: field === 'content' ? 'comment_set' : `change_${field}`, openid: alice.openid, token: alice.token, vid, [field]: text })}`,
              );
        await expectUnchangedAfter4xx(answer);
        expect(answer.status, `${field}=${JSON.stringify(text)}: ${JSON.stringify(answer.body)}`).toBe(400);
        expect((answer.body as { error: string }).error).toContain(`"${field}"`);
      }),
      { numRuns: RUNS },
    );
  }, PROPERTY_TIMEOUT_MS);
});

// The routes of infra/routes.ts ----------------------------------------------------------------------

/** What each route may answer (docs/api-keys.md, "Envelope", and the route's section there or in docs/protected-api.md). */
const ROUTE_STATUSES: Record<string, number[]> = {
  'GET /api/v1/health': [200],
  'GET /api/v1/policies': [200],
  'POST /api/v1/api-keys': [201, 400, 401, 409],
  'GET /api/v1/api-keys': [200, 401],
  'POST /api/v1/api-keys/{id}/revoke': [200, 400, 401, 404],
  'DELETE /api/v1/api-keys/{id}': [200, 400, 401, 404],
  'GET /api/v1/api-keys/verify': [200, 401],
  'GET /api/v1/api-keys/{id}/usage': [200, 400, 401, 404],
  'GET /api/v1/me': [200, 401],
  'GET /api/v1/me/data': [200, 400, 401],
  'POST /api/v1/admin/users/{openid}/roles': [200, 400, 401, 403, 404],
  'POST /api/v1/logout': [200, 401],
  'GET /api/v1/audit': [200, 400, 401],
  'GET /api/v1/admin/users/{openid}/api-keys': [200, 400, 401, 403, 404],
  'POST /api/v1/admin/api-keys/{id}/revoke': [200, 400, 401, 403, 404],
  'POST /api/v1/admin/api-keys/lookup': [200, 400, 401, 403, 404],
  'POST /api/v1/admin/users/{openid}/suspend': [200, 400, 401, 403, 404],
  'POST /api/v1/admin/users/{openid}/reinstate': [200, 400, 401, 403, 404],
  'POST /api/v1/videos': [200, 201, 400, 401, 403],
  'GET /api/v1/export/comments': [200, 400, 401],
  'GET /api/v1/export/accounts': [200, 400, 401],
  // Generated `confirm` values are never "delete" (queryFor): the accounts stay.
  'DELETE /api/v1/me': [202, 400, 401],
  'DELETE /api/v1/admin/users/{openid}': [202, 400, 401, 403, 404],
  'GET /api/v1/deletions/{id}': [200, 400, 404],
  'GET /api/v1/moderation/reports': [200, 400, 401, 403],
  'POST /api/v1/moderation/actions': [200, 400, 401, 403, 404],
  'GET /api/v1/admin/filter-terms': [200, 401, 403],
  'POST /api/v1/admin/filter-terms': [200, 400, 401, 403],
  // A term of `..` or `.` is a path the URL resolves elsewhere (no route there: 404).
  'DELETE /api/v1/admin/filter-terms/{term}': [200, 400, 401, 403, 404],
};

/** Held content as an action's target (docs/moderation.md, "Moderation"): a held id of no held item, ones that are not held ids. */
const heldTargets = [
  { type: 'held', id: 'hd_QUNDT1VOVCN1X25vYm9keQpIRUxEI3VzZXIjbmlja25hbWUKbm9uY2Uw' },
  { type: 'held', id: 'hd_!!' },
  { type: 'held', id: 'c_nosuchcomment00' },
];
/** A JSON body of the route's own fields with generated values, or anything at all. */
const FIELDS: Record<string, string[]> = {
  'POST /api/v1/api-keys': ['name', 'scopes', 'expires_at', 'user_id', 'rate_limit_per_minute'],
  'POST /api/v1/admin/users/{openid}/roles': ['roles'],
  'POST /api/v1/admin/api-keys/lookup': ['key', 'revoke'],
  'POST /api/v1/videos': ['title', 'description', 'video_url', 'cover_url', 'duration_s', 'tags', 'external_id'],
  'POST /api/v1/moderation/actions': ['target', 'action', 'note'],
  'POST /api/v1/admin/filter-terms': ['terms'],
};
const fieldValue = fc.oneof(
  junk,
  fc.constantFrom('\ud800', 'a\ud800b', 'https://cdn.example.com/a\u0000.mp4', 'https://cdn.example.com/v.mp4', 'editor', '2099-01-01T00:00:00Z', 'remove', 'dismiss', 'suspend', 'approve'),
  fc.constantFrom({ type: 'user', id: 'u_nobody' }, { type: 'comment', id: 'c_nosuchcomment00' }, { type: 'video', id: '\u0000' }, { type: 'song', id: 'x' }, ...heldTargets),
  fc.array(fc.oneof(junk, fc.constantFrom('\udc00x', 'export:read', 'expo')), { maxLength: 4 }),
  fc.integer({ min: -10, max: 40_000 }),
  fc.double(),
  fc.constant(null),
  fc.boolean(),
);
const bodyFor = (route: string) =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...(FIELDS[route] ?? ['x'])), fieldValue).map((o) => JSON.stringify(o)),
    // An action on held content whose body is otherwise valid, so that it reaches the held item's lookup.
    ...(route === 'POST /api/v1/moderation/actions'
      ? [fc.record({ target: fc.constantFrom(...heldTargets), action: fc.constantFrom('approve', 'remove', 'dismiss', 'suspend') }).map((o) => JSON.stringify(o))]
      : []),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.constantFrom('', 'not json', '{"name":', '[]', 'null', '{"name":"\\ud800"}'),
  );
const pathValue = fc.oneof(
  fc.constantFrom('1', '0', '-1', '1.5', 'abc', '%ZZ', '%E0%A4%A', '%00', '99999999999999999999', '%F0%9F%98%80', '..', '%2F'),
  fc.integer({ min: 1, max: 1_000_000 }).map(String),
  // A lone `.` is resolved away by the URL (`/api-keys/./revoke` is `/api-keys/revoke`, another route).
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent).filter((v) => v !== '.'),
);
const queryFor = (route: string) =>
  route === 'GET /api/v1/api-keys/verify'
    ? fc.oneof(
        junk.map((k) => `?key=${encodeURIComponent(k)}`),
        fc.constantFrom('', '?key=', '?key=%ZZ'),
      )
    : route.startsWith('GET /api/v1/export/') || route === 'GET /api/v1/moderation/reports'
      ? fc.oneof(
          fc.record({ cursor: fc.option(fc.oneof(junk, mutatedCursor(() => exportCursor)), { nil: undefined }), limit: fc.option(junk, { nil: undefined }) }).map((q) => {
            const s = new URLSearchParams();
            if (q.cursor !== undefined) s.set('cursor', q.cursor);
            if (q.limit !== undefined) s.set('limit', q.limit);
            return `?${s}`;
          }),
          fc.constant('?cursor=%ZZ'),
        )
      : route.startsWith('DELETE /api/v1/me') || route.startsWith('DELETE /api/v1/admin/users/')
        ? fc.oneof(fc.constant(''), junk.filter((v) => v.trim() !== 'delete').map((v) => `?confirm=${encodeURIComponent(v)}`))
      : route === 'GET /api/v1/me/data'
        ? fc.oneof(
            fc.oneof(junk, mutatedCursor(() => dataCursor), fc.constant(dataCursor)).map((c) => `?${new URLSearchParams({ cursor: c })}`),
            fc.constantFrom('', '?cursor=', '?cursor=%ZZ'),
          )
        : fc.constant('');
const authHeader = fc.constantFrom<Record<string, string>>(
  {},
  { authorization: 'Bearer garbage' },
  { authorization: 'Bearer ak_short' },
  { authorization: 'Basic abc' },
  { authorization: 'Bearer ' },
);

const FRESH_TOKEN = 'fresh-login-token';

describe('every route, generated bodies, path values, queries and credentials', () => {
  // The JSON API's routes; the share page and the app association files (HTML and plain JSON files,
  // not the envelope) have their generated-input property in share-page.test.ts, and the API's own
  // description (the OpenAPI file and its HTML page, no input) is checked in openapi.test.ts.
  const routes = ROUTES.filter((r) => r.path.startsWith('/api/v1/') && r.path !== '/api/v1/openapi.json' && r.path !== '/api/v1/docs');
  it('covers every route of the API but the hub (above) with its contract statuses', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(Object.keys(ROUTE_STATUSES).sort());
  });

  it.each(routes.map((r): [string, RouteSpec] => [`${r.method} ${r.path}`, r]))('%s', async (name, route) => {
    // Sign-out ends the token it is called with: there, a valid login token is a fresh one each case
    // (FRESH_TOKEN, issued below), so the shared tokens stay valid for the routes after it.
    const signsOut = name === 'POST /api/v1/logout';
    const credentials = fc.oneof(
      authHeader,
      fc
        .constantFrom('alice', 'aliceKey', 'admin', 'bob')
        .map((who) => ({
          authorization: `Bearer ${who === 'aliceKey' ? aliceKey : signsOut ? FRESH_TOKEN : { alice, admin, bob }[who as 'alice' | 'admin' | 'bob'].token}`,
        })),
    );
    const contentType = fc.constantFrom<Record<string, string>>({ 'content-type': 'application/json' }, {}, { 'content-type': 'text/plain' }, { 'content-type': 'application/json; charset=utf-8' });
    const pathParams = fc.record({ id: fc.oneof(pathValue, fc.constant(String(keyId))), openid: fc.oneof(pathValue, fc.constantFrom(alice.openid, bob.openid)) });
    await fc.assert(
      fc.asyncProperty(credentials, contentType, bodyFor(name), pathParams, queryFor(name), async (auth, type, body, params, query) => {
        const path = route.path.replace('{id}', params.id).replace('{openid}', params.openid).replace('{term}', params.id) + query;
        if (auth.authorization === `Bearer ${FRESH_TOKEN}`) auth = { authorization: `Bearer ${await tokenFor(alice.openid)}` };
        const withBody = route.method === 'POST';
        const answer = await send(route.method, path, { headers: { ...auth, ...(withBody ? type : {}) }, ...(withBody ? { body } : {}) });
        await expectUnchangedAfter4xx(answer);
        expect(ROUTE_STATUSES[name], `${name} ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`).toContain(answer.status);
        expectEnvelope(answer);
        // A success never accepted a field of the route that is not text (lone surrogate, control character).
        if (answer.status < 300 && withBody) {
          const fields = parsedObject(body);
          for (const field of FIELDS[name] ?? []) {
            if (field === 'user_id') continue; // ignored by contract
            for (const text of strings(fields[field])) expect(textProblem(text.trim(), field === 'description' || field === 'note'), `${name} accepted ${field}=${JSON.stringify(text)}`).toBeUndefined();
          }
        }
      }),
      { numRuns: RUNS },
    );
  }, PROPERTY_TIMEOUT_MS);
});
