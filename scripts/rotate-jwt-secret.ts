/**
 * `npm run rotate-jwt-secret -- --secret-id <arn>` (or JWT_SECRET_ARN=<arn>): gives the JWT signing
 * secret a fresh random value of the shape the stack generates (64 letters and digits). Secrets
 * Manager moves AWSCURRENT to the new version and AWSPREVIOUS to the old one; the functions read both
 * (lib/platform/secrets/signing-secrets.ts), sign with the new one within JWT_SECRET_CACHE_SECONDS and keep
 * accepting what the old one signed. Uses the default AWS credential chain. The secret is never printed.
 */
import { randomInt } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 64 letters and digits from the CSPRNG (randomInt is uniform: no modulo bias). */
export function newSecretValue(length = 64): string {
  return Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

const USAGE = 'usage: npm run rotate-jwt-secret -- --secret-id <secret ARN or name>   (or set JWT_SECRET_ARN)';

export interface Output {
  log(line: string): void;
  error(line: string): void;
}

/** The command; returns the process exit code: 0 rotated, 2 bad arguments, 1 AWS refused or failed. */
export async function main(argv: string[], out: Output = console, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let secretId: string | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: { 'secret-id': { type: 'string' } }, strict: true, allowPositionals: false });
    secretId = values['secret-id'] ?? env.JWT_SECRET_ARN;
  } catch (error) {
    out.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!secretId) {
    out.error(`missing --secret-id\n${USAGE}`);
    return 2;
  }
  const client = new SecretsManagerClient({});
  try {
    const put = await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: newSecretValue() }));
    out.log(`rotated ${secretId}: version ${put.VersionId} is now AWSCURRENT, the value before it AWSPREVIOUS.`);
    out.log('Functions sign with the new value within JWT_SECRET_CACHE_SECONDS (default 300 s); tokens signed before keep working until they expire.');
    return 0;
  } catch (error) {
    const e = error as Error;
    out.error(`could not rotate ${secretId}: ${e.name}: ${e.message}`);
    return 1;
  } finally {
    client.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
