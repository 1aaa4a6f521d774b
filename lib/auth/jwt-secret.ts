import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '../config.js';

/**
 * The signing secret, resolved once per cold start: the local secret from configuration, or the
 * generated secret in Secrets Manager when deployed. Never a constant in the code. Keys derived from
 * it (the JWT key, the SMS-code HMAC key) all come through here.
 */
let secret: Promise<string> | undefined;
export function getJwtSecret(): Promise<string> {
  secret ??= (async () => {
    if (config.JWT_SECRET) return config.JWT_SECRET;
    const sm = new SecretsManagerClient({ region: config.AWS_REGION });
    const out = await sm.send(new GetSecretValueCommand({ SecretId: config.JWT_SECRET_ARN }));
    if (!out.SecretString || out.SecretString.length < 32) throw new Error('JWT secret is missing or too short');
    return out.SecretString;
  })();
  // A failed fetch (e.g. throttling) is retried by the next request instead of poisoning the container.
  secret.catch(() => (secret = undefined));
  return secret;
}
