/**
 * @expohub/client: every hub operation and every route of the expohub API as a typed method
 * (./generated.ts, written by scripts/client/generate.ts from the same declarations as the OpenAPI
 * document). Only `fetch`, `AbortController` and timers: Node 20, browsers and React Native.
 */
import { OPERATIONS, type Operations } from './generated.js';

export type * from './generated.js';
export { OPERATIONS } from './generated.js';

/** A signed-in person: the login token (a JWT) and the account's openid. */
export interface Session {
  token: string;
  openid: string;
  expires_at?: string;
}

/** Where the session is kept (memory by default): AsyncStorage, SecureStore, localStorage... */
export interface SessionStore {
  get(): Session | null | undefined | Promise<Session | null | undefined>;
  set(session: Session | null): void | Promise<void>;
}

export function memorySession(initial: Session | null = null): SessionStore {
  let current = initial;
  return {
    get: () => current,
    set: (session) => {
      current = session;
    },
  };
}

export interface ClientOptions {
  /** The API's origin, e.g. https://api.example.com (the paths start with /api/v1). */
  baseUrl: string;
  session?: SessionStore;
  /** An access key (ak_...) for scripts: sent as Authorization: Bearer when no session is held. */
  accessKey?: string;
  fetch?: typeof fetch;
  /** Per attempt, milliseconds (default 30000; 0: none). */
  timeoutMs?: number;
  /** Retries of an idempotent call answered 429 or 503, or not answered (network error, timeout) (default 2). */
  retries?: number;
  /** The longest wait for a Retry-After before giving up, milliseconds (default 30000). */
  maxRetryWaitMs?: number;
  /** The openid the anonymous feed is read with when no session is held (default "anonymous"). */
  anonymousId?: string;
  /** Called when the service answers 401 to a call made with the stored session: it has ended (the store is cleared first). */
  onSessionEnded?: (info: { error: ExpohubError; session: Session }) => void;
  /** Called before each retry, with the wait (for logs). */
  onRetry?: (info: { name: string; attempt: number; waitMs: number; error: ExpohubError }) => void;
  /** Headers sent with every call (an app version, a trace id). Authorization, accept and content-type are the client's. */
  headers?: Record<string, string>;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  retries?: number;
  /**
   * Whether this call is safe to repeat after a 429 or 503 (default: the operation's own mark, true
   * for reads). Set it on a write you made safe, e.g. videos.publish with an external_id.
   */
  idempotent?: boolean;
  /** Headers for this call only, over the client's. */
  headers?: Record<string, string>;
}

/** Every failure: the envelope's code and message, the field a 400 names, the HTTP status, the request id. */
export class ExpohubError extends Error {
  override readonly name = 'ExpohubError';
  constructor(
    /** VALIDATION_ERROR, AUTH_ERROR, FORBIDDEN, NOT_FOUND, LIMIT_EXCEEDED, RATE_LIMITED, INTERNAL_ERROR, UNAVAILABLE; TIMEOUT, ABORTED, NETWORK_ERROR (no answer). */
    readonly code: string,
    message: string,
    /** HTTP status; 0 when no answer came. */
    readonly status: number,
    details: ErrorDetails = {},
  ) {
    super(message);
    this.requestId = details.requestId;
    this.field = details.field;
    this.retryAfter = details.retryAfter;
    this.envelope = details.envelope ?? false;
    this.cause = details.cause;
  }
  readonly requestId?: string;
  /** The parameter a 400 names. */
  readonly field?: string;
  /** Seconds, from Retry-After. */
  readonly retryAfter?: number;
  /**
   * Whether the answer was the API's envelope ({code, error}). False when no answer came (status 0)
   * or when something else answered (a proxy's or a gateway's page): then the message is "HTTP <status>".
   */
  readonly envelope: boolean;
  /** What failed underneath (the fetch error of a NETWORK_ERROR). */
  override readonly cause?: unknown;
}

/** What an ExpohubError carries beyond its code, message and status. */
export interface ErrorDetails {
  requestId?: string;
  field?: string;
  retryAfter?: number;
  envelope?: boolean;
  cause?: unknown;
}

const aborted = () => new ExpohubError('ABORTED', 'The call was aborted', 0);

