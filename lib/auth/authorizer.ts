import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { toAppError } from '../error-mapper.js';
import { logger } from '../logger.js';
import { authenticateCredential, bearerCredential } from './authenticate.js';
import { contextFromPrincipal, type AuthorizerContext } from './authorizer-context.js';

export type AuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>;

/**
 * The authorizer's decision (REQUEST type, payload 2.0, simple response). It never caches. It lets
 * the request through with `authenticated: false` and the reason when the credential fails, so the
 * function answers 401 in the contract's envelope (see authorizer-context.ts); a dependency failure
 * is thrown, which API Gateway turns into a 500 rather than a wrong decision.
 */
export async function authorizeRequest(event: APIGatewayRequestAuthorizerEventV2): Promise<AuthorizerResult> {
  try {
    const principal = await authenticateCredential(bearerCredential(event.headers ?? {}));
    return { isAuthorized: true, context: contextFromPrincipal(principal) };
  } catch (error) {
    const appError = toAppError(error);
    if (appError?.status === 401) return { isAuthorized: true, context: { authenticated: false, failure: appError.message } };
    logger.error('authorizer failed', { requestId: event.requestContext?.requestId, errorName: (error as Error)?.name });
    throw error;
  }
}
