import * as z from './zod.js';

const bool = z.pipe(
  z._default(z.enum(['true', 'false', '1', '0', '']), 'false'),
  z.transform((v) => v === 'true' || v === '1'),
);
const positiveInt = (fallback: number) => z._default(z.coerce.number().check(z.int(), z.positive()), fallback);
const csv = z.pipe(
  z._default(z.string(), ''),
  z.transform((v: string) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
);

/** Powertools Logger levels (SILENT writes nothing: the tests run with it). */
/** A terms version as configured and as a client names it (docs/moderation.md, "Terms and contact"): `2026-11-01`, `v3`. */
export const TERMS_VERSION_PATTERN = /^[A-Za-z0-9._-]{1,32}$/;
/** An e-mail address, loosely: something@host.tld without blanks. */
export const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
/** `us-east-1`, `ap-southeast-1`, `us-gov-west-1`, `cn-north-1`: the shape of an AWS region name (SMS_REGION; the stack's `-c region`, infra/regions.ts). */
export const REGION_PATTERN = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;

const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;

/**
 * Every setting the Lambda code reads, parsed once at cold start. A missing or malformed value fails
 * the import with a message naming the variable instead of surfacing later as an odd runtime error.
 */
const configSchema = z
  .object({
    EXPOHUB_RUNTIME: z._default(z.enum(['aws', 'local']), 'aws'),
    /** The least severe level written; the audit lines are written at any level but SILENT (lib/platform/audit/log-line.ts). */
    LOG_LEVEL: z.pipe(
      z.pipe(
        z._default(z.string(), 'INFO'),
        z.transform((v: string) => v.trim().toUpperCase() || 'INFO'),
      ),
      z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
    ),
    AWS_REGION: z._default(z.string(), 'us-east-1'),
    /** Where SNS sends the codes when it does not send SMS from the functions' region (infra/regions.ts); default AWS_REGION. */
    SMS_REGION: z.optional(z.string().check(z.regex(REGION_PATTERN, 'must be an AWS region such as ap-southeast-1'))),
    DYNAMODB_ENDPOINT: z.optional(z.url()),
    API_KEYS_TABLE: z.string().check(z.minLength(1)),
    HUB_TABLE: z.string().check(z.minLength(1)),
    JWT_SECRET: z.optional(z.string().check(z.minLength(32))),
    /** Locally: the secret before the last rotation; what it signed still verifies. */
    JWT_SECRET_PREVIOUS: z.optional(z.string().check(z.minLength(32))),
    JWT_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
    /** Deployed: how long a container keeps the secrets read from Secrets Manager (a rotation reaches every container within it). */
    JWT_SECRET_CACHE_SECONDS: positiveInt(300),
    /** The secret CloudFront sends in x-origin-verify (lib/transport/http/front-door.ts); unset locally: no check. */
    ORIGIN_VERIFY_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
    /** The synthetic check (functions/synthetic-check.ts): the public URL it calls (the stack's WebUrl) and its canary key's secret part, in Secrets Manager (deployed) or as is (locally, tests). */
    SYNTHETIC_BASE_URL: z.optional(z.url()),
    CANARY_KEY_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
    CANARY_KEY_SECRET: z.optional(z.string().check(z.minLength(1))),
    JWT_ISSUER: z._default(z.string().check(z.minLength(1)), 'expohub'),
    JWT_TTL_SECONDS: positiveInt(30 * 24 * 3600),
    ENFORCE_KEY_SCOPES: bool,
    ADMIN_PHONES: csv,
    DEFAULT_PHONE_REGION: z._default(z.string().check(z.length(2)), 'CN'),
    SHARE_BASE_URL: z._default(z.url(), 'https://expohub.example.com'),
    /** Deep links of share pages: `<APP_LINK_SCHEME>://video/<vid>?shareid=<shareid>` (docs/hub-api.md, "The share page"). */
    APP_LINK_SCHEME: z._default(z.string().check(z.regex(/^[a-z][a-z0-9+.-]{0,31}$/, 'must be a URL scheme such as expohub')), 'expohub'),
    /** The download link of share pages (an app store or a download page); none when unset. */
    APP_STORE_URL: z.optional(z.url()),
    /** iOS apps that open share links (`<team id>.<bundle id>`): /.well-known/apple-app-site-association. */
    APPLE_APP_IDS: csv,
    /** The Android app that opens share links, and its signing certificates' SHA-256 fingerprints: /.well-known/assetlinks.json. */
    ANDROID_APP_PACKAGE: z.optional(z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'must be an Android package name such as com.example.expohub'))),
    ANDROID_CERT_SHA256: csv,
    SMS_SENDER: z._default(z.enum(['sns', 'console']), 'sns'),
    SMS_CODE_TTL_SECONDS: positiveInt(300),
    /** gen_code limits (docs/hub-api.md, "gen_code"). The resend wait, per phone and requester (nonce, network). */
    RATE_SMS_PHONE_INTERVAL_S: positiveInt(60),
    /** Codes per phone and caller network (IPv4 address, IPv6 /64) per UTC hour / day. */
    RATE_SMS_PHONE_NETWORK_HOURLY: positiveInt(3),
    RATE_SMS_PHONE_NETWORK_DAILY: positiveInt(5),
    /**
     * Codes per phone per UTC hour / day, whoever asks: the hard bound on SMS to one number. The hour
     * leaves the owner its own 3 while strangers on 3 other networks take theirs.
     */
    RATE_SMS_PHONE_HOURLY: positiveInt(12),
    RATE_SMS_PHONE_DAILY: positiveInt(30),
    /** Codes per caller network per hour, all phones together. */
    RATE_SMS_IP_HOURLY: positiveInt(50),
    /**
     * Countries (ISO 3166 alpha-2) gen_code sends SMS to; a number elsewhere is refused before
     * anything is stored or sent. SNS charges per message and per destination: a short list bounds
     * the cost of SMS pumping (fraudulent sends to premium numbers abroad).
     */
    SMS_ALLOWED_COUNTRIES: z.pipe(
      z._default(z.string(), 'CN'),
      z.pipe(
        z.transform((v: string) => [...new Set(v.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean))]),
        z.array(z.string().check(z.regex(/^[A-Z]{2}$/, 'must be a comma-separated list of ISO 3166 alpha-2 country codes such as CN,HK'))).check(z.minLength(1, 'must list at least one country')),
      ),
    ),
    /**
     * SMS sends of the deployment per UTC day to numbers without an account. Past it gen_code answers
     * 429 to those numbers until 00:00 UTC. With SMS_DAILY_CAP_RETURNING: the ceiling on a day's SMS bill.
     */
    SMS_DAILY_CAP: positiveInt(1000),
    /** SMS sends per UTC day to numbers that have an account: a budget of their own, which new numbers cannot spend. */
    SMS_DAILY_CAP_RETURNING: positiveInt(1000),
    RATE_COMMENTS_PER_MINUTE: positiveInt(10),
    /** Reports (`do=report`, a repeat included) a person may send per hour and per UTC day, across the re-creation of its account (docs/moderation.md, "Reports"). */
    RATE_REPORTS_PER_HOUR: positiveInt(20),
    RATE_REPORTS_PER_DAY: positiveInt(100),
    /** sharetext: new shares per caller network (an IPv4 address, an IPv6 /64) per UTC hour (a repeat of the day's share is not counted). */
    RATE_SHARES_IP_HOURLY: positiveInt(60),
    MAX_KEYS_PER_USER: positiveInt(100),
    /** The current version of the terms of use; GET /api/v1/me says whether the account accepted it (docs/moderation.md, "Terms and contact"). */
    TERMS_VERSION: z._default(z.string().check(z.regex(TERMS_VERSION_PATTERN, 'must be 1-32 letters, digits, dots, underscores or hyphens')), '1'),
    /** Where the terms are published, and where to report abuse: GET /api/v1/policies answers them. */
    TERMS_URL: z.optional(z.url()),
    CONTACT_EMAIL: z.optional(z.string().check(z.regex(EMAIL_PATTERN, 'must be an e-mail address'))),
    CONTACT_URL: z.optional(z.url()),
    /** Pages (of up to 100 items) one run of an account's erasure works through before it records its position (lib/features/deletion/erasure.ts). */
    ERASURE_PAGES_PER_RUN: positiveInt(20),
    /** Requests per minute of an access key created without its own `rate_limit_per_minute` (and of keys older than the setting). */
    KEY_RATE_LIMIT_PER_MINUTE: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100_000)), 600),
    /** Records per page of `GET /api/v1/me/data` (docs/protected-api.md, "Download my data"). */
    DATA_EXPORT_PAGE_SIZE: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(500)), 100),
  })
  .check(
    z.refine((c) => c.JWT_SECRET !== undefined || c.JWT_SECRET_ARN !== undefined, {
      message: 'one of JWT_SECRET (local) or JWT_SECRET_ARN (deployed) must be set',
      path: ['JWT_SECRET'],
    }),
  );

