import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '../../platform/config.js';
import { logger } from '../../platform/logger.js';
import { observability } from '../../platform/observability/middleware.js';
import { countUnavailable } from '../../platform/observability/metrics.js';
import { decodeVerdict } from '../../features/auth/verdict.js';
import { AuthorizerUnavailable, principalFor } from './route-access.js';
import type { Principal } from '../../features/auth/principal.js';
import type { RouteAuth } from './routes.js';
import type { Scope } from '../../features/auth/scope-gate.js';
import type * as z from '../../platform/zod.js';
import { enforceScope } from '../../features/auth/scope-gate.js';
import { ForbiddenError, InternalError, ValidationError } from '../../platform/errors.js';
import { errorResponse, successResponse, type HttpResult } from './envelope.js';
import { frontDoor } from './front-door.js';
import { toAppError } from '../../platform/error-mapper.js';
import { lowerCaseHeaders, queryParameters, type ApiEvent, type HttpRequest } from './request.js';

/** What the chain works out once per request, before the handler: the lower-cased headers and the principal. */
interface Parsed {
  headers: Record<string, string>;
  principal: Principal | undefined;
}
const parsed = new WeakMap<object, Parsed>();

/** What the chain checks before a route's handler runs: who may call it, and its request's schemas. */
export interface ChainDeclaration<P, Q, B, G> {
  auth: RouteAuth;
  /** The scope an access key needs when ENFORCE_KEY_SCOPES is on. */
  scope?: Scope;
  /** Path parameters, query and JSON body, each parsed with its zod schema; a route without one gets the raw strings (no body). */
  request?: { path?: z.ZodMiniType<P>; query?: z.ZodMiniType<Q>; body?: z.ZodMiniType<B> };
  /**
   * What authorizes the caller against stored state (a stored role), run after the path and query
   * are parsed and before the body is: its answer (a 403) comes before any complaint about the body.
   */
  authorize?: (principal: Principal) => Promise<G>;
}

/** What a route's handler receives: the request, its path, query and body as its schemas output, and what `authorize` gave. */
export type RouteInput<P, Q, B, G> = Omit<HttpRequest, 'path' | 'query' | 'body'> & {
  path: P;
  query: Q;
  body: B;
  authorized: G;
  /** The body as it was sent (parsed JSON), for a use case that names a field by its position as sent. */
  rawBody: unknown;
};

export type RouteHandler<P, Q, B, G> = (input: RouteInput<P, Q, B, G>) => Promise<HttpResult>;

const isJsonObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null && !Array.isArray(body);

/**
 * The shared middleware chain of every JSON function, for the routes its module declares
 * (lib/transport/routes/: who may call them, the scope a key needs, the request's schemas): the log
 * context, trace and metrics of the invocation (observability.ts); one error mapping into the
 * contract's envelope (each 503 counted by cause); the front door; the authorizer's verdict decoded
 * once into the principal the declaration admits (lib/features/auth/verdict.ts: 401, 403, 429 or 503
 * otherwise); the scope gate when ENFORCE_KEY_SCOPES is on (both before the body is parsed); the
 * JSON body when the route declares one; then the path parameters, the query, `authorize` and the
 * body, each parsed with the route's schema (a bad one is 400 naming the parameter, as
 * lib/platform/error-mapper.ts words it; a body that is not a JSON object is 400 too); then the handler.
 */
