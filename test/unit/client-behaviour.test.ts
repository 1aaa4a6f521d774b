import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, ExpohubError, memorySession, type Session } from '../../client/src/index.js';

/**
 * @expohub/client's behaviour with an injected fetch: the envelope, the error, Retry-After on 429/503
 * for idempotent calls only, timeouts and abort, the session-ended event, paging.
 */
type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

function fakeFetch(answers: Answer[]) {
  const calls: { url: URL; init: RequestInit }[] = [];
  const fn = vi.fn(async (input: string | URL | Request, init: RequestInit = {}) => {
    calls.push({ url: new URL(String(input)), init });
    const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    return new Response(JSON.stringify(a.body ?? { code: 0, data: {} }), { status: a.status, headers: { 'content-type': 'application/json', 'x-request-id': `req-${calls.length}`, ...a.headers } });
  });
  return { fetch: fn as unknown as typeof fetch, calls };
}

const ok = (data: unknown): Answer => ({ status: 200, body: { code: 0, data } });
const busy: Answer = { status: 503, body: { code: 'UNAVAILABLE', error: 'The service is busy' }, headers: { 'retry-after': '1' } };
const limited: Answer = { status: 429, body: { code: 'RATE_LIMITED', error: 'Too many requests' }, headers: { 'retry-after': '2' } };
const session: Session = { openid: 'u_1', token: 'jwt-1' };

afterEach(() => {
  vi.useRealTimers();
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
