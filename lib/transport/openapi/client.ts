import type { components, paths } from './generated/api-types.js';

/**
 * The typed client of the API, from the generated types of the OpenAPI document (api-types.ts,
 * `npm run openapi`): each call's path, parameters, body and answer are checked against the
 * document at compile time. How a request travels (headers, timeout, retries, errors) stays with
 * the caller: it passes a `send` that returns the envelope's `data` (the key page's api(), the CLI's
 * call()). Types only at run time: a path template and a query string.
 */
export type ApiPaths = paths;
type Method = 'get' | 'post' | 'delete';
type Schemas = components['schemas'];

/** The paths that have an operation for `method`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends Record<M, infer O> ? (O extends undefined ? never : P) : never }[keyof paths];
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

type Param<O, K extends 'path' | 'query'> = O extends { parameters: { [k in K]?: infer T } } ? ([T] extends [never] | [undefined] ? never : T) : never;
type Body<O> = O extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** 201 or 202 (a deletion under way) first: a route that also answers 200 does so for a variant (a dry run). */
type SuccessOf<R> = R extends { 201: infer S } ? S : R extends { 202: infer S } ? S : R extends { 200: infer S } ? S : never;
/** The `data` of the success envelope. */
export type ResponseData<P extends keyof paths, M extends Method> =
  SuccessOf<Operation<P, M> extends { responses: infer R } ? R : never> extends { content: { 'application/json': { data: infer D } } } ? D : unknown;

/** What a call carries: only what the document says the operation takes. */
export type CallOptions<P extends keyof paths, M extends Method> = ([Param<Operation<P, M>, 'path'>] extends [never] ? { path?: never } : { path: Param<Operation<P, M>, 'path'> }) &
  ([Param<Operation<P, M>, 'query'>] extends [never] ? { query?: never } : { query?: Param<Operation<P, M>, 'query'> }) &
  ([Body<Operation<P, M>>] extends [never] ? { body?: never } : { body: Body<Operation<P, M>> });

/** The hub's `do` values, from components.schemas.HubQuery_<do>. */
export type HubOperationName = { [K in keyof Schemas]: K extends `HubQuery_${infer O}` ? O : never }[keyof Schemas];
export type HubQuery<O extends HubOperationName> = Omit<Schemas[`HubQuery_${O}`], 'do'>;
/** An operation's `data`, where the document writes it down (HubData_<do>). */
export type HubData<O extends HubOperationName> = `HubData_${O}` extends keyof Schemas ? Schemas[`HubData_${O}`] : unknown;

export type Send = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => Promise<unknown>;

/** `/api/v1/api-keys/{id}/revoke` with `{id: 42}` -> `/api/v1/api-keys/42/revoke`, plus the query string. */
export function buildUrl(path: string, params: { path?: Record<string, string | number>; query?: Record<string, string | number | undefined> } = {}): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params.path?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} of ${path}`);
    return encodeURIComponent(String(value));
  });
  // encodeURIComponent, not URLSearchParams: a space is %20, which every server reads as a space ('+' is form encoding).
  const qs = Object.entries(params.query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return qs ? `${filled}?${qs}` : filled;
}

export function typedClient(send: Send) {
  const call =
    <M extends Method>(method: M) =>
    <P extends PathsWith<M>>(path: P, ...[options]: Partial<CallOptions<P, M>> extends CallOptions<P, M> ? [CallOptions<P, M>?] : [CallOptions<P, M>]) => {
      const o = (options ?? {}) as { path?: Record<string, string | number>; query?: Record<string, string>; body?: unknown };
      return send(method.toUpperCase() as 'GET' | 'POST' | 'DELETE', buildUrl(path, o), o.body) as Promise<ResponseData<P, M>>;
    };
  return {
    get: call('get'),
    post: call('post'),
    delete: call('delete'),
    /** `GET /api/v1?do=<op>&...`. */
    hub: <O extends HubOperationName>(op: O, query: HubQuery<O>) => send('GET', buildUrl('/api/v1', { query: { do: op, ...(query as Record<string, string>) } })) as Promise<HubData<O>>,
  };
}
