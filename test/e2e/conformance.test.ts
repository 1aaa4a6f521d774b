import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { ROUTES } from '../../infra/routes.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { HUB_OPERATION_NAMES, hubSample } from '../support/hub-operations.js';
import { clearFaults, failWhere } from '../support/faults.js';
import { latestCode, newNonce, newPhone, putTestAccounts, putTestVideo } from '../support/hub-fixtures.js';
import { startPrismProxy, type PrismProxy } from '../support/prism.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { MINUTE_MS, pinInsideWindow, resumeClock } from '../support/clock-windows.js';

/**
 * The conformance test (docs/testing.md, "The conformance test"): traffic over every route and every
 * hub `do`, success and error paths, through Stoplight Prism's validating proxy (`--errors`) in
 * front of the local server, Prism reading the document the server serves. A request the document
 * allows must reach the server and its answer must match the document (no violation either way); a
 * request the server refuses for a limit (400) must be refused by the document too (Prism answers
 * it without forwarding). Every violation is listed when the test fails.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let prism: PrismProxy;
beforeAll(async () => {
  stack = await startTestStack();
  prism = await startPrismProxy(`${stack.url}/api/v1/openapi.json`, stack.url);
});
afterAll(async () => {
  await prism?.stop();
  await stack?.stop();
});

interface Options {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}
interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Every exchange that was not what the test expected, as a line naming the request. */
let problems: string[] = [];
/** What was exercised: `METHOD path` of ROUTES and `do=` values. */
const covered = new Set<string>();

async function send(base: string, method: string, path: string, options: Options = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  const json = /json/.test(res.headers.get('content-type') ?? '');
  const body: unknown = json && text ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, body, data: (body as { data?: unknown }).data };
}

/** A problem line names the request without its credential. */
const shown = (path: string) => path.replace(/([?&](?:token|key)=)[^&]+/g, '$1…');

const fromPrism = (answer: Answer) => (answer.headers.get('content-type') ?? '').startsWith('application/problem+json');

/** Which route of ROUTES a path is (for the coverage check). */
function routeOf(method: string, path: string): string {
  const bare = path.split('?')[0]!;
  const route = ROUTES.find((r) => r.method === method && new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(bare));
  if (route?.path === '/api/v1') covered.add(`do=${new URLSearchParams(path.split('?')[1]).get('do')}`);
  return route ? `${route.method} ${route.path}` : `${method} ${bare}`;
}

