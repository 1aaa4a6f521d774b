import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '../config.js';
import { UnavailableError } from '../errors.js';
import { logger } from '../logger.js';

const THROTTLING = new Set(['ThrottlingException', 'Throttling', 'TooManyRequestsException', 'RequestLimitExceeded']);

/**
 * Secrets Manager out of reach, failing (5xx) or throttling: it may work on the next request. A
 * refusal (access denied, unknown secret) is a deployment error: it stays a 500 and an error log.
 */
function isSecretsManagerOutage(error: unknown): boolean {
  const e = error as { name?: string; $fault?: string; $metadata?: { httpStatusCode?: number } };
  return e.$metadata?.httpStatusCode === undefined || e.$fault === 'server' || e.$metadata.httpStatusCode === 429 || THROTTLING.has(e.name ?? '');
}

let client: SecretsManagerClient | undefined;

async function readSecret(): Promise<string> {
  client ??= new SecretsManagerClient({ region: config.AWS_REGION });
  let secretString: string | undefined;
  try {
    secretString = (await client.send(new GetSecretValueCommand({ SecretId: config.JWT_SECRET_ARN }))).SecretString;
  } catch (error) {
    if (!isSecretsManagerOutage(error)) throw error;
    logger.warn('signing secret unavailable', { errorName: (error as Error)?.name });
    throw new UnavailableError('The service is starting up; please retry shortly', 2);
  }
  if (!secretString || secretString.length < 32) throw new Error('JWT secret is missing or too short');
  return secretString;
}

/**
 * The signing secret, resolved once per cold start: the local secret from configuration, or the
 * generated secret in Secrets Manager when deployed. Never a constant in the code. Keys derived from
 * it (the JWT key, the SMS-code HMAC key) all come through here. When Secrets Manager fails the
 * request answers 503 and the next request reads it again: a failure is never kept.
 */
let secret: Promise<string> | undefined;
export function getJwtSecret(): Promise<string> {
  secret ??= config.JWT_SECRET ? Promise.resolve(config.JWT_SECRET) : readSecret();
  // A failed fetch (e.g. throttling) is retried by the next request instead of poisoning the container.
  secret.catch(() => (secret = undefined));
  return secret;
}
