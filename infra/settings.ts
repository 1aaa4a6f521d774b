import { EMAIL_PATTERN, REGION_PATTERN, TERMS_VERSION_PATTERN } from '../lib/platform/config.js';
import { TABLES, type TableDefinition } from '../lib/platform/db/tables.js';
/** Deployment settings, from CDK context (`-c name=value`, see docs/deploy.md). */
export interface ExpohubSettings {
  /** E.164 phone numbers whose new accounts get the `admin` role (ADMIN_PHONES). */
  adminPhones: string[];
  /** Turns the access-key scope gate on (ENFORCE_KEY_SCOPES). */
  enforceKeyScopes: boolean;
  /** Base of share links (SHARE_BASE_URL); the functions' default applies when absent. */
  shareBaseUrl?: string;
  /** Extra browser origins allowed to call the API cross-origin; the page itself is same-origin. */
  corsOrigins: string[];
  /** Share pages' app links (docs/hub-api.md, "The share page"), as the functions' variables: APP_LINK_SCHEME, APP_STORE_URL, APPLE_APP_IDS, ANDROID_APP_PACKAGE, ANDROID_CERT_SHA256. */
  appLinks?: Record<string, string>;
  /** The terms version and the contact for reports (docs/moderation.md, "Terms and contact"), as the functions' variables: TERMS_VERSION, TERMS_URL, CONTACT_EMAIL, CONTACT_URL. */
  policies?: Record<string, string>;
  /** `-c stage=<name>`: names the stack (`Expohub-<stage>`) and the resources named here (`expohub-<stage>-...`). */
  stage: string;
  /** `prod` and `prod-*` stages: data retained and protected, share base URL and administrators required. */
  production: boolean;
  /** Functions' LOG_LEVEL (Powertools logger levels). */
  logLevel: LogLevel;
  /** SMS_ALLOWED_COUNTRIES: ISO 3166 alpha-2 codes gen_code may send to; empty leaves the functions' default. */
  smsAllowedCountries: string[];
  /** SMS_DAILY_CAP: codes sent per day to numbers without an account; the functions' default when absent. */
  smsDailyCap?: number;
  /** SMS_DAILY_CAP_RETURNING: codes sent per day to numbers with an account; the functions' default when absent. */
  smsDailyCapReturning?: number;
  /** The account's SNS monthly SMS spend limit (USD); the spend alarm fires at SMS_SPEND_ALARM_RATIO of it. */
  smsMonthlySpendLimitUsd: number;
  /** E-mail address subscribed to the alarm topic (it must confirm the subscription). */
  alarmEmail?: string;
  /**
   * A custom domain on the distribution: with the ARN of its ACM certificate (us-east-1), or with the
   * Route 53 hosted zone that holds it, in which the stack validates a new certificate by DNS and
   * points the name at the distribution (docs/deploy.md, "7. Custom domain").
   */
  domain?: { name: string; certificateArn?: string; hostedZoneId?: string };
  /** An existing CLOUDFRONT web ACL to attach instead of creating one. */
  webAclArn?: string;
  /**
   * The region of the stack (`-c region=`, else CDK_DEFAULT_REGION, which `cdk deploy` sets from the
   * credentials). Unknown: the stack is environment-agnostic and must go to us-east-1 (docs/deploy.md, "Regions").
   */
  region?: string;
  /** `-c smsRegion=`: the region whose SNS sends the codes; default infra/regions.ts `smsRegionFor` of the stack's region. */
  smsRegion?: string;
  /**
   * Tables the stage uses instead of creating its own, by definition (lib/platform/db/tables.ts): a table
   * restored to a point in time, with its new stream (docs/deploy.md, "Backups and restore").
   */
  existingTables: Partial<Record<TableDefinition['envVar'], ExistingTable>>;
  limits: FrontDoorLimits;
}

export interface ExistingTable {
  name: string;
  /** The stream's ARN, for a table whose definition has a stream. */
  streamArn?: string;
}

