import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { frontDoor } from '../lib/http/front-door.js';
import { lowerCaseHeaders, type ApiEvent } from '../lib/http/request.js';
import { observability } from '../lib/observability/middleware.js';
import { appleAppSiteAssociation, assetLinks } from '../lib/share/app-links.js';

/** `GET /.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`: JSON files, 404 when not configured. */
export const handler = middy(async (event: ApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
  const admitted = await frontDoor.admits(lowerCaseHeaders(event.headers)).catch(() => undefined);
  if (admitted === undefined) return { statusCode: 503, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '2' }, body: 'Service Unavailable' };
  if (!admitted) return { statusCode: 403, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Forbidden' };
  const file = event.rawPath.endsWith('/assetlinks.json') ? assetLinks() : event.rawPath.endsWith('/apple-app-site-association') ? appleAppSiteAssociation() : undefined;
  if (!file) return { statusCode: 404, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }, body: JSON.stringify({ code: 'NOT_FOUND', error: 'Not configured on this deployment' }) };
  return { statusCode: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' }, body: JSON.stringify(file) };
}).use(observability());
