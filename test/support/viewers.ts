import { afterAll, beforeAll } from 'vitest';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../lib/transport/http/origin-verify.js';
import { secretsManagerEnv, startSecretsManagerStandIn, type SecretsManagerCall, type StandIn } from './aws-stand-ins.js';

/** What the Secrets Manager stand-in serves for VIEWER_ENV's ORIGIN_VERIFY_SECRET_ARN. */
const ORIGIN_SECRET = 'origin-secret-viewers-0123456789abcdefghijklmn';

/** The front door as deployed, for the test stack's `env`: the origin secret's ARN and the SDK's credentials. */
export const VIEWER_ENV = {
  ORIGIN_VERIFY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:expohub-origin-Sm5Abu',
  AWS_ACCESS_KEY_ID: 'AKIDLOCALSTANDIN',
  AWS_SECRET_ACCESS_KEY: 'local-stand-in-secret',
};

/**
 * Requests from chosen caller addresses. The local server's source IP is its socket's (127.0.0.1 for
 * every test request); with the front door configured as deployed, the functions take the caller's IP
 * from CloudFront-Viewer-Address instead (lib/transport/http/front-door.ts). The test file passes VIEWER_ENV
 * to its stack and calls this before useTestStack: the origin secret is read from a Secrets Manager
 * stand-in started here. Returns the headers that make a request come from `ip` (IPv4 or IPv6).
 */
export function useViewerAddresses(): (ip: string) => Record<string, string> {
  let sm: StandIn<SecretsManagerCall> | undefined;
  beforeAll(async () => {
    sm = await startSecretsManagerStandIn({ [VIEWER_ENV.ORIGIN_VERIFY_SECRET_ARN]: ORIGIN_SECRET });
    Object.assign(process.env, secretsManagerEnv(sm));
  });
  afterAll(async () => {
    await sm?.close();
    if (sm) for (const name of Object.keys(secretsManagerEnv(sm))) delete process.env[name];
  });
  return (ip) => ({ [ORIGIN_VERIFY_HEADER]: ORIGIN_SECRET, [VIEWER_ADDRESS_HEADER]: ip.includes(':') ? `[${ip}]:443` : `${ip}:443` });
}