export type Config = z.infer<typeof configSchema>;

/** Parses an environment; throws naming every invalid variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}

let current: Config | undefined;
const listeners: ((config: Config) => void)[] = [];

/**
 * The settings every module reads. Built once, from the environment, on first use (a Lambda's cold
 * start: a missing or malformed variable fails the first request with its name), unless a harness
 * has passed its own with `configure` (the local server, the tests). Read it where a setting is used,
 * not at import: a module that keeps a setting registers `onConfigure` to follow a new one.
 */
export const config: Config = new Proxy({} as Config, {
  get: (_, name) => (current ??= loadConfig(process.env))[name as keyof Config],
  has: (_, name) => name in (current ??= loadConfig(process.env)),
  ownKeys: () => Reflect.ownKeys((current ??= loadConfig(process.env))),
  getOwnPropertyDescriptor: (_, name) => Reflect.getOwnPropertyDescriptor((current ??= loadConfig(process.env)), name),
});

/**
 * Replaces the settings with those of `env` (parsed, failing like the cold start), and tells the
 * modules that keep one (the logger's level, ...). The composition root calls it: the local server
 * with its environment, the test harness with a file's own settings.
 */
export function configure(env: NodeJS.ProcessEnv): Config {
  current = loadConfig(env);
  for (const listener of listeners) listener(current);
  return current;
}

/** Follows `configure`: `listener` runs with each new configuration (not with the first one). */
export function onConfigure(listener: (config: Config) => void): void {
  listeners.push(listener);
}
