import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, ExpohubError, memorySession, type Session } from '../../client/src/index.js';

/**
 * @expohub/client's behaviour with an injected fetch: the envelope, the error, Retry-After on 429/503
 * for idempotent calls only (or a call marked safe), timeouts and abort, the session-ended event,
 * paging, the query's encoding, unknown parameters, extra headers.
 */
type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

function fakeFetch(answers: Answer[]) {
  const calls: { url: URL; raw: string; init: RequestInit }[] = [];
  const fn = vi.fn(async (input: string | URL | Request, init: RequestInit = {}) => {
    calls.push({ url: new URL(String(input)), raw: String(input), init });
    const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return new Response(typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? { code: 0, data: {} }), { status: a.status, headers: { 'content-type': 'application/json', 'x-request-id': `req-${calls.length}`, ...a.headers } });
  });
  return { fetch: fn as unknown as typeof fetch, calls };
}

const ok = (data: unknown): Answer => ({ status: 200, body: { code: 0, data } });
const busy: Answer = { status: 503, body: { code: 'UNAVAILABLE', error: 'The service is busy' }, headers: { 'retry-after': '1' } };
const limited: Answer = { status: 429, body: { code: 'RATE_LIMITED', error: 'Too many requests' }, headers: { 'retry-after': '2' } };
const session: Session = { openid: 'u_1', token: 'jwt-1' };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('@expohub/client', () => {
  it('sends the hub query flat, the session as Bearer, and unwraps the envelope', async () => {
    const f = fakeFetch([ok({ list: [], fav_index: '' })]);
    const client = createClient({ baseUrl: 'http://api.test/', fetch: f.fetch, session: memorySession(session) });
    await expect(client.feed.next({ order: 'new', watch_count: 5 })).resolves.toEqual({ list: [], fav_index: '' });
    const { url, init } = f.calls[0]!;
    expect(url.pathname).toBe('/api/v1');
    expect(Object.fromEntries(url.searchParams)).toEqual({ do: 'get_next_list', order: 'new', watch_count: '5', openid: 'u_1' });
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer jwt-1');
  });

  it('sends a route\'s path, query and body where they belong, with the access key', async () => {
    const f = fakeFetch([ok({ key: {} })]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, accessKey: 'ak_test' });
    await client.admin.setRoles({ openid: 'u 2', roles: ['editor'] });
    expect(f.calls[0]!.url.pathname).toBe('/api/v1/admin/users/u%202/roles');
    expect(f.calls[0]!.init.method).toBe('POST');
    expect(JSON.parse(String(f.calls[0]!.init.body))).toEqual({ roles: ['editor'] });
    expect((f.calls[0]!.init.headers as Record<string, string>).authorization).toBe('Bearer ak_test');
  });

  it('throws one error class with the code, message, field, status and request id', async () => {
    const f = fakeFetch([{ status: 400, body: { code: 'VALIDATION_ERROR', error: 'Invalid parameter "vid": must not be empty' } }]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch });
    const error = await client.videos.get({ vid: ' ' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExpohubError);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400, field: 'vid', requestId: 'req-1', message: 'Invalid parameter "vid": must not be empty' });
  });

  it('encodes a space as %20 and a plus as %2B, in the hub query and a route\'s', async () => {
    const f = fakeFetch([ok({ list: [], fav_index: '' }), ok({ items: [], next_cursor: null })]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch });
    await client.feed.next({ q: 'trade fair+expo & more' });
    expect(f.calls[0]!.raw).toContain('q=trade%20fair%2Bexpo%20%26%20more');
    expect(f.calls[0]!.url.searchParams.get('q')).toBe('trade fair+expo & more');
    await client.exports.comments({ since: '2026-11-01T00:00:00+08:00' });
    expect(f.calls[1]!.raw).toContain('since=2026-11-01T00%3A00%3A00%2B08%3A00');
  });

  it('tells the service\'s refusal from an answer that is not its envelope', async () => {
    const f = fakeFetch([{ status: 502, body: '<html>Bad gateway</html>' }, { status: 404, body: { message: 'Not Found' } }, { status: 200, body: '<html>captive portal</html>' }, { status: 403, body: { code: 'FORBIDDEN', error: 'Administrators only' } }]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, retries: 0, accessKey: 'ak_x' });
    const errors = [];
    for (let i = 0; i < 4; i++) errors.push(await client.me.get().catch((e: unknown) => e));
    expect(errors).toMatchObject([
      { code: 'UNAVAILABLE', status: 502, message: 'HTTP 502', envelope: false },
      { code: 'HTTP_ERROR', status: 404, message: 'HTTP 404', envelope: false },
      { code: 'HTTP_ERROR', status: 200, message: 'HTTP 200', envelope: false },
      { code: 'FORBIDDEN', status: 403, message: 'Administrators only', envelope: true },
    ]);
  });

  it('refuses a parameter a route does not take, before any request', async () => {
    const f = fakeFetch([ok({})]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, accessKey: 'ak_x' });
    // A JavaScript caller (no compiler to stop it): `titel` would go to the query string, which the server ignores.
    const publish = client.videos.publish as (p: Record<string, unknown>) => Promise<unknown>;
    const error = await publish({ titel: 'Expo', video_url: 'https://cdn.test/v.mp4' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExpohubError);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 0, field: 'titel', envelope: false });
    expect(f.calls).toHaveLength(0);
  });

  it('keeps what failed underneath a network error, and sends the app\'s headers', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
    const client = createClient({ baseUrl: 'http://api.test', fetch: (() => Promise.reject(refused)) as unknown as typeof fetch, retries: 0 });
    const error = await client.service.health().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: 0, envelope: false });
    expect((error as ExpohubError).cause).toBe(refused);

    const f = fakeFetch([ok({})]);
    const withHeaders = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, accessKey: 'ak_x', headers: { 'X-App-Version': '3.1.0', Authorization: 'Bearer not-this' } });
    await withHeaders.me.get({}, { headers: { 'x-trace-id': 't-1', 'x-app-version': '3.1.1' } });
    expect(f.calls[0]!.init.headers).toEqual({ 'x-app-version': '3.1.1', 'x-trace-id': 't-1', accept: 'application/json', authorization: 'Bearer ak_x' });
  });

  it('retries an idempotent call after a 503, waiting its Retry-After', async () => {
    vi.useFakeTimers();
    const f = fakeFetch([busy, ok({ list: [], fav_index: '' })]);
    const waits: number[] = [];
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, onRetry: (r) => waits.push(r.waitMs) });
    const result = client.feed.next({});
    await vi.advanceTimersByTimeAsync(999);
    expect(f.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toEqual({ list: [], fav_index: '' });
    expect(f.calls).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('honours a 429\'s Retry-After, and gives up after the bounded retries', async () => {
    vi.useFakeTimers();
    const f = fakeFetch([limited]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, retries: 2, session: memorySession(session) });
    const result = client.keys.list().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1999);
    expect(f.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(f.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(await result).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: 2 });
    expect(f.calls).toHaveLength(3);
  });

  it('never retries a call that is not safe to repeat', async () => {
    for (const answer of [busy, limited]) {
      const f = fakeFetch([answer, answer, ok({})]);
      const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, session: memorySession(session) });
      await expect(client.comments.post({ vid: 'v_1', content: 'hi' })).rejects.toMatchObject({ status: answer.status });
      await expect(client.keys.create({ name: 'k' })).rejects.toMatchObject({ status: answer.status });
      expect(f.calls).toHaveLength(2);
    }
  });

  it('repeats a read that got no answer (a dropped connection), after 1 s less up to half at random, and never a write', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const dropped = () => Promise.reject(new TypeError('fetch failed'));
    let calls = 0;
    const flaky = (async (...args: Parameters<typeof fetch>) => (++calls === 1 ? dropped() : fakeFetch([ok({ list: [], fav_index: '' })]).fetch(...args))) as typeof fetch;
    const retried: string[] = [];
    const client = createClient({ baseUrl: 'http://api.test', fetch: flaky, onRetry: (r) => retried.push(`${r.error.code} ${r.waitMs}`) });
    const read = client.feed.next({});
    await vi.advanceTimersByTimeAsync(749);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(read).resolves.toEqual({ list: [], fav_index: '' });
    expect([calls, retried]).toEqual([2, ['NETWORK_ERROR 750']]);

    calls = 0;
    const writes = createClient({ baseUrl: 'http://api.test', fetch: flaky, session: memorySession(session) });
    await expect(writes.videos.like({ vid: 'v_1' })).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(calls).toBe(1);
  });

  it('retries a write the caller marked safe to repeat, and not a read marked unsafe', async () => {
    vi.useFakeTimers();
    const f = fakeFetch([busy, ok({ video: { vid: 'v_1' }, created: false })]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, accessKey: 'ak_x' });
    const published = client.videos.publish({ title: 'Expo', video_url: 'https://cdn.test/v.mp4', cover_url: 'https://cdn.test/v.jpg', duration_s: 60, external_id: 'run-7' }, { idempotent: true });
    await vi.advanceTimersByTimeAsync(1000);
    await expect(published).resolves.toMatchObject({ created: false });
    expect(f.calls).toHaveLength(2);

    const g = fakeFetch([busy, ok({})]);
    const reads = createClient({ baseUrl: 'http://api.test', fetch: g.fetch, accessKey: 'ak_x' });
    await expect(reads.me.get({}, { idempotent: false })).rejects.toMatchObject({ status: 503 });
    expect(g.calls).toHaveLength(1);
  });

  it('times out a call, and stops on its abort signal', async () => {
    const hanging = vi.fn((_: unknown, init: RequestInit = {}) => new Promise<Response>((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new Error('aborted')))));
    const client = createClient({ baseUrl: 'http://api.test', fetch: hanging as unknown as typeof fetch, retries: 0 });
    vi.useFakeTimers();
    const timed = client.service.health({}, { timeoutMs: 50 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(50);
    expect(await timed).toMatchObject({ code: 'TIMEOUT', status: 0 });
    vi.useRealTimers();
    const controller = new AbortController();
    const aborted = client.service.health({}, { signal: controller.signal, timeoutMs: 0 }).catch((e: unknown) => e);
    controller.abort();
    expect(await aborted).toMatchObject({ code: 'ABORTED' });
  });

  it('keeps the session from sign-in, and tells the app when the service ends it', async () => {
    const f = fakeFetch([ok({ openid: 'u_9', token: 'jwt-9', new_account: true, expires_at: '2027-01-01T00:00:00.000Z' }), { status: 401, body: { code: 'AUTH_ERROR', error: 'Missing or invalid credentials' } }]);
    const store = memorySession({ openid: 'u_old', token: 'jwt-old' });
    const ended = vi.fn();
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, session: store, onSessionEnded: ended });
    await client.auth.signIn({ openid: '+8613800138000', token: 'nonce-123', code: '123456' });
    expect(Object.fromEntries(f.calls[0]!.url.searchParams)).toMatchObject({ openid0: 'u_old', token0: 'jwt-old' });
    expect(await store.get()).toEqual({ openid: 'u_9', token: 'jwt-9', expires_at: '2027-01-01T00:00:00.000Z' });
    await expect(client.me.lists({ next_id: 0, fav_index: 0 })).rejects.toMatchObject({ code: 'AUTH_ERROR' });
    expect(ended).toHaveBeenCalledWith(expect.objectContaining({ session: { openid: 'u_9', token: 'jwt-9', expires_at: '2027-01-01T00:00:00.000Z' } }));
    expect(await store.get()).toBeNull();
  });

  it('pages a list through its cursor until the end', async () => {
    const f = fakeFetch([ok({ items: [1], next_cursor: 'c1' }), ok({ items: [2], next_cursor: 'c2' }), ok({ items: [], next_cursor: null })]);
    const client = createClient({ baseUrl: 'http://api.test', fetch: f.fetch, accessKey: 'ak_x' });
    const pages = [];
    for await (const page of client.exports.commentsPages({ limit: 1 })) pages.push(page.items);
    expect(pages).toEqual([[1], [2], []]);
    expect(f.calls.map((c) => c.url.searchParams.get('cursor'))).toEqual([null, 'c1', 'c2']);

    const g = fakeFetch([ok({ list: [1], page: 1, page_size: 20, total: 2, has_more: true }), ok({ list: [2], page: 2, page_size: 20, total: 2, has_more: false })]);
    const comments = createClient({ baseUrl: 'http://api.test', fetch: g.fetch, session: memorySession(session) });
    const lists = [];
    for await (const page of comments.comments.listPages({ vid: 'v_1', page: 1 })) lists.push(page.list);
    expect(lists).toHaveLength(2);
    expect(g.calls.map((c) => c.url.searchParams.get('page'))).toEqual(['1', '2']);
  });
});