/** `-c <prefix>TableName=` and `-c <prefix>TableStreamArn=` name an existing table: `hub`, `apiKeys` (the definition's id in camelCase). */
export const existingTableContext = (definition: TableDefinition) => {
  const prefix = definition.id.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return { name: `${prefix}TableName`, streamArn: `${prefix}TableStreamArn` };
};

export interface FrontDoorLimits {
  /** WAF: requests per IP (the viewer's) per 5 minutes, any path. */
  wafRequestsPer5Min: number;
  /** WAF: `GET /api/v1?do=gen_code` per IP per 5 minutes (each one may send an SMS). */
  wafGenCodePer5Min: number;
  /** WAF: `GET /api/v1/api-keys/verify` per IP per 5 minutes. */
  wafVerifyPer5Min: number;
  /** API Gateway `$default` stage: steady requests per second and burst of each route without its own throttle. */
  stageRate: number;
  stageBurst: number;
  /** `GET /api/v1/api-keys/verify` (public, a key lookup each): its own route throttle. */
  verifyRate: number;
  verifyBurst: number;
}

/** `expohub-<stage>`: the prefix of the names the stacks set themselves (alarms, dashboard, web ACL, service name). */
export const namePrefix = (stage: string) => `expohub-${stage}`;

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** WAF's per-IP limits, the same on every stage. */
const WAF_PER_IP = { wafRequestsPer5Min: 2000, wafGenCodePer5Min: 30, wafVerifyPer5Min: 1000 };

/**
 * Default limits by kind of stage (docs/deploy.md, "Throttles"). API Gateway's quota, 10,000 requests
 * per second with a burst of 5,000, is shared by every API and stage of the account in the Region: a
 * production route may take half of it, another stage's route a twentieth. The verification route
 * gets a fifth of that: at WAF's 1,000 per IP per 5 minutes (3.3 a second), 300 addresses are needed
 * to use it up in production, 30 elsewhere.
 */
export const DEFAULT_LIMITS: Record<'production' | 'other', FrontDoorLimits> = {
  production: { ...WAF_PER_IP, stageRate: 5000, stageBurst: 2500, verifyRate: 1000, verifyBurst: 500 },
  other: { ...WAF_PER_IP, stageRate: 500, stageBurst: 250, verifyRate: 100, verifyBurst: 50 },
};

export const defaultLimits = (production: boolean): FrontDoorLimits => DEFAULT_LIMITS[production ? 'production' : 'other'];

/** Share of the monthly SMS spend limit at which the spend alarm fires. */
export const SMS_SPEND_ALARM_RATIO = 0.8;
/** AWS's default monthly SMS spend limit of an account, in USD. */
export const DEFAULT_SMS_MONTHLY_SPEND_LIMIT_USD = 1;
export const DEFAULT_STAGE = 'dev';

/** Production stages: `prod`, or `prod-<anything>` (e.g. prod-eu). */
export const isProductionStage = (stage: string) => stage === 'prod' || stage.startsWith('prod-');

export const DEFAULT_SETTINGS: ExpohubSettings = {
  adminPhones: [],
  enforceKeyScopes: false,
  corsOrigins: [],
  stage: DEFAULT_STAGE,
  production: false,
  logLevel: 'INFO',
  smsAllowedCountries: [],
  smsMonthlySpendLimitUsd: DEFAULT_SMS_MONTHLY_SPEND_LIMIT_USD,
  existingTables: {},
  limits: DEFAULT_LIMITS.other,
};

const E164 = /^\+[1-9]\d{6,14}$/;

const list = (value: unknown): string[] =>
  (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [])
    .map((s) => s.trim())
    .filter(Boolean);