/** A form-style query with every space as %20 (URLSearchParams writes '+', which some servers keep as a plus). */
function queryString(entries: [string, string][]): string {
  return entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

type Name = keyof Operations;
type Spec = {
  kind: 'hub' | 'route';
  method: string;
  path: string;
  do?: string;
  auth: string;
  idempotent: boolean;
  /** Parameters the API requires but accepts empty: sent as '' when not given. */
  empty?: readonly string[];
  answer?: string;
  query?: readonly string[];
  body?: readonly string[] | null;
  page?: { param: string; next: string; end: unknown };
};

type Params<N extends Name> = Operations[N]['params'];
type Data<N extends Name> = Operations[N]['data'];
/** A method: its parameters may be left out when none is required. */
type Method<N extends Name> = Record<string, never> extends Params<N> ? (params?: Params<N>, options?: CallOptions) => Promise<Data<N>> : (params: Params<N>, options?: CallOptions) => Promise<Data<N>>;
type Pager<N extends Name> = Record<string, never> extends Params<N> ? (params?: Params<N>, options?: CallOptions) => AsyncIterable<Data<N>> : (params: Params<N>, options?: CallOptions) => AsyncIterable<Data<N>>;
type Paged = { [N in Name]: (typeof OPERATIONS)[N] extends { page: object } ? N : never }[Name];

type Group<N extends string> = N extends `${infer G}.${string}` ? G : never;
type Member<N extends string> = N extends `${string}.${infer M}` ? M : never;
type PageName<M extends string> = `${M}Pages`;

/** The client's methods, grouped: `client.feed.next(...)`, and `client.feed.nextPages(...)` (an async iterator over pages) for every cursor-paged list. */
export type Methods = {
  [G in Group<Name>]: { [N in Name as Group<N> extends G ? Member<N> : never]: Method<N> } & {
    [N in Paged as Group<N> extends G ? PageName<Member<N>> : never]: Pager<N>;
  };
};

export type ExpohubClient = Methods & {
  /** Calls a method by its name (`'feed.next'`). */
  call<N extends Name>(name: N, params: Params<N>, options?: CallOptions): Promise<Data<N>>;
  /** Every page of a paged list, following its cursor. */
  pages<N extends Paged>(name: N, params: Params<N>, options?: CallOptions): AsyncIterable<Data<N>>;
  session: SessionStore;
};

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });

function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** The parameter a 400 names: `Invalid parameter "vid": ...`, `Missing parameter "do": ...` (lib/platform/error-mapper.ts). */
function fieldOf(message: string): string | undefined {
  return /parameter "([^"]+)"/.exec(message)?.[1];
}

const text = (v: unknown) => (typeof v === 'string' ? v : String(v));

