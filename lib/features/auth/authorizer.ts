import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { toAppError } from '../../platform/error-mapper.js';
import { logger } from '../../platform/logger.js';
import { countUnavailable } from '../../platform/observability/metrics.js';
import { authenticateCredential, bearerCredential } from './authenticate.js';
import { encodeVerdict, type VerdictContext } from './verdict.js';

export type AuthorizerResult = APIGatewaySimpleAuthorizerWithContextResult<VerdictContext>;

/**
 * The authorizer's decision (REQUEST type, payload 2.0, simple response). It never caches. It lets
 * the request through with a `refused` verdict and the reason when the credential fails, so the
 * function answers 401 in the contract's envelope (lib/features/auth/verdict.ts). A dependency failure
 * (DynamoDB throttled or timing out, Secrets Manager down) is a verdict too, `unavailable`, which
 * the function answers with the contract's 503 and Retry-After: never a 401, which would tell a
 * client its valid credential is bad, and never a throw, which API Gateway turns into its own bare
 * 500 without Retry-After. Only a bug throws (API Gateway's 500).
 */
export async function authorizeRequest(event: APIGatewayRequestAuthorizerEventV2): Promise<AuthorizerResult> {
  try {
    // The person id stays in the function that read it: not in API Gateway's context.
    const { person: _person, ...principal } = await authenticateCredential(bearerCredential(event.headers ?? {}));
    return { isAuthorized: true, context: encodeVerdict({ kind: 'authenticated', principal }) };
  } catch (error) {
    const appError = toAppError(error);
    if (appError?.status === 401) return { isAuthorized: true, context: encodeVerdict({ kind: 'refused', message: appError.message }) };
    // A valid key past its rate limit: the function answers the 429 (an authorizer cannot shape it).
    if (appError?.status === 429) return { isAuthorized: true, context: encodeVerdict({ kind: 'rate_limited', message: appError.message, retryAfter: Number(appError.headers['retry-after']) || 1 }) };
    if (appError?.status === 503) {
      logger.warn('authorizer: dependency unavailable', { requestId: event.requestContext?.requestId, errorName: (error as Error)?.name });
      // The function answers this verdict's 503 without counting it again (lib/transport/http/handler.ts).
      countUnavailable(appError);
      return { isAuthorized: true, context: encodeVerdict({ kind: 'unavailable', message: appError.message, retryAfter: Number(appError.headers['retry-after']) || 1 }) };
    }
    logger.error('authorizer failed', { requestId: event.requestContext?.requestId, errorName: (error as Error)?.name });
    throw error;
  }
}