export function httpHandler<P = Record<string, string>, Q = Record<string, string>, B = undefined, G = undefined>(
  declared: ChainDeclaration<P, Q, B, G>,
  handler: RouteHandler<P, Q, B, G>,
) {
  const chain = middy<ApiEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(observability<ApiEvent, APIGatewayProxyStructuredResultV2>())
    .use({
      onError: async (request) => {
        const requestId = request.event.requestContext?.requestId ?? 'unknown';
        const appError = toAppError(request.error);
        if (appError) {
          if (appError.status >= 500) {
            logger.warn('dependency unavailable', { requestId, errorName: request.error?.name });
            if (!(appError instanceof AuthorizerUnavailable)) countUnavailable(appError);
          }
          request.response = errorResponse(appError, requestId);
          return;
        }
        logger.error('unhandled error', { requestId, error: request.error as Error });
        request.response = errorResponse(new InternalError(requestId), requestId);
      },
    })
    .use({
      before: async (request) => {
        const headers = lowerCaseHeaders(request.event.headers);
        // Direct calls to the execute-api host are refused: only CloudFront adds the origin secret.
        if (!(await frontDoor.admits(headers))) throw new ForbiddenError('Call the API through its published URL');
        const principal = principalFor(decodeVerdict(request.event.requestContext.authorizer?.lambda), declared.auth);
        // The scope gate exists and is off by default (docs/protected-api.md, "The scope gate").
        if (principal && declared.scope && config.ENFORCE_KEY_SCOPES) enforceScope(principal, declared.scope, true);
        parsed.set(request.event, { headers, principal });
      },
    });
  const schemas = declared.request ?? {};
  if (schemas.body) chain.use(httpJsonBodyParser({ disableContentTypeError: false }));
  return chain.handler(async (event) => {
    const requestId = event.requestContext.requestId;
    const { headers, principal } = parsed.get(event)!;
    const rawPath = (event.pathParameters ?? {}) as Record<string, string>;
    const rawQuery = queryParameters(event);
    const path = (schemas.path ? schemas.path.parse(rawPath) : rawPath) as P;
    const query = (schemas.query ? schemas.query.parse(rawQuery) : rawQuery) as Q;
    const authorized = (declared.authorize ? await declared.authorize(principal!) : undefined) as G;
    let body = undefined as B;
    if (schemas.body) {
      if (!isJsonObject(event.body)) throw new ValidationError('The request body must be a JSON object');
      body = schemas.body.parse(event.body);
    }
    const input: RouteInput<P, Q, B, G> = {
      requestId,
      sourceIp: frontDoor.clientIp(headers, event.requestContext.http?.sourceIp ?? '0.0.0.0'),
      query,
      path,
      headers,
      body,
      rawBody: event.body,
      principal,
      authorized,
    };
    return successResponse(await handler(input), requestId);
  });
}

/** What an HTML (or plain file) function sees of its request. */
export interface PageRequest {
  requestId: string;
  rawPath: string;
  path: Record<string, string>;
  headers: Record<string, string>;
  /** The caller's IP, as for the JSON functions (the viewer's behind the checked front door). */
  sourceIp: string;
}

export interface PageResult {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const plain = (status: number, body: string, extra: Record<string, string> = {}): PageResult => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...extra },
  body,
});

/**
 * The chain of the functions that answer a page or a file rather than the JSON envelope (the share
 * page, the API reference and its document, the app-association files): observability, the front
 * door (403 when the origin secret is missing), `render`, and an `x-request-id` on every answer. A
 * dependency failure is a 503 with Retry-After (`unavailable` renders it, plain text otherwise),
 * counted by cause; a bug is a 500, logged with the request id.
 */
export function pageHandler(render: (request: PageRequest) => Promise<PageResult>, options: { unavailable?: (request: PageRequest) => PageResult } = {}) {
  return middy(async (event: ApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
    const requestId = event.requestContext.requestId;
    const headers = lowerCaseHeaders(event.headers);
    const request: PageRequest = { requestId, rawPath: event.rawPath, path: (event.pathParameters ?? {}) as Record<string, string>, headers, sourceIp: frontDoor.clientIp(headers, event.requestContext.http?.sourceIp ?? '0.0.0.0') };
    let result: PageResult;
    try {
      result = (await frontDoor.admits(request.headers)) ? await render(request) : plain(403, 'Forbidden');
    } catch (error) {
      const appError = toAppError(error);
      if (appError?.status === 503) {
        logger.warn('dependency unavailable', { requestId, errorName: (error as Error)?.name });
        countUnavailable(appError);
        const page = options.unavailable?.(request) ?? plain(503, 'Service Unavailable');
        result = { ...page, headers: { ...page.headers, 'retry-after': appError.headers['retry-after'] ?? '1' } };
      } else {
        logger.error('unhandled error', { requestId, error: error as Error });
        result = plain(500, `Internal error; request id ${requestId}`);
      }
    }
    return { statusCode: result.status, headers: { ...result.headers, 'x-request-id': requestId }, body: result.body };
  }).use(observability());
}
