// Long by nature: API Gateway's part for the local runtime: routing, payload 2.0 events, the
// authorizer, static files and the HTTP transport's edge cases (docs/api-keys.md, "Envelope").
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyStructuredResultV2, APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import { DEEP_LINK_REQUEST_PATHS } from '../web/src/page-paths.js';
import { FUNCTIONS, ROUTES, usesAuthorizer, type FunctionName, type RouteSpec } from '../infra/routes.js';

const PROJECT_ROOT = resolve(import.meta.dirname, '..');
const MAX_BODY_BYTES = 1024 * 1024;

/** A route that only the local runtime serves (e.g. `/_dev/sms`); never part of the stack. */
export interface DevRoute {
  method: 'GET' | 'POST';
  path: string;
  handle(url: URL): Promise<{ status: number; body: unknown }>;
}

export interface LocalServerOptions {
  port: number;
  /** The address to listen on (default 127.0.0.1); requests are answered only for loopback host names. */
  host?: string;
  /** Folder of the built web page, served at `/`. */
  staticDir?: string;
  devRoutes?: DevRoute[];
}

export interface LocalServer {
  url: string;
  server: Server;
  /**
   * Stops taking connections, refuses requests that arrive meanwhile on open connections (503
   * `UNAVAILABLE`, `connection: close`), lets the requests in flight finish for up to `graceMs`
   * (default 3 s), then closes every connection.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

interface CompiledRoute {
  spec: RouteSpec;
  pattern: RegExp;
  paramNames: string[];
  literalSegments: number;
}

/**
 * Whether a request's `Host` names this machine's loopback interface: `127.0.0.1`, `[::1]`,
 * `localhost` or a `*.localhost` name (which resolve to loopback without DNS), any case, with or
 * without a port. The host name of a page an attacker re-points at 127.0.0.1 (DNS rebinding) is none
 * of these, so a web page cannot read `/_dev/sms` or call the API as the local user (docs/web.md,
 * "Running it locally").
 */
function isLoopbackHost(host: string | undefined): boolean {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec(host ?? '');
  if (!match) return false;
  const name = match[1]!.toLowerCase();
  return name === '127.0.0.1' || name === '[::1]' || name === 'localhost' || /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+localhost$/.test(name);
}

/** A path whose percent-encoding does not decode (`%ZZ`, a cut UTF-8 sequence): 400, not a crash. */
class MalformedPathError extends Error {}
const MALFORMED_PATH = { code: 'VALIDATION_ERROR', error: 'Invalid path: malformed percent-encoding (encode each path segment as UTF-8)' };

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new MalformedPathError('malformed percent-encoding');
  }
}

function compileRoute(spec: RouteSpec): CompiledRoute {
  const paramNames: string[] = [];
  const source = spec.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      paramNames.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { spec, pattern: new RegExp(`^${source}$`), paramNames, literalSegments: spec.path.split('/').length - paramNames.length };
}

// API Gateway prefers the most specific route: literal segments beat path parameters.
const COMPILED = ROUTES.map(compileRoute).sort((a, b) => b.literalSegments - a.literalSegments);
const COMPILED_BY_SPEC = new Map(COMPILED.map((c) => [c.spec, c]));

const handlerCache = new Map<FunctionName, Promise<LambdaHandler>>();
export function loadHandler(name: FunctionName): Promise<LambdaHandler> {
  let loaded = handlerCache.get(name);
  if (!loaded) {
    loaded = import(pathToFileURL(join(PROJECT_ROOT, FUNCTIONS[name].entry)).href).then((m) => m.handler as LambdaHandler);
    handlerCache.set(name, loaded);
  }
  return loaded;
}

export function lambdaContext(name: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${name}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/local-${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Headers as API Gateway passes them in payload 2.0: lower-case names, repeated values comma-joined. */
function gatewayHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return headers;
}

function gatewayQuery(url: URL): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) out[k] = k in out ? `${out[k]},${v}` : v;
  return Object.keys(out).length > 0 ? out : undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown, requestId: string, extra: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...extra });
  res.end(JSON.stringify(body));
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

