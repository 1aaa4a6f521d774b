import { Annotations, CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { ApiFunctions } from './constructs/api-functions.js';
import { DataTables } from './constructs/data-tables.js';
import { ExpohubHttpApi } from './constructs/http-api.js';
import { StreamCounters } from './constructs/stream-counters.js';
import { WebHosting } from './constructs/web-hosting.js';

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
  /** Any new value makes every function start cold, e.g. after the JWT secret was rotated. */
  jwtSecretGeneration?: string;
  /** Share pages' app links (CONTRACT §7), as the functions' variables: APP_LINK_SCHEME, APP_STORE_URL, APPLE_APP_IDS, ANDROID_APP_PACKAGE, ANDROID_CERT_SHA256. */
  appLinks?: Record<string, string>;
}

export const DEFAULT_SETTINGS: ExpohubSettings = { adminPhones: [], enforceKeyScopes: false, corsOrigins: [] };

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
export function settingsFromContext(tryGetContext: (key: string) => unknown): ExpohubSettings {
  const adminPhones = list(tryGetContext('adminPhones'));
  const badPhone = adminPhones.find((p) => !E164.test(p));
  if (badPhone) throw new Error(`Context adminPhones must hold E.164 numbers (+8613800138000), got "${badPhone}"`);

  const enforce = tryGetContext('enforceKeyScopes');
  if (enforce !== undefined && ![true, false, 'true', 'false'].includes(enforce as string | boolean)) {
    throw new Error(`Context enforceKeyScopes must be true or false, got "${String(enforce)}"`);
  }

  const share = tryGetContext('shareBaseUrl');
  const generation = tryGetContext('jwtSecretGeneration');
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
  return {
    adminPhones,
    enforceKeyScopes: enforce === true || enforce === 'true',
    shareBaseUrl: typeof share === 'string' && share !== '' ? url('shareBaseUrl', share) : undefined,
    corsOrigins: list(tryGetContext('corsOrigins')).map((o) => url('corsOrigins', o)),
    jwtSecretGeneration: generation === undefined || generation === '' ? undefined : String(generation),
    ...(Object.keys(appLinks).length > 0 ? { appLinks } : {}),
  };
}

/** The non-secret configuration every function receives (names as in lib/config.ts). */
function functionEnvironment(settings: ExpohubSettings): Record<string, string> {
  const env: Record<string, string> = {
    EXPOHUB_RUNTIME: 'aws',
    ENFORCE_KEY_SCOPES: String(settings.enforceKeyScopes),
  };
  if (settings.adminPhones.length > 0) env.ADMIN_PHONES = settings.adminPhones.join(',');
  if (settings.shareBaseUrl) env.SHARE_BASE_URL = settings.shareBaseUrl;
  if (settings.jwtSecretGeneration) env.JWT_SECRET_GENERATION = settings.jwtSecretGeneration;
  Object.assign(env, settings.appLinks);
  return env;
}

export interface ExpohubStackProps extends StackProps {
  settings?: ExpohubSettings;
  /** Folder of the built key-management page (web/build.ts); without it no page is uploaded. */
  webAssetsDir?: string;
}

/**
 * Everything expohub runs on: the tables, the JWT secret, one function per entry of FUNCTIONS, the
 * HTTP API with every route of ROUTES, and the key-management page behind CloudFront.
 * Environment-agnostic: synthesizes offline, with no credentials and no lookups.
 */
export class ExpohubStack extends Stack {
  constructor(scope: Construct, id: string, props: ExpohubStackProps = {}) {
    super(scope, id, {
      description: 'expohub: industry information hub and access-key service (Lambda, HTTP API, DynamoDB, CloudFront)',
      ...props,
    });
    const settings = props.settings ?? DEFAULT_SETTINGS;

    const tables = new DataTables(this, 'Tables');

    const jwtSecret = new Secret(this, 'JwtSecret', {
      description: 'expohub: signing key of login tokens (JWT, HS256). Changing it ends every session.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    NagSuppressions.addResourceSuppressions(jwtSecret, [
      {
        id: 'AwsSolutions-SMG4',
        reason: 'Rotating the JWT signing key ends every login session, so it is rotated by hand when needed (docs/deploy.md), not on a schedule.',
      },
    ]);

    const functions = new ApiFunctions(this, 'Functions', { tables, jwtSecret, environment: functionEnvironment(settings) });
    const http = new ExpohubHttpApi(this, 'Http', { functions, corsOrigins: settings.corsOrigins });
    new StreamCounters(this, 'StreamCounters', { table: tables.table('HUB_TABLE'), fn: functions.get('streamCounters') });
    const web = new WebHosting(this, 'Web', { apiDomainName: http.domainName, assetsDir: props.webAssetsDir });
    // Share links point at the page's own domain (CONTRACT §7): the distribution, unless a share
    // base URL (a custom domain) is configured.
    if (!settings.shareBaseUrl) {
      const pageUrl = `https://${web.distribution.distributionDomainName}`;
      for (const name of ['hub', 'sharePage'] as const) functions.get(name).addEnvironment('SHARE_BASE_URL', pageUrl);
    }
    if (!props.webAssetsDir) {
      Annotations.of(web).addWarningV2(
        'expohub:web-page-missing',
        'web/build.ts was not found: the key-management page is not uploaded (the bucket and distribution are still created).',
      );
    }

    new CfnOutput(this, 'ApiUrl', { value: http.stage.url, description: 'HTTP API base URL (routes start with /api/v1)' });
    new CfnOutput(this, 'WebUrl', {
      value: `https://${web.distribution.distributionDomainName}`,
      description: 'Key-management page; the same origin serves /api/*, the share pages /s/* and /.well-known/*',
    });
    new CfnOutput(this, 'ApiKeysTableName', { value: tables.table('API_KEYS_TABLE').tableName });
    new CfnOutput(this, 'HubTableName', { value: tables.table('HUB_TABLE').tableName });
    new CfnOutput(this, 'JwtSecretArn', { value: jwtSecret.secretArn, description: 'Secret holding the JWT signing key (value not shown)' });
    new CfnOutput(this, 'DistributionId', { value: web.distribution.distributionId });
  }
}
