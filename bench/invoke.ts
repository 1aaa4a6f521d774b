import { randomUUID } from 'node:crypto';
import { invokeGateway, lambdaContext, loadHandler, matchRoute, toGatewayEvent } from '../local/server.js';
import { ROUTES } from '../infra/routes.js';
import { setPhase } from './recorder.js';

/** One HTTP request as a client sends it; invoked in-process with API Gateway's payload 2.0 events. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path and query string, e.g. `/api/v1?do=like&vid=...`. */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  sourceIp?: string;
}

export interface BenchResponse {
  status: number;
  body: { code: unknown; data?: unknown; error?: string };
}

interface AuthorizerDecision {
  isAuthorized: boolean;
  context?: Record<string, unknown>;
}

function gatewayRequest(request: BenchRequest) {
  const url = new URL(request.path, 'http://127.0.0.1');
  const headers: Record<string, string> = { host: '127.0.0.1', 'user-agent': 'expohub-bench' };
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  return { method: request.method, url, headers, body, requestId: randomUUID(), sourceIp: request.sourceIp };
}

/** Runs only the Lambda authorizer on the request (the route must have it). */
export async function invokeAuthorizer(request: BenchRequest): Promise<AuthorizerDecision> {
  const gateway = gatewayRequest(request);
  const matched = matchRoute(request.method, gateway.url.pathname);
  if (!matched) throw new Error(`no route for ${request.method} ${gateway.url.pathname}`);
  const { authorizerEvent } = toGatewayEvent(matched.route, gateway);
  if (!authorizerEvent) throw new Error(`${request.method} ${request.path} has no authorizer`);
  const authorize = await loadHandler('authorizer');
  setPhase('authorizer');
  try {
    return (await authorize(authorizerEvent, lambdaContext('authorizer', gateway.requestId))) as AuthorizerDecision;
  } finally {
    setPhase('function');
  }
}

/** What API Gateway does (local/server.ts, invokeGateway): the authorizer first where the route has one, then the function. */
export async function invoke(request: BenchRequest): Promise<BenchResponse> {
  const gateway = gatewayRequest(request);
  if (!matchRoute(request.method, gateway.url.pathname)) throw new Error(`no route for ${request.method} ${gateway.url.pathname}`);
  const result = await invokeGateway(gateway, { onPhase: setPhase });
  // The share page answers HTML: no envelope to read, the status says it all.
  const json = (result.headers['content-type'] ?? 'application/json').startsWith('application/json');
  return { status: result.status, body: json ? (JSON.parse(result.body || '{}') as BenchResponse['body']) : { code: null } };
}

/** True when infra/routes.ts has the route (an endpoint another helper may not have landed yet). */
export function hasRoute(method: string, path: string): boolean {
  return ROUTES.some((r) => r.method === method && r.path === path);
}

/** `GET /api/v1?do=<op>&...` with every parameter in the query string. */
export function hubRequest(op: string, params: Record<string, string | number | undefined>, headers?: Record<string, string>): BenchRequest {
  const query = new URLSearchParams({ do: op });
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, String(v));
  return { method: 'GET', path: `/api/v1?${query.toString()}`, headers };
}

export const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
