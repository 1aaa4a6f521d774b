import { timingSafeEqual } from 'node:crypto';
import { clock } from '../../platform/clock.js';
import { config, onConfigure } from '../../platform/config.js';
import { UnavailableError } from '../../platform/errors.js';
import { logger } from '../../platform/logger.js';
import { secretCache } from '../../platform/secrets/secrets-extension.js';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER, viewerIp } from './origin-verify.js';

/** How long a function keeps the origin secret: a rotation (a redeploy, docs/deploy.md) bites within this. */
export const ORIGIN_SECRET_MAX_AGE_SECONDS = 300;

export interface FrontDoor {
  /**
   * Whether the request came through CloudFront (always true when no secret is configured, e.g.
   * locally). Rejects with UnavailableError (503) when the secret cannot be read.
   */
  admits(headers: Record<string, string>): Promise<boolean>;
  /** The caller's IP: the viewer's (CloudFront-Viewer-Address) behind the checked front door, else API Gateway's source IP. */
  clientIp(headers: Record<string, string>, sourceIp: string): string;
}

const sameText = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * The front door of `secretArn`, reading the secret with `readSecret`. Without an ARN the check is
 * off and the source IP is API Gateway's (the local server's socket address): the viewer header is
 * trusted only when the origin header proved the request came from CloudFront, which sets it.
 */
export function frontDoorOf(secretArn: string | undefined, readSecret: (arn: string) => Promise<unknown>): FrontDoor {
  if (!secretArn) return { admits: async () => true, clientIp: (_headers, sourceIp) => sourceIp };
  return {
    admits: async (headers) => {
      const presented = headers[ORIGIN_VERIFY_HEADER];
      if (!presented) return false;
      let expected: unknown;
      try {
        expected = await readSecret(secretArn);
      } catch (error) {
        // Secrets Manager failing or throttling: the caller may retry (503), as for the JWT secret.
        logger.warn('origin secret unavailable', { errorName: (error as Error)?.name });
        throw new UnavailableError('The service is starting up; please retry shortly', 2, 'secrets');
      }
      return typeof expected === 'string' && expected.length > 0 && sameText(presented, expected);
    },
    clientIp: (headers, sourceIp) => viewerIp(headers[VIEWER_ADDRESS_HEADER]) ?? sourceIp,
  };
}

/**
 * The deployed functions' front door (ORIGIN_VERIFY_SECRET_ARN): the secret read through the
 * Parameters and Secrets extension (no SDK client in the bundle) and kept ORIGIN_SECRET_MAX_AGE_SECONDS.
 */
const originSecrets = secretCache(ORIGIN_SECRET_MAX_AGE_SECONDS, () => clock.now());
onConfigure(() => originSecrets.forget());
const readOriginSecret = (arn: string) => originSecrets.get(arn);
/** The configured front door, decided on use (a harness may configure the ARN). */
export const frontDoor: FrontDoor = {
  admits: (headers) => frontDoorOf(config.ORIGIN_VERIFY_SECRET_ARN, readOriginSecret).admits(headers),
  clientIp: (headers, sourceIp) => frontDoorOf(config.ORIGIN_VERIFY_SECRET_ARN, readOriginSecret).clientIp(headers, sourceIp),
};
