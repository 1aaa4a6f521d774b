import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { toAppError } from '../lib/error-mapper.js';
import { frontDoor } from '../lib/http/front-door.js';
import { lowerCaseHeaders, type ApiEvent } from '../lib/http/request.js';
import { logger } from '../lib/logger.js';
import { countUnavailable } from '../lib/observability/metrics.js';
import { observability } from '../lib/observability/middleware.js';
import { config } from '../lib/config.js';
import { pageLanguage, renderUnavailablePage, SHARE_PAGE_CSP } from '../lib/share/share-html.js';
import { sharePage } from '../lib/share/share-page.js';

const FORBIDDEN: APIGatewayProxyStructuredResultV2 = { statusCode: 403, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'Forbidden' };

/** `GET /s/{shareid}`: the share page, HTML (not the JSON envelope: a browser opens it). */
export const handler = middy(async (event: ApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
  const headers = lowerCaseHeaders(event.headers);
  const shareid = event.pathParameters?.shareid;
  try {
    if (!(await frontDoor.admits(headers))) return FORBIDDEN;
    const page = await sharePage({
      shareid,
      acceptLanguage: headers['accept-language'],
      userAgent: headers['user-agent'],
      // The public URL sharetext handed out (behind CloudFront the Host is API Gateway's).
      pageUrl: `${config.SHARE_BASE_URL.replace(/\/+$/, '')}/s/${encodeURIComponent(shareid ?? '')}`,
    });
    return { statusCode: page.status, headers: page.headers, body: page.body };
  } catch (error) {
    logger.error('share page failed', { requestId: event.requestContext.requestId, errorName: (error as Error)?.name });
    countUnavailable(toAppError(error));
    const lang = pageLanguage(undefined, headers['accept-language']);
    return {
      statusCode: 503,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': SHARE_PAGE_CSP, 'retry-after': '1', 'cache-control': 'no-store' },
      body: renderUnavailablePage(lang),
    };
  }
}).use(observability());
