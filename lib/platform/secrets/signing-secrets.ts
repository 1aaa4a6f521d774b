import { createHash, hkdfSync } from 'node:crypto';
import { clock } from '../clock.js';
import { config, onConfigure } from '../config.js';
import { UnavailableError } from '../errors.js';
import { logger } from '../logger.js';
import { readSecretString, SecretReadError } from './secrets-extension.js';

/**
 * The signing secrets: the current one signs (JWTs, cursors, SMS-code hashes), the current and the
 * previous one verify, so that a rotation (a new AWSCURRENT, the old value moved to AWSPREVIOUS)
 * logs no one out. A secret is known by its `kid`, the first 16 hex digits of a SHA-256 of the
 * labelled secret: it names the secret in a JWT header without revealing anything of it.
 */
export interface SigningSecret {
  kid: string;
  secret: string;
}

export interface SigningSecrets {
  current: SigningSecret;
  /** Absent until the first rotation (or locally without JWT_SECRET_PREVIOUS). */
  previous?: SigningSecret;
}

export function signingSecret(secret: string): SigningSecret {
  return { kid: createHash('sha256').update(`expohub-jwt-kid\n${secret}`).digest('hex').slice(0, 16), secret };
}

/**
 * Secrets Manager out of reach, failing (5xx) or throttling: it may work on the next request. A
 * refusal (access denied, unknown secret) is a deployment error: it stays a 500 and an error log.
 */
const isSecretsManagerOutage = (error: unknown) => error instanceof SecretReadError && error.isOutage;

/** One staging label of the secret; undefined when no version carries it (AWSPREVIOUS before the first rotation). */
async function readStage(stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<string | undefined> {
  let secretString: string | undefined;
  try {
    if (!config.JWT_SECRET_ARN) throw new Error('JWT_SECRET_ARN (deployed) or JWT_SECRET (locally) must be set');
    secretString = await readSecretString(config.JWT_SECRET_ARN, stage);
  } catch (error) {
    if (stage === 'AWSPREVIOUS' && (error as Error)?.name === 'ResourceNotFoundException') return undefined;
    if (!isSecretsManagerOutage(error)) throw error;
    logger.warn('signing secret unavailable', { errorName: (error as Error)?.name, stage });
    throw new UnavailableError('The service is starting up; please retry shortly', 2, 'secrets');
  }
  if (!secretString || secretString.length < 32) throw new Error(`JWT secret (${stage}) is missing or too short`);
  return secretString;
}

async function readSecrets(): Promise<SigningSecrets> {
  // Both reads settle before the answer: a failed read leaves no retry of the other one running
  // in the background (the SDK retries a refused connection), which would land after the request.
  const [currentRead, previousRead] = await Promise.allSettled([readStage('AWSCURRENT'), readStage('AWSPREVIOUS')]);
  if (currentRead.status === 'rejected') throw currentRead.reason;
  if (previousRead.status === 'rejected') throw previousRead.reason;
  const [current, previous] = [currentRead.value, previousRead.value];
  return { current: signingSecret(current!), ...(previous && previous !== current ? { previous: signingSecret(previous) } : {}) };
}

/** A container asks Secrets Manager again at most this often, whatever tokens it is shown. */
const MIN_REFRESH_MS = 5_000;

interface Cached {
  value: Promise<SigningSecrets>;
  fetchedAt: number;
}
let cached: Cached | undefined;
/** How long ago the cached read started; a clock that went back makes it stale rather than fresh for longer. */
const cacheAge = (entry: Cached) => {
  const age = clock.now() - entry.fetchedAt;
  return age < 0 ? Number.POSITIVE_INFINITY : age;
};
/** The last secrets read successfully: served while a refresh fails, so an outage after a cold start ends no session. */
let lastGood: SigningSecrets | undefined;

function refresh(): Promise<SigningSecrets> {
  const entry: Cached = { fetchedAt: clock.now(), value: readSecrets() };
  cached = entry;
  entry.value = entry.value.then(
    (secrets) => (lastGood = secrets),
    (error: unknown) => {
      if (lastGood) {
        // Keep working on the secrets we have; the next request after MIN_REFRESH_MS tries again.
        logger.warn('signing secret refresh failed; keeping the cached secrets', { errorName: (error as Error)?.name });
        entry.fetchedAt = clock.now() - config.JWT_SECRET_CACHE_SECONDS * 1000 + MIN_REFRESH_MS;
        return lastGood;
      }
      // A failure is never kept: the next request reads the secret again.
      if (cached === entry) cached = undefined;
      throw error;
    },
  );
  return entry.value;
}

let local: Promise<SigningSecrets> | undefined;
// Another configuration (a harness's) reads its own secrets.
onConfigure(() => {
  local = cached = lastGood = undefined;
});

/**
 * The signing secrets. Locally: JWT_SECRET and the optional JWT_SECRET_PREVIOUS. Deployed: the
 * AWSCURRENT and AWSPREVIOUS versions of the secret in Secrets Manager (JWT_SECRET_ARN), read through
 * the Parameters and Secrets extension (secrets-extension.ts) and kept for
 * JWT_SECRET_CACHE_SECONDS, so a rotation reaches every warm container within that time. When
 * Secrets Manager fails before any read succeeded the request answers 503 and the next request reads
 * again; once read, the secrets stay in use through an outage.
 */
export function getSigningSecrets(): Promise<SigningSecrets> {
  if (config.JWT_SECRET) {
    local ??= Promise.resolve({
      current: signingSecret(config.JWT_SECRET),
      ...(config.JWT_SECRET_PREVIOUS ? { previous: signingSecret(config.JWT_SECRET_PREVIOUS) } : {}),
    });
    return local;
  }
  if (cached && cacheAge(cached) < config.JWT_SECRET_CACHE_SECONDS * 1000) return cached.value;
  return refresh();
}

/**
 * The secrets that may have signed something: for a `kid`, the one secret it names; without a kid
 * (tokens issued before kids, cursors, SMS-code hashes), the current then the previous one. A kid
 * this container does not know may come from a secret rotated in since its last read: it reads
 * again (at most every MIN_REFRESH_MS), then answers none if the kid is still unknown.
 */
export async function verificationSecrets(kid?: string): Promise<SigningSecret[]> {
  let secrets = await getSigningSecrets();
  const all = () => [secrets.current, ...(secrets.previous ? [secrets.previous] : [])];
  if (kid === undefined) return all();
  let match = all().filter((s) => s.kid === kid);
  if (match.length === 0 && !config.JWT_SECRET && cached && cacheAge(cached) >= MIN_REFRESH_MS) {
    secrets = await refresh();
    match = all().filter((s) => s.kid === kid);
  }
  return match;
}

const derived = new Map<string, Buffer>();
/** A 32-byte key for one purpose (`cursor-hmac`, `sms-code-hmac`), derived (HKDF) from a signing secret; computed once per secret. */
export function derivedKey(secret: SigningSecret, purpose: string): Buffer {
  const id = `${secret.kid}\n${purpose}`;
  let key = derived.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret.secret, 'expohub', purpose, 32));
    // Two secrets live at a time; a long-lived container that saw many rotations forgets the oldest.
    if (derived.size >= 8) derived.delete(derived.keys().next().value!);
    derived.set(id, key);
  }
  return key;
}
