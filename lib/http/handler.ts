import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { config } from '../config.js';
import { logger } from '../logger.js';
import { observability } from '../observability/middleware.js';
import { countUnavailable } from '../observability/metrics.js';
import { principalFromAuthorizer } from '../auth/authorizer-context.js';
import { enforceScope, type Scope } from '../auth/scope-gate.js';
import { AuthError, ForbiddenError, InternalError, RateLimitedError, UnavailableError } from '../errors.js';
import { errorResponse, successResponse, type HttpResult } from './envelope.js';
import { frontDoor } from './front-door.js';
import { toAppError } from '../error-mapper.js';
import { lowerCaseHeaders, queryParameters, type ApiEvent, type HttpRequest } from './request.js';

export type AuthRequirement =
  /** No credential needed (health, verify, the hub which authenticates per operation). */
  | 'none'
  /** A JWT or an access key. */
  | 'any'
  /** A login JWT only: key management must not be reachable with a key. */
  | 'jwt';

export interface HandlerOptions {
  auth: AuthRequirement;
  /** Parse a JSON body (POST routes with a body). */
  jsonBody?: boolean;
  /** The scope an access key needs when ENFORCE_KEY_SCOPES is on. */
  scope?: Scope;
}

export type UseCaseHandler = (request: HttpRequest) => Promise<HttpResult>;

/** The authorizer could not check the credential: its 503 is counted there, with its cause, not again here. */
class AuthorizerUnavailable extends UnavailableError {}

function requireAuth(verdict: ReturnType<typeof principalFromAuthorizer>, requirement: AuthRequirement) {
  const { principal, failure, unavailable, rateLimited } = verdict;
  if (requirement === 'none') return;
  if (unavailable) throw new AuthorizerUnavailable(failure, unavailable.retryAfter);
  if (rateLimited) throw new RateLimitedError(failure ?? 'This access key is past its rate limit', rateLimited.retryAfter);
  if (!principal) throw new AuthError(failure);
  if (requirement === 'jwt' && principal.auth_type !== 'jwt') {
    throw new AuthError('This endpoint needs a login token (JWT); access keys are not accepted here');
  }
}

/**
 * The shared middleware chain of every HTTP function: the log context, trace and metrics of the
 * invocation (observability.ts), one error mapping into the contract's envelope (each 503 counted by cause),
 * the authorizer's verdict (401 when the credential failed, 503 when it could not be checked) and, when enabled, the scope gate (both before the body is even parsed),
 * an optional JSON body, then the use case.
 */
export function httpHandler(useCase: UseCaseHandler, options: HandlerOptions) {
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
        // Direct calls to the execute-api host are refused: only CloudFront adds the origin secret.
        if (!(await frontDoor.admits(lowerCaseHeaders(request.event.headers)))) throw new ForbiddenError('Call the API through its published URL');
        requireAuth(principalFromAuthorizer(request.event.requestContext.authorizer?.lambda), options.auth);
      },
    });
  // The scope gate exists and is off by default (docs/protected-api.md, "The scope gate"): it acts
  // only when ENFORCE_KEY_SCOPES is on, still before the body is parsed.
  const scope = options.scope;
  if (scope) {
    chain.use({
      before: async (request) => {
        if (!config.ENFORCE_KEY_SCOPES) return;
        const { principal } = principalFromAuthorizer(request.event.requestContext.authorizer?.lambda);
        if (principal) enforceScope(principal, scope, true);
      },
    });
  }
  if (options.jsonBody) chain.use(httpJsonBodyParser({ disableContentTypeError: false }));
  return chain.handler(async (event) => {
    const requestId = event.requestContext.requestId;
    const request: HttpRequest = {
      requestId,
      sourceIp: frontDoor.clientIp(lowerCaseHeaders(event.headers), event.requestContext.http?.sourceIp ?? '0.0.0.0'),
      query: queryParameters(event),
      path: (event.pathParameters ?? {}) as Record<string, string>,
      headers: lowerCaseHeaders(event.headers),
      body: event.body,
      principal: options.auth === 'none' ? undefined : principalFromAuthorizer(event.requestContext.authorizer?.lambda).principal,
    };
    return successResponse(await useCase(request), requestId);
  });
}
