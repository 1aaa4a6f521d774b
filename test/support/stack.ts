import { afterAll, afterEach, beforeAll } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { createTables } from '../../local/create-tables.js';
import { ensureDynamoDbLocal } from './dynamo.js';
import { DEV_ROUTES } from '../../local/dev-routes.js';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../local/local-stack.js';
import { invokeGateway } from '../../local/server.js';

/** Creates this file's tables (see setup-env.ts) in its DynamoDB Local, started here if need be. */
export async function createTestTables(): Promise<void> {
  await createTables(await ensureDynamoDbLocal(), process.env.TEST_TABLE_PREFIX);
}

/** The stream processors of the stacks this file started, by server URL (see apiClient). */
const streamsByUrl = new Map<string, LocalStack['streams']>();

/**
 * Waits until the stream processor of every stack this file started has applied what was written so
 * far: derived counters (a video's like_count and trend, an author's liked_count...) have converged.
 */
export async function settleStreams(): Promise<void> {
  await Promise.all([...streamsByUrl.values()].map((s) => s.settle()));
}

/**
 * The local server in-process, against this file's DynamoDB Local and tables: the same
 * routes, authorizer and handlers as `npm start`, and the same stream processor (on demand:
 * settleStreams). Being in-process, tests can move `clock`. With `http: false` (the api tier) there
 * is no HTTP server: apiClient(stack.url) invokes the gateway in-process (local/server.ts,
 * invokeGateway), the path the server itself takes after the socket.
 */
export async function startTestStack(options: Pick<LocalStackOptions, 'env' | 'staticDir' | 'devRoutes' | 'http' | 'streams'> = {}) {
  const stack = await startLocalStack({
    dataDir: 'memory',
    streams: 'on-demand',
    dynamoEndpoint: await ensureDynamoDbLocal(),
    tablePrefix: process.env.TEST_TABLE_PREFIX,
    ...options,
  });
  streamsByUrl.set(stack.url, stack.streams);
  const stop = stack.stop;
  return Object.assign(stack, {
    stop: async () => {
      streamsByUrl.delete(stack.url);
      await stop();
    },
  });
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: { code: 0; data: T } | { code: string; error: string };
  data: T;
}

/** What a call may carry besides its path. */
export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * A small fetch wrapper: JSON in, status, headers and the parsed envelope out. The stack's stream
 * processor runs on demand: a test that reads derived counters (a video's like_count, comment_count
 * and trend, an author's liked_count) calls settleStreams() first, or makes its client with
 * `settle: true`, which settles before each call, as a client would see them a moment later.
 */
export function apiClient(baseUrl: string, clientOptions: { settle?: boolean } = {}) {
  async function call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    if (clientOptions.settle === true) await streamsByUrl.get(baseUrl)?.settle();
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    if (baseUrl.startsWith('inprocess:')) {
      const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
      const out = await invokeGateway({ method, url: new URL(path, 'http://127.0.0.1'), headers: { host: '127.0.0.1', ...lower }, body, sourceIp: '127.0.0.1' }, { devRoutes: DEV_ROUTES });
      // A page or a file (the share page, the API reference) is not the envelope: its text is the body.
      const json = (out.headers['content-type'] ?? '').startsWith('application/json');
      const parsed = (json ? JSON.parse(out.body) : out.body) as ApiResponse<T>['body'];
      return { status: out.status, headers: new Headers(out.headers), body: parsed, data: (parsed as { data: T }).data };
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const parsed = (await res.json()) as ApiResponse<T>['body'];
    return { status: res.status, headers: res.headers, body: parsed, data: (parsed as { data: T }).data };
  }
  return {
    get: <T = unknown>(path: string, o?: Parameters<typeof call>[2]) => call<T>('GET', path, o),
    post: <T = unknown>(path: string, o?: Parameters<typeof call>[2]) => call<T>('POST', path, o),
    delete: <T = unknown>(path: string, o?: Parameters<typeof call>[2]) => call<T>('DELETE', path, o),
  };
}

/**
 * The local server for this test file: started before its tests (after the hooks registered earlier,
 * e.g. a stand-in whose URL goes into the environment), stopped after them; the clock is reset after
 * each test. Returns the API client, usable once the tests run.
 */
export function useTestStack(options: Parameters<typeof startTestStack>[0] & { settle?: boolean } = {}): ReturnType<typeof apiClient> {
  let stack: Awaited<ReturnType<typeof startTestStack>> | undefined;
  let client: ReturnType<typeof apiClient> | undefined;
  beforeAll(async () => {
    const { settle, ...stackOptions } = options;
    stack = await startTestStack(stackOptions);
    client = apiClient(stack.url, { settle });
  });
  afterAll(async () => stack?.stop());
  afterEach(() => clock.reset());
  const started = () => {
    if (!client) throw new Error('useTestStack: the stack is not started yet (use the client inside tests and hooks)');
    return client;
  };
  return {
    get: <T = unknown>(path: string, o?: CallOptions) => started().get<T>(path, o),
    post: <T = unknown>(path: string, o?: CallOptions) => started().post<T>(path, o),
    delete: <T = unknown>(path: string, o?: CallOptions) => started().delete<T>(path, o),
  };
}
