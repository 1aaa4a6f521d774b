import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { frontDoor } from '../lib/http/front-door.js';
import { lowerCaseHeaders, type ApiEvent } from '../lib/http/request.js';
import { observability } from '../lib/observability/middleware.js';
import document from '../lib/openapi/generated/openapi.json';
import { REFERENCE_PAGE_CSP, renderReferencePage } from '../lib/openapi/reference-page.js';

/** Generated at build time (npm run openapi); the page is rendered from it once, on first request. */
const json = JSON.stringify(document);
let page: string | undefined;

/** `GET /api/v1/openapi.json` and `GET /api/v1/docs` (public, static). */
export const handler = middy(async (event: ApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
  const requestId = event.requestContext.requestId;
  const admitted = await frontDoor.admits(lowerCaseHeaders(event.headers)).catch(() => undefined);
  if (admitted === undefined) return { statusCode: 503, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '2', 'x-request-id': requestId }, body: 'Service Unavailable' };
  if (!admitted) return { statusCode: 403, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-request-id': requestId }, body: 'Forbidden' };
  const cache = { 'cache-control': 'public, max-age=300', 'x-request-id': requestId };
  if (event.rawPath.endsWith('/docs')) {
    page ??= renderReferencePage(document as Record<string, unknown>);
    return { statusCode: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': REFERENCE_PAGE_CSP, ...cache }, body: page };
  }
  return { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8', ...cache }, body: json };
}).use(observability());
