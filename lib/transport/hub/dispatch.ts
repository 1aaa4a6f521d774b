import { authenticateCredential, authenticateUrlToken, bearerCredential } from '../../features/auth/authenticate.js';
import { enforceScope } from '../../features/auth/scope-gate.js';
import { AuthError, ForbiddenError, ValidationError } from '../../platform/errors.js';
import type { HttpResult } from '../http/envelope.js';
import type { HttpRequest } from '../http/request.js';
import { logger } from '../../platform/logger.js';
import { countMetric } from '../../platform/observability/metrics.js';
import { HUB_OPERATIONS } from './operations.js';

const OPERATION_NAMES = () => Object.keys(HUB_OPERATIONS).join(', ');

/**
 * `GET /api/v1?do=<op>`: picks the operation, validates its query, authenticates inside the function
 * (the route has no authorizer because sign-up happens before a token exists) with the same code the
 * authorizer uses, and runs the use case.
 */
export async function dispatchHub(request: HttpRequest): Promise<HttpResult> {
  const name = (request.query.do ?? '').trim();
  if (!name) throw new ValidationError(`Missing parameter "do": one of ${OPERATION_NAMES()}`);
  const operation = Object.hasOwn(HUB_OPERATIONS, name) ? HUB_OPERATIONS[name] : undefined;
  if (!operation) throw new ValidationError(`Invalid parameter "do": unknown operation "${name.slice(0, 40)}"`);
  // Every later line of this invocation names the operation (the keys are reset at its end).
  logger.appendKeys({ operation: name });

  const input = operation.query.parse(request.query) as Record<string, unknown>;

  let principal;
  let person;
  if (operation.auth !== 'none') {
    const urlToken = (request.query.token ?? '').trim();
    const header = bearerCredential(request.headers);
    if (urlToken) ({ person, ...principal } = await authenticateUrlToken(urlToken));
    else if (header) ({ person, ...principal } = await authenticateCredential(header));
    else if (operation.auth === 'required') {
      countMetric('Authentications', 'missing');
      throw new AuthError('Missing token: send token=<JWT> or Authorization: Bearer <JWT or access key>', 'missing');
    }
    if (principal && typeof input.openid === 'string' && input.openid !== principal.user_id) {
      throw new AuthError('The token does not belong to this openid');
    }
    if (principal && operation.loginTokenOnly && principal.auth_type !== 'jwt') {
      throw new ForbiddenError(`An access key cannot call ${name}: sign in and send the login token`);
    }
    if (principal) enforceScope(principal, operation.scope);
  }

  const data = await operation.run(input, { principal, person, requestId: request.requestId, sourceIp: request.sourceIp });
  return { data };
}