function url(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error(`Context ${name} must be an absolute https URL, got "${value}"`);
  }
  if (parsed.protocol !== 'https:' && parsed.hostname !== 'localhost' && parsed.hostname !== '127.0.0.1') {
    throw new Error(`Context ${name} must use https, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

/** Reads and checks the settings at synth time, so a typo fails the synth rather than a cold start. */
export function settingsFromContext(tryGetContext: (key: string) => unknown, environment: NodeJS.ProcessEnv = {}): ExpohubSettings {
  const adminPhones = list(tryGetContext('adminPhones'));
  const badPhone = adminPhones.find((p) => !E164.test(p));
  if (badPhone) throw new Error(`Context adminPhones must hold E.164 numbers (+8613800138000), got "${badPhone}"`);

  const enforce = tryGetContext('enforceKeyScopes');
  if (enforce !== undefined && ![true, false, 'true', 'false'].includes(enforce as string | boolean)) {
    throw new Error(`Context enforceKeyScopes must be true or false, got "${String(enforce)}"`);
  }

  const share = tryGetContext('shareBaseUrl');
  const appLinks: Record<string, string> = {};
  const text = (key: string) => {
    const v = tryGetContext(key);
    return v === undefined || v === '' ? undefined : String(v).trim();
  };
  const scheme = text('appLinkScheme');
  if (scheme !== undefined) {
    if (!/^[a-z][a-z0-9+.-]{0,31}$/.test(scheme)) throw new Error(`Context appLinkScheme must be a URL scheme such as expohub, got "${scheme}"`);
    appLinks.APP_LINK_SCHEME = scheme;
  }
  const store = text('appStoreUrl');
  if (store !== undefined) appLinks.APP_STORE_URL = url('appStoreUrl', store);
  const appleIds = list(tryGetContext('appleAppIds'));
  const badApple = appleIds.find((id) => !/^[A-Z0-9]{10}\.[A-Za-z0-9.-]+$/.test(id));
  if (badApple) throw new Error(`Context appleAppIds must hold <team id>.<bundle id> (ABCDE12345.com.example.expohub), got "${badApple}"`);
  if (appleIds.length > 0) appLinks.APPLE_APP_IDS = appleIds.join(',');
  const androidPackage = text('androidAppPackage');
  const androidCerts = list(tryGetContext('androidCertSha256'));
  if ((androidPackage === undefined) !== (androidCerts.length === 0)) throw new Error('Context androidAppPackage and androidCertSha256 go together');
  const badCert = androidCerts.find((c) => !/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/.test(c));
  if (badCert) throw new Error(`Context androidCertSha256 must hold SHA-256 fingerprints (32 hex pairs separated by colons), got "${badCert}"`);
  if (androidPackage !== undefined) Object.assign(appLinks, { ANDROID_APP_PACKAGE: androidPackage, ANDROID_CERT_SHA256: androidCerts.join(',') });

  const policies: Record<string, string> = {};
  const termsVersion = text('termsVersion');
  if (termsVersion !== undefined) {
    if (!TERMS_VERSION_PATTERN.test(termsVersion)) throw new Error(`Context termsVersion must be 1-32 letters, digits, dots, underscores or hyphens, got "${termsVersion}"`);
    policies.TERMS_VERSION = termsVersion;
  }
  const termsUrl = text('termsUrl');
  if (termsUrl !== undefined) policies.TERMS_URL = url('termsUrl', termsUrl);
  const contactEmail = text('contactEmail');
  if (contactEmail !== undefined) {
    if (!EMAIL_PATTERN.test(contactEmail)) throw new Error(`Context contactEmail must be an e-mail address, got "${contactEmail}"`);
    policies.CONTACT_EMAIL = contactEmail;
  }
  const contactUrl = text('contactUrl');
  if (contactUrl !== undefined) policies.CONTACT_URL = url('contactUrl', contactUrl);

  const stage = text('stage') ?? DEFAULT_STAGE;
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage) || stage.endsWith('-')) {
    throw new Error(`Context stage must be lowercase letters, digits and hyphens, starting with a letter (at most 20), got "${stage}"`);
  }
  const production = isProductionStage(stage);

  const logLevel = (text('logLevel') ?? 'INFO').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new Error(`Context logLevel must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  const smsAllowedCountries = list(tryGetContext('smsAllowedCountries')).map((c) => c.toUpperCase());
  const badCountry = smsAllowedCountries.find((c) => !/^[A-Z]{2}$/.test(c));
  if (badCountry) throw new Error(`Context smsAllowedCountries must hold ISO 3166 alpha-2 codes (CN,HK), got "${badCountry}"`);
  const dailyCap = text('smsDailyCap');
  const dailyCapReturning = text('smsDailyCapReturning');
  const spendLimit = text('smsMonthlySpendLimitUsd');
  const alarmEmail = text('alarmEmail');
  if (alarmEmail !== undefined && !EMAIL_PATTERN.test(alarmEmail)) throw new Error(`Context alarmEmail must be an e-mail address, got "${alarmEmail}"`);

  const domainName = text('domainName')?.toLowerCase();
  const certificateArn = text('certificateArn');
  const hostedZoneId = text('hostedZoneId');
  if (domainName === undefined && (certificateArn !== undefined || hostedZoneId !== undefined)) throw new Error('Context certificateArn and hostedZoneId need domainName');
  if (domainName !== undefined && certificateArn === undefined && hostedZoneId === undefined) {
    throw new Error('Context domainName needs certificateArn (an ACM certificate in us-east-1) or hostedZoneId (the Route 53 zone of the name: the stack then makes the certificate)');
  }
  if (domainName !== undefined && !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domainName)) {
    throw new Error(`Context domainName must be a host name such as api.example.com, got "${domainName}"`);
  }
  // CloudFront takes certificates from ACM in us-east-1 only.
  if (certificateArn !== undefined && !/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]+$/.test(certificateArn)) {
    throw new Error(`Context certificateArn must be an ACM certificate in us-east-1 (CloudFront uses no other region), got "${certificateArn}"`);
  }
  if (hostedZoneId !== undefined && !/^Z[0-9A-Z]{1,31}$/.test(hostedZoneId)) throw new Error(`Context hostedZoneId must be a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ, got "${hostedZoneId}"`);
  const region = text('region') ?? (environment.CDK_DEFAULT_REGION || undefined);
  if (region !== undefined && !REGION_PATTERN.test(region)) throw new Error(`Context region must be an AWS region such as ap-southeast-1, got "${region}"`);
  const smsRegion = text('smsRegion');
  if (smsRegion !== undefined && !REGION_PATTERN.test(smsRegion)) throw new Error(`Context smsRegion must be an AWS region such as ap-southeast-1, got "${smsRegion}"`);
  const existingTables: ExpohubSettings['existingTables'] = {};
  for (const definition of TABLES) {
    const keys = existingTableContext(definition);
    const name = text(keys.name);
    const streamArn = text(keys.streamArn);
    if (name === undefined) {
      if (streamArn !== undefined) throw new Error(`Context ${keys.streamArn} needs ${keys.name}`);
      continue;
    }
    if (!/^[A-Za-z0-9_.-]{3,255}$/.test(name)) throw new Error(`Context ${keys.name} must be a DynamoDB table name, got "${name}"`);
    if (definition.stream !== undefined) {
      if (streamArn === undefined) throw new Error(`Context ${keys.name} needs ${keys.streamArn}: the ${definition.id} table's stream feeds the stream processor (docs/deploy.md, "Backups and restore")`);
      const match = /^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table\/([A-Za-z0-9_.-]+)\/stream\/[\w:.-]+$/.exec(streamArn);
      if (!match || match[1] !== name) throw new Error(`Context ${keys.streamArn} must be the ARN of ${name}'s stream (arn:aws:dynamodb:<region>:<account>:table/${name}/stream/<label>), got "${streamArn}"`);
    } else if (streamArn !== undefined) {
      throw new Error(`Context ${keys.streamArn}: the ${definition.id} table has no stream`);
    }
    existingTables[definition.envVar] = { name, ...(streamArn !== undefined ? { streamArn } : {}) };
  }
  const webAclArn = text('webAclArn');
  if (webAclArn !== undefined && !/^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]+\/[0-9a-f-]+$/.test(webAclArn)) {
    throw new Error(`Context webAclArn must be the ARN of a CLOUDFRONT-scoped web ACL (arn:aws:wafv2:us-east-1:<account>:global/webacl/<name>/<id>), got "${webAclArn}"`);
  }

  const defaults = defaultLimits(production);
  const limits: FrontDoorLimits = {
    // WAF rate-based rules take 10 and up (per evaluation window).
    wafRequestsPer5Min: integer(tryGetContext, 'wafRequestsPer5Min', defaults.wafRequestsPer5Min, 10),
    wafGenCodePer5Min: integer(tryGetContext, 'wafGenCodePer5Min', defaults.wafGenCodePer5Min, 10),
    wafVerifyPer5Min: integer(tryGetContext, 'wafVerifyPer5Min', defaults.wafVerifyPer5Min, 10),
    stageRate: integer(tryGetContext, 'throttleRate', defaults.stageRate, 1),
    stageBurst: integer(tryGetContext, 'throttleBurst', defaults.stageBurst, 1),
    verifyRate: integer(tryGetContext, 'verifyThrottleRate', defaults.verifyRate, 1),
    verifyBurst: integer(tryGetContext, 'verifyThrottleBurst', defaults.verifyBurst, 1),
  };

  const settings: ExpohubSettings = {
    adminPhones,
    enforceKeyScopes: enforce === true || enforce === 'true',
    shareBaseUrl: typeof share === 'string' && share !== '' ? url('shareBaseUrl', share) : undefined,
    corsOrigins: list(tryGetContext('corsOrigins')).map((o) => url('corsOrigins', o)),
    ...(Object.keys(appLinks).length > 0 ? { appLinks } : {}),
    ...(Object.keys(policies).length > 0 ? { policies } : {}),
    stage,
    production,
    logLevel: logLevel as LogLevel,
    smsAllowedCountries,
    smsDailyCap: dailyCap === undefined ? undefined : integer(tryGetContext, 'smsDailyCap', 0, 1),
    smsDailyCapReturning: dailyCapReturning === undefined ? undefined : integer(tryGetContext, 'smsDailyCapReturning', 0, 1),
    smsMonthlySpendLimitUsd: spendLimit === undefined ? DEFAULT_SMS_MONTHLY_SPEND_LIMIT_USD : positiveNumber('smsMonthlySpendLimitUsd', spendLimit),
    alarmEmail,
    domain: domainName !== undefined ? { name: domainName, ...(certificateArn !== undefined ? { certificateArn } : {}), ...(hostedZoneId !== undefined ? { hostedZoneId } : {}) } : undefined,
    webAclArn,
    region,
    smsRegion,
    existingTables,
    limits,
  };

  if (production) {
    const missing = [
      ...(settings.shareBaseUrl === undefined && settings.domain === undefined ? ['shareBaseUrl (or domainName)'] : []),
      ...(adminPhones.length === 0 ? ['adminPhones'] : []),
      ...(policies.CONTACT_EMAIL === undefined && policies.CONTACT_URL === undefined ? ['contactEmail (or contactUrl)'] : []),
    ];
    if (missing.length > 0) {
      throw new Error(
        `Stage "${stage}" is a production stage and needs ${missing.join(' and ')}: share links must not carry the distribution's generated host, someone must be able to administer it, and the app stores require a published contact for reports (docs/deploy.md).`,
      );
    }
  }
  return settings;
}

function integer(tryGetContext: (key: string) => unknown, key: string, fallback: number, min: number): number {
  const raw = tryGetContext(key);
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`Context ${key} must be an integer of at least ${min}, got "${String(raw)}"`);
  return value;
}

function positiveNumber(key: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`Context ${key} must be a positive number, got "${raw}"`);
  return value;
}

