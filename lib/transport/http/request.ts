import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Principal } from '../../features/auth/principal.js';

/** What a use case sees of an HTTP request: plain data, no Lambda types. */
export interface HttpRequest<TBody = unknown> {
  requestId: string;
  sourceIp: string;
  query: Record<string, string>;
  path: Record<string, string>;
  headers: Record<string, string>;
  body: TBody;
  principal: Principal | undefined;
}

/** The event shape our functions receive: HTTP API payload 2.0, after the authorizer. */
export type ApiEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2['requestContext'] & {
    authorizer?: { lambda?: Record<string, unknown> };
  };
  body?: unknown;
};

export function lowerCaseHeaders(headers: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

/**
 * Query parameters as the client sent them. API Gateway joins repeated parameters with commas;
 * we read rawQueryString so a value keeps its own commas and the first occurrence wins.
 */
export function queryParameters(event: ApiEvent): Record<string, string> {
  const out: Record<string, string> = {};
  const params = new URLSearchParams(event.rawQueryString ?? '');
  for (const [k, v] of params) if (!(k in out)) out[k] = v;
  return out;
}
