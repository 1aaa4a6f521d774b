import { inject } from 'vitest';
import { createTables } from '../../infra/local/create-tables.js';
import { startLocalStack, type LocalStackOptions } from '../../infra/local/local-stack.js';

/** Creates this file's tables (see setup-env.ts) in the shared DynamoDB Local. */
export async function createTestTables(): Promise<void> {
  await createTables(inject('dynamoEndpoint'), process.env.TEST_TABLE_PREFIX);
}

/**
 * The local server in-process, against the shared DynamoDB Local and this file's tables: the same
 * routes, authorizer and handlers as `npm start`. Being in-process, tests can move `clock`.
 */
export async function startTestStack(options: Pick<LocalStackOptions, 'env' | 'staticDir' | 'devRoutes'> = {}) {
  const stack = await startLocalStack({
    dataDir: 'memory',
    dynamoEndpoint: inject('dynamoEndpoint'),
    tablePrefix: process.env.TEST_TABLE_PREFIX,
    ...options,
  });
  // lib/config.ts is parsed once, at its first import. A test file that imported lib/ code before
  // calling this would run with the old settings and silently ignore `env`: fail loudly instead.
  const { loadedEnvironment } = await import('../../lib/config.js');
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (loadedEnvironment[name] !== value) {
      await stack.stop();
      throw new Error(`lib/config.ts was loaded before startTestStack set ${name}; set it earlier (vi.hoisted) in this test file`);
    }
  }
  return stack;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: { code: 0; data: T } | { code: string; error: string };
  data: T;
}

/** A small fetch wrapper: JSON in, status, headers and the parsed envelope out. */
export function apiClient(baseUrl: string) {
  async function call<T = unknown>(method: string, path: string, options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
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