/** The page's files; its deep links (web/src/page-paths.ts) are index.html, as CloudFront serves them. */
async function serveStatic(staticDir: string, pathname: string, res: ServerResponse): Promise<boolean> {
  const relative = normalize(decodePathSegment(pathname)).replace(/^(\.\.[/\\])+/, '');
  let file = join(staticDir, relative === '/' || DEEP_LINK_REQUEST_PATHS.includes(pathname) ? 'index.html' : relative);
  if (!file.startsWith(staticDir)) return false;
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) file = join(file, 'index.html');
  else if (!info) return false;
  const type = MIME[extname(file)] ?? 'application/octet-stream';
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' });
  createReadStream(file).pipe(res);
  return true;
}

/** What the local gateway needs of an HTTP request to build API Gateway's events. */
export interface GatewayRequest {
  method: string;
  url: URL;
  /** Lower-case names, as API Gateway passes them in payload 2.0. */
  headers: Record<string, string>;
  body?: string;
  sourceIp?: string;
  protocol?: string;
  requestId: string;
}

/** The payload 2.0 event a function receives; the authorizer's verdict is added under `requestContext.authorizer`. */
export type GatewayEvent = ReturnType<typeof buildFunctionEvent>;

/** The route API Gateway would pick for `method pathname`, with its decoded path parameters. */
export function matchRoute(method: string, pathname: string): { route: RouteSpec; pathParameters: Record<string, string> } | undefined {
  const route = COMPILED.find((r) => r.spec.method === method && r.pattern.test(pathname));
  if (!route) return undefined;
  const values = route.pattern.exec(pathname)!.slice(1);
  return { route: route.spec, pathParameters: Object.fromEntries(route.paramNames.map((n, i) => [n, decodePathSegment(values[i]!)])) };
}

function buildFunctionEvent(route: RouteSpec, request: GatewayRequest) {
  const { method, url, headers, requestId } = request;
  const compiled = COMPILED_BY_SPEC.get(route) ?? compileRoute(route);
  const values = compiled.pattern.exec(url.pathname)?.slice(1) ?? [];
  const { paramNames } = compiled;
  const pathParameters = Object.fromEntries(paramNames.map((n, i) => [n, decodePathSegment(values[i] ?? '')]));
  const routeKey = `${route.method} ${route.path}`;
  const now = new Date();
  const requestContext = {
    accountId: '000000000000',
    apiId: 'local',
    domainName: headers.host ?? 'localhost',
    domainPrefix: 'local',
    http: {
      method,
      path: url.pathname,
      protocol: request.protocol ?? 'HTTP/1.1',
      sourceIp: request.sourceIp ?? '127.0.0.1',
      userAgent: headers['user-agent'] ?? '',
    },
    requestId,
    routeKey,
    stage: '$default',
    time: now.toUTCString(),
    timeEpoch: now.getTime(),
  };
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.startsWith('?') ? url.search.slice(1) : url.search,
    cookies: headers.cookie ? headers.cookie.split(/;\s*/) : undefined,
    headers,
    queryStringParameters: gatewayQuery(url),
    pathParameters: paramNames.length > 0 ? pathParameters : undefined,
    requestContext: requestContext as typeof requestContext & { authorizer?: { lambda: Record<string, unknown> } },
    body: request.body,
    isBase64Encoded: false,
  };
}

/**
 * The payload 2.0 events API Gateway builds for a request on `route`: the function's event and, on a
 * route with the Lambda authorizer, the authorizer's (REQUEST type). Shared by the local server and
 * the benchmarks, which invoke handlers in-process with exactly these events.
 */