/** A request the document allows: the server answers it (`status` when given) and Prism finds no violation in the request or the answer. */
async function conforms(method: string, path: string, options: Options = {}, status?: number): Promise<Answer> {
  covered.add(routeOf(method, path));
  const answer = await send(prism.url, method, path, options);
  const violations = answer.headers.get('sl-violations');
  if (fromPrism(answer) || violations) {
    problems.push(`${method} ${shown(path)} -> ${answer.status}: ${violations ?? JSON.stringify(answer.body).slice(0, 2000)}`);
  } else if (status !== undefined && answer.status !== status) {
    problems.push(`${method} ${shown(path)} -> ${answer.status}, expected ${status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  } else if (!answer.headers.get('x-request-id')) {
    problems.push(`${method} ${shown(path)} -> ${answer.status} without x-request-id`);
  }
  return answer;
}

/** A request the server refuses with 400: the document refuses it too (Prism answers 422 itself). */
async function refusedByBoth(method: string, path: string, options: Options = {}): Promise<void> {
  covered.add(routeOf(method, path));
  const direct = await send(stack.url, method, path, options);
  if (direct.status !== 400) problems.push(`${method} ${shown(path)}: the server answered ${direct.status}, expected 400: ${JSON.stringify(direct.body).slice(0, 300)}`);
  const proxied = await send(prism.url, method, path, options);
  if (!(fromPrism(proxied) && proxied.status === 422)) {
    problems.push(`${method} ${shown(path)}: the document allows it (Prism answered ${proxied.status} ${JSON.stringify(proxied.body).slice(0, 300)})`);
  }
}

const q = (params: Record<string, string | number>) => `/api/v1?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`;

/** Sign-up through the proxy: gen_code, the code from the local SMS outbox, create_phone_account. */
async function signUp(phone = newPhone()) {
  const nonce = newNonce();
  await conforms('GET', q({ do: 'gen_code', phonenumber: phone, nonce }), {}, 200);
  const code = await latestCode(apiClient(stack.url), phone);
  const signedIn = await conforms('GET', q({ do: 'create_phone_account', openid: phone, token: nonce, code, openid0: '', token0: '' }), {}, 200);
  return signedIn.data as { openid: string; token: string };
}

describe('every route and every do, through Prism in --errors mode', () => {
  beforeEach(() => {
    problems = [];
  });

  it('the hub: every do, success and error paths', async () => {
    const user = await signUp();
    const other = await signUp();
    const as = { openid: user.openid, token: user.token };
    const video = await putTestVideo(other.openid);
    const hub = (params: Record<string, string | number>, status = 200) => conforms('GET', q(params), {}, status);

    // Sign-up's error paths: a wrong code is 401; a malformed nonce, an unknown or missing do, refused by both.
    const phone = newPhone();
    const nonce = newNonce();
    await hub({ do: 'gen_code', phonenumber: phone, nonce: ` ${nonce} ` });
    await hub({ do: 'create_phone_account', openid: phone, token: nonce, code: '000000', openid0: '', token0: '' }, 401);
    await refusedByBoth('GET', q({ do: 'gen_code', phonenumber: newPhone(), nonce: 'short' }));
    await refusedByBoth('GET', q({ do: 'no_such_operation', openid: user.openid }));
    await refusedByBoth('GET', q({ openid: user.openid }));

    await hub({ do: 'get_next_list', openid: 'anonymous-device', order: 'new', watch_count: 5 });
    await hub({ do: 'get_next_list', ...as, watch_count: '', order: '', cmd: 'refresh', view_list: video.vid, q: '' });
    await hub({ do: 'get_next_list', ...as, token: 'not-a-token' }, 401);
    await refusedByBoth('GET', q({ do: 'get_next_list', ...as, watch_count: 21 }));
    await refusedByBoth('GET', q({ do: 'get_next_list', ...as, order: 'best' }));
    await refusedByBoth('GET', q({ do: 'get_next_list', ...as, cmd: 'reload' }));

    await hub({ do: 'like', ...as, vid: video.vid });
    await hub({ do: 'like', ...as, vid: 'v_unknown' }, 404);
    await hub({ do: 'dislike', ...as, vid: video.vid, action: 'dislike' });
    await refusedByBoth('GET', q({ do: 'dislike', ...as, vid: video.vid, action: 'like' }));
    await hub({ do: 'like', ...as, vid: video.vid });

    const posted = await hub({ do: 'comment_set', ...as, vid: video.vid, content: 'Great booth!\nSee you there' });
    await refusedByBoth('GET', q({ do: 'comment_set', ...as, vid: video.vid, content: 'x'.repeat(1001) }));
    await refusedByBoth('GET', q({ do: 'comment_set', ...as, vid: video.vid, content: 'bell\u0007' }));
    await hub({ do: 'comment_get', ...as, vid: video.vid, page: 1, d: '' });
    await refusedByBoth('GET', q({ do: 'comment_get', ...as, vid: video.vid, page: 0, d: '' }));
    await hub({ do: 'comment_delete', ...as, vid: video.vid, cid: posted.data.comment.cid });

    await hub({ do: 'report', ...as, target: 'video', id: video.vid, reason: 'spam', text: 'an advert' });
    await refusedByBoth('GET', q({ do: 'report', ...as, target: 'video', id: video.vid, reason: 'boring' }));
    await hub({ do: 'my_reports', ...as });

    const shared = await hub({ do: 'sharetext', openid: user.openid, vid: video.vid, d: '', locale: 'zh-CN', country: 'cn' });
    await refusedByBoth('GET', q({ do: 'sharetext', openid: user.openid, vid: video.vid, d: '', locale: 'zh_CN!', country: '' }));
    await conforms('GET', `/s/${encodeURIComponent(shared.data.shareid)}`, {}, 200);
    await conforms('GET', '/s/no-such-share', {}, 404);

    await hub({ do: 'follow_user', ...as, follow_user: other.openid });
    await hub({ do: 'get_follow', ...as, watch_list: '', offset: 0 });
    await hub({ do: 'get_follower', ...as, watch_list: other.openid, offset: 0 });
    await hub({ do: 'get_follower', ...as, watch_list: '', offset: 0 });
    await hub({ do: 'unfollow_user', ...as, follow_user: other.openid });
    await hub({ do: 'follow_user', ...as, follow_user: user.openid }, 400);

    await hub({ do: 'get_fav', ...as, next_id: 0, fav_index: 0, watch_list: 'like', view: '', q: '' });
    await hub({ do: 'get_fav', ...as, next_id: 0, fav_index: ' 5 ', watch_list: '', view: other.openid, q: '' });
    await hub({ do: 'get_fav', ...as, next_id: 0, fav_index: 0, watch_list: 'history', view: other.openid, q: '' }, 403);
    await refusedByBoth('GET', q({ do: 'get_fav', ...as, next_id: 0, fav_index: 51, watch_list: 'like', view: '', q: '' }));
    await refusedByBoth('GET', q({ do: 'get_fav', ...as, next_id: 100_001, fav_index: 0, watch_list: 'like', view: '', q: '' }));
    await refusedByBoth('GET', q({ do: 'get_fav', ...as, next_id: 0, fav_index: 0, watch_list: 'likes', view: '', q: '' }));

    await hub({ do: 'block_user', ...as, block_user: other.openid });
    await hub({ do: 'get_blocked', ...as, offset: 0 });
    await hub({ do: 'unblock_user', ...as, block_user: other.openid });

    await hub({ do: 'change_nickname', ...as, nickname: 'Booth hunter' });
    await hub({ do: 'change_signature', ...as, signature: '' });
    await hub({ do: 'change_city', ...as, city: 'Shanghai' });
    await refusedByBoth('GET', q({ do: 'change_nickname', ...as, nickname: 'n'.repeat(31) }));
    await refusedByBoth('GET', q({ do: 'change_city', ...as, city: 'Tab\there' }));

    await hub({ do: 'accept_terms', ...as, terms_version: '1' });
    await refusedByBoth('GET', q({ do: 'accept_terms', ...as, terms_version: 'version 2!' }));

    const leaving = await signUp();
    await refusedByBoth('GET', q({ do: 'delete_account', openid: leaving.openid, token: leaving.token, confirm: 'yes' }));
    const deleted = await hub({ do: 'delete_account', openid: leaving.openid, token: leaving.token, confirm: 'delete' });
    await conforms('GET', `/api/v1/deletions/${deleted.data.deletion.id}`, {}, 200);

    // Every do not exercised above (a new one), with its sample call (test/support/hub-operations.ts):
    // its success path through Prism; its error paths are worth a line above.
    const sampleComment = await hub({ do: 'comment_set', ...as, vid: video.vid, content: 'for the samples' });
    const world = { vid: video.vid, other: other.openid, ownComment: (sampleComment.data as { comment: { cid: string } }).comment.cid, unique: () => newNonce() };
    for (const op of HUB_OPERATION_NAMES.filter((name) => !covered.has(`do=${name}`))) {
      const sample = hubSample(op);
      const caller = sample.endsAccount ? await signUp() : user;
      await hub({ do: op, ...(sample.access === 'none' ? {} : { openid: caller.openid, token: caller.token }), ...sample.params(world) });
    }

    expect(problems).toEqual([]);
  });

  it('the access keys, the protected and the service routes', async () => {
    const user = await signUp();
    for (const path of ['/api/v1/health', '/api/v1/openapi.json', '/api/v1/docs', '/api/v1/policies', '/.well-known/assetlinks.json', '/.well-known/apple-app-site-association']) {
      await conforms('GET', path);
    }

    // The key's requests below in one minute window, however slowly they run; the clock runs on after the test.
    pinInsideWindow(MINUTE_MS, 5_000);
    onTestFinished(resumeClock);
    const created = await conforms('POST', '/api/v1/api-keys', { token: user.token, body: { name: 'pipeline', scopes: [' export:read ', ''], rate_limit_per_minute: 3 } }, 201);
    const { api_key: key, key: record } = created.data as { api_key: string; key: { id: number } };
    await refusedByBoth('POST', '/api/v1/api-keys', { token: user.token, body: { name: 'x', scope: ['export:read'] } });
    await refusedByBoth('POST', '/api/v1/api-keys', { token: user.token, body: { name: 'x', scopes: Array.from({ length: 21 }, (_, i) => `s${i}`) } });
    await refusedByBoth('POST', '/api/v1/api-keys', { token: user.token, body: { name: 'x', rate_limit_per_minute: 0 } });
    await conforms('POST', '/api/v1/api-keys', { token: key, body: { name: 'by a key' } }, 401);
    await conforms('GET', '/api/v1/api-keys', { token: user.token }, 200);
    await conforms('GET', `/api/v1/api-keys/verify?key=${key}`, {}, 200);
    await conforms('GET', '/api/v1/api-keys/verify?key=ak_not_a_key', {}, 401);
    await conforms('GET', '/api/v1/me', { token: key }, 200);
    // The key's limit is 3 a minute: its refused create, its verification and /me count; the fourth request is 429 with Retry-After.
    await conforms('GET', '/api/v1/me', { token: key }, 429);
    await conforms('GET', `/api/v1/api-keys/${record.id}/usage`, { token: user.token }, 200);
    await refusedByBoth('GET', '/api/v1/api-keys/abc/usage', { token: user.token });
    await conforms('POST', `/api/v1/api-keys/${record.id}/revoke`, { token: user.token }, 200);
    await conforms('POST', '/api/v1/api-keys/999999999/revoke', { token: user.token }, 404);
    await conforms('DELETE', `/api/v1/api-keys/${record.id}`, { token: user.token }, 200);

    await conforms('GET', '/api/v1/me/data', { token: user.token }, 200);
    await conforms('GET', '/api/v1/audit?limit=5', { token: user.token }, 200);
    await refusedByBoth('GET', '/api/v1/audit?limit=101', { token: user.token });
    await conforms('GET', '/api/v1/export/comments?limit=5&since=2026-01-01', { token: user.token }, 200);
    await conforms('GET', '/api/v1/export/accounts?limit=5', { token: user.token }, 200);
    await refusedByBoth('GET', '/api/v1/export/comments?limit=501', { token: user.token });
    await refusedByBoth('GET', '/api/v1/export/accounts?since=yesterday', { token: user.token });

    const [editor] = await putTestAccounts(1, ['editor']);
    const video = { title: 'Booth tour', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60, external_id: 'cms-1' };
    await conforms('POST', '/api/v1/videos?dry_run=true', { token: editor!.token, body: video }, 200);
    await conforms('POST', '/api/v1/videos', { token: editor!.token, body: video }, 201);
    await conforms('POST', '/api/v1/videos', { token: user.token, body: video }, 403);
    await refusedByBoth('POST', '/api/v1/videos', { token: editor!.token, body: { ...video, video_url: 'http://cdn.example.com/v.mp4' } });
    await refusedByBoth('POST', '/api/v1/videos?dry_run=maybe', { token: editor!.token, body: video });

    const session = await signUp();
    await conforms('POST', '/api/v1/logout', { token: session.token }, 200);
    await conforms('POST', '/api/v1/logout', { token: session.token }, 401);
    const leaving = await signUp();
    await refusedByBoth('DELETE', '/api/v1/me?confirm=please', { token: leaving.token });
    await conforms('DELETE', '/api/v1/me?confirm=delete', { token: leaving.token }, 202);

    expect(problems).toEqual([]);
  });

  it('administration and moderation', async () => {
    const admin = await signUp(ADMIN_PHONE);
    const [moderator] = await putTestAccounts(1, ['moderator']);
    const target = await signUp();
    const key = (await conforms('POST', '/api/v1/api-keys', { token: target.token, body: { name: 'leaked' } }, 201)).data as { api_key: string; key: { id: number } };

    await conforms('POST', `/api/v1/admin/users/${target.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } }, 200);
    await refusedByBoth('POST', `/api/v1/admin/users/${target.openid}/roles`, { token: admin.token, body: { roles: ['owner'] } });
    await conforms('POST', `/api/v1/admin/users/${target.openid}/roles`, { token: target.token, body: { roles: ['admin'] } }, 403);
    await conforms('GET', `/api/v1/admin/users/${target.openid}/api-keys`, { token: admin.token }, 200);
    await conforms('POST', '/api/v1/admin/api-keys/lookup', { token: admin.token, body: { key: key.api_key } }, 200);
    await conforms('POST', '/api/v1/admin/api-keys/lookup', { token: admin.token, body: { key: 'ak_unknown' } }, 404);
    await conforms('POST', `/api/v1/admin/api-keys/${key.key.id}/revoke`, { token: admin.token }, 200);
    await conforms('POST', `/api/v1/admin/users/${target.openid}/suspend`, { token: admin.token }, 200);
    await conforms('POST', `/api/v1/admin/users/${target.openid}/reinstate`, { token: admin.token }, 200);

    await conforms('GET', '/api/v1/admin/filter-terms', { token: admin.token }, 200);
    await conforms('POST', '/api/v1/admin/filter-terms', { token: admin.token, body: { terms: [{ term: 'conformance-term', action: 'hold' }] } }, 200);
    await refusedByBoth('POST', '/api/v1/admin/filter-terms', { token: admin.token, body: { terms: [{ term: 'x', action: 'ban' }] } });
    await conforms('DELETE', '/api/v1/admin/filter-terms/conformance-term', { token: admin.token }, 200);

    const author = await signUp();
    const video = await putTestVideo(author.openid);
    await conforms('GET', q({ do: 'report', openid: target.openid, token: target.token, target: 'video', id: video.vid, reason: 'spam', text: '' }), {}, 200);
    await conforms('GET', '/api/v1/moderation/reports?limit=10', { token: moderator!.token }, 200);
    await refusedByBoth('GET', '/api/v1/moderation/reports?limit=0', { token: moderator!.token });
    await conforms('POST', '/api/v1/moderation/actions', { token: moderator!.token, body: { target: { type: 'video', id: video.vid }, action: 'dismiss' } }, 200);
    await refusedByBoth('POST', '/api/v1/moderation/actions', { token: moderator!.token, body: { target: { type: 'video', id: video.vid }, action: 'ignore' } });

    await conforms('DELETE', `/api/v1/admin/users/${author.openid}?confirm=delete`, { token: admin.token }, 202);

    expect(problems).toEqual([]);
  });

  it('503 with Retry-After where the store fails: a hub operation, a key route, the HTML share page', async () => {
    const user = await signUp();
    const video = await putTestVideo(user.openid);
    const shared = await conforms('GET', q({ do: 'sharetext', openid: user.openid, vid: video.vid, d: '', locale: 'en', country: '' }), {}, 200);
    // DynamoDB throttles every request (after the SDK's retries) until cleared.
    const fault = failWhere('throttling', () => true);
    try {
      await conforms('GET', q({ do: 'comment_get', openid: user.openid, token: user.token, vid: video.vid, page: 1, d: '' }), {}, 503);
      await conforms('GET', '/api/v1/api-keys', { token: user.token }, 503);
      await conforms('GET', `/s/${encodeURIComponent(shared.data.shareid)}`, {}, 503);
    } finally {
      clearFaults();
    }
    expect(fault.failures).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('429 with Retry-After for a key past its own limit: on its verification, and on a login-token-only route (the authorizer counts the key before the route refuses it)', async () => {
    const user = await signUp();
    // Each key's requests below in one minute window, however slowly they run; the clock runs on after the test.
    pinInsideWindow(MINUTE_MS, 5_000);
    onTestFinished(resumeClock);
    const limitedKey = async (name: string) => ((await conforms('POST', '/api/v1/api-keys', { token: user.token, body: { name, rate_limit_per_minute: 1 } }, 201)).data as { api_key: string }).api_key;
    const verified = await limitedKey('verified twice');
    await conforms('GET', `/api/v1/api-keys/verify?key=${verified}`, {}, 200);
    const verifyRefused = await conforms('GET', `/api/v1/api-keys/verify?key=${verified}`, {}, 429);
    const misused = await limitedKey('used where a login is needed');
    await conforms('GET', '/api/v1/api-keys', { token: misused }, 401);
    const routeRefused = await conforms('GET', '/api/v1/api-keys', { token: misused }, 429);
    expect([verifyRefused, routeRefused].map((a) => a.headers.get('retry-after'))).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
    expect(problems).toEqual([]);
  });

  it('covered every route and every do', () => {
    const expected = [...ROUTES.map((r) => `${r.method} ${r.path}`), ...Object.keys(HUB_OPERATIONS).map((op) => `do=${op}`)];
    expect(expected.filter((name) => !covered.has(name))).toEqual([]);
  });
});
