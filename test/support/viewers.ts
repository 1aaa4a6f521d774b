import { afterAll, beforeAll } from 'vitest';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../lib/http/origin-verify.js';
import { startSecretsManagerStandIn, type SecretsManagerCall, type StandIn } from './aws-stand-ins.js';

/** What the Secrets Manager stand-in serves for the ARN the test file put in ORIGIN_VERIFY_SECRET_ARN. */
const ORIGIN_SECRET = 'origin-secret-viewers-0123456789abcdefghijklmn';

/**
 * Requests from chosen caller addresses. The local server's source IP is its socket's (127.0.0.1 for
 * every test request); with the front door configured as deployed, the functions take the caller's IP
 * from CloudFront-Viewer-Address instead (lib/http/front-door.ts). The test file sets
 * ORIGIN_VERIFY_SECRET_ARN and AWS credentials for the SDK before lib/config.ts is read (vi.hoisted)
 * and calls this before useTestStack: the origin secret is read from a Secrets Manager stand-in
 * started here. Returns the headers that make a request come from `ip` (IPv4 or IPv6).
 */
export function useViewerAddresses(): (ip: string) => Record<string, string> {
  let sm: StandIn<SecretsManagerCall> | undefined;
  beforeAll(async () => {
    const arn = process.env.ORIGIN_VERIFY_SECRET_ARN;
    if (!arn) throw new Error('useViewerAddresses: set ORIGIN_VERIFY_SECRET_ARN (vi.hoisted) before lib/config.ts is read');
    sm = await startSecretsManagerStandIn({ [arn]: ORIGIN_SECRET });
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = sm.url;
  });
  afterAll(async () => {
    await sm?.close();
    delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  });
  return (ip) => ({ [ORIGIN_VERIFY_HEADER]: ORIGIN_SECRET, [VIEWER_ADDRESS_HEADER]: ip.includes(':') ? `[${ip}]:443` : `${ip}:443` });
}
