import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * X-Ray through Powertools Tracer. Outside Lambda (local server, tests) the tracer switches itself
 * off and `traced` returns the client untouched.
 */
export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'expohub' });

/** Wraps an AWS SDK v3 client so every call it makes is a subsegment of the function's trace. */
export function traced<T>(client: T): T {
  return tracer.captureAWSv3Client(client);
}