export function toGatewayEvent(route: RouteSpec, request: GatewayRequest): { event: GatewayEvent; authorizerEvent?: APIGatewayRequestAuthorizerEventV2 } {
  const event = buildFunctionEvent(route, request);
  if (!usesAuthorizer(route)) return { event };
  const authorizerEvent: APIGatewayRequestAuthorizerEventV2 = {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${request.method}${request.url.pathname}`,
    identitySource: request.headers.authorization ? [request.headers.authorization] : [],
    routeKey: event.routeKey,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString,
    cookies: [],
    headers: request.headers,
    queryStringParameters: event.queryStringParameters ?? {},
    requestContext: event.requestContext as APIGatewayRequestAuthorizerEventV2['requestContext'],
    pathParameters: event.pathParameters ?? {},
    stageVariables: {},
  };
  return { event, authorizerEvent };
}

/** A request as it reaches API Gateway (the local server's, or a test's in-process call); a request id is made when it has none. */
export type InvokeRequest = Omit<GatewayRequest, 'requestId'> & { requestId?: string };

export interface InvokeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
  /** True when no route (nor dev route) has the path: the HTTP server may serve a static file instead. */
  unrouted?: boolean;
}

const jsonAnswer = (status: number, body: unknown, requestId: string): InvokeResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId },
  body: JSON.stringify(body),
});

/**
 * What API Gateway does with one request, in-process: the route (or a dev route), the payload 2.0
 * events, the Lambda authorizer first where the route has one, then the same handler module the
 * stack deploys. The local HTTP server answers through it, and so do the api-tier tests and the
 * benchmarks (test/support/stack.ts, bench/invoke.ts), so all three run the same path. `onPhase`
 * tells which of the two is running (the benchmarks attribute DynamoDB requests by it).
 */
export async function invokeGateway(
  request: InvokeRequest,
  options: { devRoutes?: DevRoute[]; onPhase?: (phase: 'authorizer' | 'function') => void } = {},
): Promise<InvokeResponse> {
  const requestId = request.requestId ?? randomUUID();
  const { method, url } = request;
  try {
    const dev = options.devRoutes?.find((r) => r.method === method && r.path === url.pathname);
    if (dev) {
      const out = await dev.handle(url);
      return jsonAnswer(out.status, out.body, requestId);
    }
    const pathMatches = COMPILED.filter((r) => r.pattern.test(url.pathname));
    const route = pathMatches.find((r) => r.spec.method === method);
    if (!route) {
      // API Gateway answers unknown routes itself; we use the contract's envelope for them.
      return {
        ...jsonAnswer(
          pathMatches.length > 0 ? 405 : 404,
          { code: 'NOT_FOUND', error: pathMatches.length > 0 ? `${method} is not allowed on ${url.pathname}` : `No route for ${method} ${url.pathname}` },
          requestId,
        ),
        unrouted: pathMatches.length === 0,
      };
    }
    const { event, authorizerEvent } = toGatewayEvent(route.spec, { ...request, requestId });
    if (authorizerEvent) {
      let decision: { isAuthorized: boolean; context?: unknown };
      options.onPhase?.('authorizer');
      try {
        const authorize = await loadHandler('authorizer');
        decision = (await authorize(authorizerEvent, lambdaContext('authorizer', requestId))) as typeof decision;
      } catch {
        // What API Gateway does when the authorizer fails.
        return jsonAnswer(500, { message: 'Internal Server Error' }, requestId);
      } finally {
        options.onPhase?.('function');
      }
      if (!decision.isAuthorized) return jsonAnswer(403, { message: 'Forbidden' }, requestId);
      event.requestContext.authorizer = { lambda: (decision.context ?? {}) as Record<string, unknown> };
    }
    const handler = await loadHandler(route.spec.function);
    const result = (await handler(event, lambdaContext(route.spec.function, requestId))) as APIGatewayProxyStructuredResultV2;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
    return { status: result.statusCode ?? 200, headers, body: result.body ?? '', isBase64Encoded: result.isBase64Encoded };
  } catch (error) {
    if (error instanceof MalformedPathError) return jsonAnswer(400, MALFORMED_PATH, requestId);
    console.error(`[local] request ${requestId} failed:`, error);
    return jsonAnswer(500, { code: 'INTERNAL_ERROR', error: `Internal error; request id ${requestId}` }, requestId);
  }
}

/**
 * The local stand-in for API Gateway over HTTP: the Host check (loopback names only), the body, the
 * gateway's routes and handlers (invokeGateway), the web page's files for the paths no route has.
 */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  let closing = false;
  /** Requests being answered: close() lets them finish (and closes their connections after them). */
  const inFlight = new Set<ServerResponse>();
  /**
   * Handlers still running, answered or not: close() returns only once each has returned, so the
   * store is never stopped under one half-way (a comment's number taken and its comment not yet
   * written). A response counts in `inFlight` until its connection closes, which a client that gives
   * up or the grace's end does before the handler has finished.
   */
  let running = 0;
  /** Open connections: requests being answered on each, and answered so far. */
  const connections = new Map<Socket, { active: number; served: number }>();
  const server = createServer(async (req, res) => {
    const requestId = randomUUID();
    if (closing) {
      // Stopping (docs/testing.md, "The local runtime"): a request on a kept-alive connection is refused cleanly.
      res.shouldKeepAlive = false;
      return sendJson(res, 503, { code: 'UNAVAILABLE', error: 'The local server is stopping' }, requestId, { 'retry-after': '1', connection: 'close' });
    }
    inFlight.add(res);
    const use = connections.get(req.socket);
    if (use) use.active++;
    res.once('close', () => {
      inFlight.delete(res);
      if (!use) return;
      use.active--;
      use.served++;
    });
    // Before anything else: a page, a dev route or an API call for a host name that is not this machine's.
    if (!isLoopbackHost(req.headers.host)) {
      const shown = JSON.stringify((req.headers.host ?? '').slice(0, 100));
      return sendJson(
        res,
        400,
        { code: 'VALIDATION_ERROR', error: `Invalid Host ${shown}: the local server answers only to 127.0.0.1, localhost and [::1] (protection against DNS rebinding)` },
        requestId,
      );
    }
    running++;
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = (req.method ?? 'GET').toUpperCase();
      const body = await readBody(req);
      const out = await invokeGateway(
        {
          method,
          url,
          headers: gatewayHeaders(req),
          body: body.length > 0 ? body.toString('utf8') : undefined,
          sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
          protocol: `HTTP/${req.httpVersion}`,
          requestId,
        },
        { devRoutes: options.devRoutes },
      );
      if (out.unrouted && method === 'GET' && options.staticDir && !url.pathname.startsWith('/api/')) {
        if (await serveStatic(options.staticDir, url.pathname, res)) return;
      }
      res.writeHead(out.status, out.headers);
      res.end(out.isBase64Encoded && out.body ? Buffer.from(out.body, 'base64') : out.body);
    } catch (error) {
      const tooLarge = (error as { status?: number }).status === 413;
      // A static file's path whose percent-encoding does not decode, like a route's (invokeGateway).
      const malformed = error instanceof MalformedPathError;
      if (!tooLarge && !malformed) console.error(`[local] request ${requestId} failed:`, error);
      if (!res.headersSent) {
        sendJson(
          res,
          tooLarge || malformed ? 400 : 500,
          tooLarge
            ? { code: 'VALIDATION_ERROR', error: 'Request body too large (1 MiB at most)' }
            : malformed
              ? MALFORMED_PATH
              : { code: 'INTERNAL_ERROR', error: `Internal error; request id ${requestId}` },
          requestId,
        );
      } else res.end();
    } finally {
      running--;
    }
  });
  // A request Node cannot parse (e.g. a URL or headers past its 16 KB limit) gets the envelope and a
  // request id too, where the connection still allows an answer.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) return socket.destroy();
    const requestId = randomUUID();
    const message = error.code === 'HPE_HEADER_OVERFLOW' ? 'Request too large: the URL and headers must stay under 16 KB' : 'Malformed HTTP request';
    const body = JSON.stringify({ code: 'VALIDATION_ERROR', error: message });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\nx-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  /** Connections accepted so far: close() waits for a turn of the loop that accepts none. */
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted++;
    connections.set(socket, { active: 0, served: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    server,
    close: async ({ graceMs = 3_000 } = {}) => {
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      const deadline = performance.now() + graceMs;
      const pause = () => new Promise((r) => setTimeout(r, 20));
      // Still listening while the requests in flight finish: a request sent meanwhile gets a 503, where
      // a closed listener would reset the connections the kernel had accepted for it.
      // And until a turn of the event loop has accepted no new connection: a connection the kernel
      // completed before the signal waits in the listen backlog until the loop accepts it, and closing
      // the listener with it there resets it (ECONNRESET) instead of answering its request with a 503.
      // Each pause is a poll phase, which accepts every connection the backlog holds.
      for (;;) {
        const before = accepted;
        await pause();
        if ((inFlight.size === 0 && accepted === before) || performance.now() >= deadline) break;
      }
      // net.Server's close, not http.Server's: the latter also drops the connections it finds idle,
      // among them one just accepted whose request has not been read yet.
      const closed = new Promise<void>((resolveClose) => NetServer.prototype.close.call(server, () => resolveClose()));
      // A connection answered and idle (kept alive) is closed now; one whose request is not read yet
      // gets its 503 first.
      for (;;) {
        for (const [socket, use] of connections) if (use.active === 0 && use.served > 0) socket.destroy();
        if (connections.size === 0 || performance.now() >= deadline) break;
        await pause();
      }
      server.closeAllConnections();
      await closed;
      // The grace bounds how long answers wait, not the handlers: each runs to its end against the
      // store (a hung one is bounded by the caller's own deadline: npm start's STOP_DEADLINE_MS).
      while (running > 0) await pause();
    },
  };
}