export function createClient(options: ClientOptions): ExpohubClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const session = options.session ?? memorySession();
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const table = OPERATIONS as unknown as Record<Name, Spec>;

  async function once(spec: Spec, params: Record<string, unknown>, held: Session | null, call: CallOptions): Promise<{ data: unknown } | { error: ExpohubError }> {
    const query = new Map<string, string>();
    let path = spec.path;
    let body: Record<string, unknown> | undefined;
    // Names in lower case, so that the app's `Authorization` cannot ride beside the client's `authorization`.
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...options.headers, ...call.headers })) headers[k.toLowerCase()] = v;
    headers.accept = 'application/json';
    if (spec.kind === 'hub') {
      query.set('do', spec.do!);
      for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) query.set(k, text(v));
      for (const k of spec.empty ?? []) if (!query.has(k)) query.set(k, '');
      if (spec.auth !== 'none' && !query.has('openid')) query.set('openid', held?.openid ?? options.anonymousId ?? 'anonymous');
      if (spec.do === 'create_phone_account') {
        if (!query.has('openid0')) query.set('openid0', held?.openid ?? '');
        if (!query.has('token0')) query.set('token0', held?.token ?? '');
      }
    } else {
      for (const [k, v] of Object.entries(params)) {
        if (v === undefined) continue;
        const inPath = spec.path.includes(`{${k}}`);
        // A name the route does not take would reach the server in the query string, which ignores it.
        if (!inPath && !spec.body?.includes(k) && !spec.query?.includes(k)) return { error: new ExpohubError('VALIDATION_ERROR', `Unknown parameter "${k}": ${spec.method} ${spec.path} does not take it`, 0, { field: k }) };
        if (inPath) path = path.replace(`{${k}}`, encodeURIComponent(text(v)));
        else if (spec.body?.includes(k)) (body ??= {})[k] = v;
        else if (v !== null) query.set(k, text(v));
      }
      if (spec.body && !body) body = {};
    }
    const credential = spec.auth === 'none' ? undefined : (held?.token ?? options.accessKey);
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (body) headers['content-type'] = 'application/json';
    const qs = queryString([...query]);

    if (call.signal?.aborted) return { error: aborted() };
    const controller = new AbortController();
    const timeoutMs = call.timeoutMs ?? options.timeoutMs ?? 30_000;
    let timedOut = false;
    const timer = timeoutMs > 0 ? setTimeout(() => ((timedOut = true), controller.abort()), timeoutMs) : undefined;
    const abort = () => controller.abort();
    call.signal?.addEventListener('abort', abort, { once: true });
    let response: Response;
    try {
      response = await doFetch(`${base}${path}${qs ? `?${qs}` : ''}`, { method: spec.method, headers, body: body ? JSON.stringify(body) : undefined, signal: controller.signal });
    } catch (error) {
      if (timedOut) return { error: new ExpohubError('TIMEOUT', `No answer within ${timeoutMs} ms`, 0) };
      if (call.signal?.aborted) return { error: aborted() };
      return { error: new ExpohubError('NETWORK_ERROR', error instanceof Error ? error.message : 'The request failed', 0, { cause: error }) };
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', abort);
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (spec.answer === 'html' || spec.answer === 'file') {
      const raw = await response.text();
      if (response.ok) return { data: raw };
      return { error: new ExpohubError(response.status === 404 ? 'NOT_FOUND' : 'HTTP_ERROR', `HTTP ${response.status}`, response.status, { requestId }) };
    }
    let payload: { code?: unknown; data?: unknown; error?: unknown } | undefined;
    try {
      payload = (await response.json()) as typeof payload;
    } catch {
      payload = undefined;
    }
    if (response.ok && payload && payload.code === 0) return { data: payload.data };
    const envelope = typeof payload?.code === 'string' && typeof payload.error === 'string';
    const code = envelope ? String(payload!.code) : response.status >= 500 ? 'UNAVAILABLE' : 'HTTP_ERROR';
    const message = envelope ? String(payload!.error) : `HTTP ${response.status}`;
    const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
    return { error: new ExpohubError(code, message, response.status, { requestId, field: response.status === 400 ? fieldOf(message) : undefined, retryAfter, envelope }) };
  }

  async function call(name: Name, params: Record<string, unknown> = {}, call: CallOptions = {}): Promise<unknown> {
    const spec = table[name];
    if (!spec) throw new ExpohubError('VALIDATION_ERROR', `Unknown method ${String(name)}`, 0);
    const retries = (call.idempotent ?? spec.idempotent) ? Math.max(0, call.retries ?? options.retries ?? 2) : 0;
    const held = (await session.get()) ?? null;
    for (let attempt = 0; ; attempt++) {
      const result = await once(spec, params, held, call);
      if ('data' in result) {
        if (spec.do === 'create_phone_account') {
          const d = result.data as { openid: string; token: string; expires_at?: string };
          await session.set({ openid: d.openid, token: d.token, expires_at: d.expires_at });
        }
        if (name === 'auth.signOut' || spec.do === 'delete_account' || name === 'me.delete') await session.set(null);
        return result.data;
      }
      const { error } = result;
      if (error.status === 401 && held && spec.auth !== 'none' && !params.token && (params.openid === undefined || params.openid === held.openid)) {
        await session.set(null);
        options.onSessionEnded?.({ error, session: held });
        throw error;
      }
      // Busy (429, 503), or no answer at all (a dropped connection, a timeout): a call safe to repeat
      // goes again. An abort is the caller's own decision.
      const transient = error.status === 429 || error.status === 503 || error.code === 'NETWORK_ERROR' || error.code === 'TIMEOUT';
      // The service's Retry-After as given; without one 1 s, 2 s, 4 s... each cut by up to half at
      // random, so that the apps an outage dropped at the same moment do not come back together.
      const wait = error.retryAfter !== undefined ? error.retryAfter * 1000 : Math.round(2 ** attempt * 1000 * (1 - Math.random() / 2));
      if (!transient || attempt >= retries || wait > (options.maxRetryWaitMs ?? 30_000)) throw error;
      options.onRetry?.({ name, attempt: attempt + 1, waitMs: wait, error });
      await sleep(wait, call.signal);
    }
  }

  async function* pages(name: Name, params: Record<string, unknown> = {}, callOptions: CallOptions = {}): AsyncGenerator<unknown> {
    const page = table[name]?.page;
    if (!page) throw new ExpohubError('VALIDATION_ERROR', `${String(name)} is not a paged list`, 0);
    let current = { ...params };
    for (let seen = 0; seen < 100_000; seen++) {
      const data = (await call(name, current, callOptions)) as Record<string, unknown>;
      yield data;
      if (page.end === 'has_more') {
        if (!data.has_more) return;
        current = { ...current, [page.param]: Number(data.page ?? current[page.param] ?? 1) + 1 };
        continue;
      }
      const next = data[page.next];
      if (next === undefined || next === null || next === '' || next === -1) return;
      current = { ...current, [page.param]: next };
    }
  }

  const client: Record<string, unknown> = {
    call: (name: Name, params?: Record<string, unknown>, o?: CallOptions) => call(name, params, o),
    pages: (name: Name, params?: Record<string, unknown>, o?: CallOptions) => pages(name, params, o),
    session,
  };
  for (const name of Object.keys(table) as Name[]) {
    const [group, member] = name.split('.') as [string, string];
    const target = (client[group] ??= {}) as Record<string, unknown>;
    target[member] = (params?: Record<string, unknown>, o?: CallOptions) => call(name, params, o);
    if (table[name].page) target[`${member}Pages`] = (params?: Record<string, unknown>, o?: CallOptions) => pages(name, params, o);
  }
  return client as unknown as ExpohubClient;
}
