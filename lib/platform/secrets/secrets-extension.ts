/**
 * Secrets Manager through the AWS Parameters and Secrets Lambda Extension: a layer on the functions
 * that read a secret (infra/constructs/expohub-function.ts) serves GetSecretValue over HTTP on
 * localhost, so no Secrets Manager client (nor the SDK's core, in the functions without DynamoDB) is
 * in the bundle (docs/performance.md, "Cold starts"). The extension's own cache is off: the callers
 * keep theirs (lib/platform/secrets/signing-secrets.ts, lib/transport/http/front-door.ts), whose ages are tested.
 *
 * Tests and other harnesses point PARAMETERS_SECRETS_EXTENSION_HTTP_PORT at a stand-in
 * (test/support/aws-stand-ins.ts); the value of a secret never goes into an error or a log line.
 */

/** The extension's default port (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT changes it, on Lambda as here). */
export const SECRETS_EXTENSION_DEFAULT_PORT = 2773;

/** The name of an error answer whose body names no Secrets Manager error (the extension's own). */
const UNNAMED_ERROR = 'SecretsExtensionError';

/** A refused or failed read: `name` as Secrets Manager names the error when the extension passed it on, `status` the extension's HTTP status (none when it did not answer). */
export class SecretReadError extends Error {
  constructor(
    override readonly name: string,
    readonly status: number | undefined,
  ) {
    super(`Secrets Manager read failed through the extension: ${name}${status === undefined ? '' : ` (HTTP ${status})`}`);
  }

  /**
   * Secrets Manager (or the extension) out of reach, failing or throttling: the next request may
   * succeed. So is an error answer that names no Secrets Manager error: the extension's own, such as
   * a 400 while it is still starting. A refusal (access denied, unknown secret) names its error, and
   * the extension's own refusals (401 without the session token, 403, 404 on a wrong path) are not either.
   */
  get isOutage(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || (this.name === UNNAMED_ERROR && ![401, 403, 404].includes(this.status)) || /Throttl|TooManyRequests|RequestLimitExceeded/.test(this.name);
  }
}

/** The extension answers an error with Secrets Manager's error in its body, e.g. `ResourceNotFoundException: ...`. */
const errorName = (body: string) => /\b([A-Z][A-Za-z]*(?:Exception|Error|Throttling))\b/.exec(body)?.[1] ?? UNNAMED_ERROR;

/**
 * The SecretString of `secretId` at `versionStage` (AWSCURRENT by default), undefined when the secret
 * holds no string. Throws SecretReadError when the extension refuses or cannot be reached.
 */
export async function readSecretString(secretId: string, versionStage?: string): Promise<string | undefined> {
  const port = process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT || String(SECRETS_EXTENSION_DEFAULT_PORT);
  const url = new URL(`http://localhost:${port}/secretsmanager/get`);
  url.searchParams.set('secretId', secretId);
  if (versionStage) url.searchParams.set('versionStage', versionStage);
  let response: Response;
  try {
    // The extension admits only callers of this execution environment: its session token proves it.
    response = await fetch(url, { headers: { 'X-Aws-Parameters-Secrets-Token': process.env.AWS_SESSION_TOKEN ?? '' }, signal: AbortSignal.timeout(3_000) });
  } catch (error) {
    throw new SecretReadError((error as Error)?.name === 'TimeoutError' ? 'TimeoutError' : 'ExtensionUnreachable', undefined);
  }
  const body = await response.text();
  if (!response.ok) throw new SecretReadError(errorName(body), response.status);
  const secretString = (JSON.parse(body) as { SecretString?: unknown }).SecretString;
  return typeof secretString === 'string' ? secretString : undefined;
}

/**
 * A secret read through the extension and kept `maxAgeSeconds` per container (the origin secret, the
 * canary key's): one read per secret at a time, a failed read kept for no one (the next caller reads
 * again). `forget` drops every kept value (a harness's new configuration).
 */
export function secretCache(maxAgeSeconds: number, now: () => number) {
  const kept = new Map<string, { value: Promise<string | undefined>; readAt: number }>();
  return {
    get(secretId: string): Promise<string | undefined> {
      const entry = kept.get(secretId);
      const age = entry ? now() - entry.readAt : Number.POSITIVE_INFINITY;
      if (entry && age >= 0 && age < maxAgeSeconds * 1000) return entry.value;
      const value = readSecretString(secretId);
      kept.set(secretId, { value, readAt: now() });
      value.catch(() => {
        if (kept.get(secretId)?.value === value) kept.delete(secretId);
      });
      return value;
    },
    forget: () => kept.clear(),
  };
}
