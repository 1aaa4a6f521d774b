import { Annotations, CfnOutput, RemovalPolicy, Stack, Token, type StackProps } from 'aws-cdk-lib';
import { CfnRecordSet } from 'aws-cdk-lib/aws-route53';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { ApiFunctions } from './constructs/api-functions.js';
import { DataTables } from './constructs/data-tables.js';
import { ExpohubHttpApi } from './constructs/http-api.js';
import { FeedModel } from './constructs/feed-model.js';
import { Erasure } from './constructs/erasure.js';
import { StreamCounters } from './constructs/stream-counters.js';
import { cloudFrontScoped, type CloudFrontScoped } from './constructs/cloudfront-scoped.js';
import { WebHosting } from './constructs/web-hosting.js';
import { Monitoring } from './constructs/monitoring.js';
import { SyntheticCheck } from './constructs/synthetic-check.js';
import { DEFAULT_SETTINGS, SMS_SPEND_ALARM_RATIO, namePrefix, type ExpohubSettings } from './settings.js';
import { smsRegionFor } from './regions.js';
import { ORIGIN_VERIFY_HEADER } from '../lib/transport/http/origin-verify.js';
import { METRICS_NAMESPACE } from '../lib/platform/observability/metric-names.js';

export { DEFAULT_SETTINGS, namePrefix, settingsFromContext, type ExpohubSettings } from './settings.js';

/** The hosted zone id of every CloudFront distribution, for Route 53 alias records (fixed by AWS). */
const CLOUDFRONT_HOSTED_ZONE_ID = 'Z2FDTNDATAQYW2';

/** The non-secret configuration every function receives (names as in lib/platform/config.ts). */
function functionEnvironment(settings: ExpohubSettings, smsRegion: string | undefined): Record<string, string> {
  const env: Record<string, string> = {
    EXPOHUB_RUNTIME: 'aws',
    ENFORCE_KEY_SCOPES: String(settings.enforceKeyScopes),
    // Powertools: the service (a dimension of every custom metric, and in every log line) carries the stage.
    POWERTOOLS_SERVICE_NAME: namePrefix(settings.stage),
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    LOG_LEVEL: settings.logLevel,
  };
  if (settings.adminPhones.length > 0) env.ADMIN_PHONES = settings.adminPhones.join(',');
  // Share links: the configured base, else the custom domain; else the distribution (set below).
  const shareBase = settings.shareBaseUrl ?? (settings.domain ? `https://${settings.domain.name}` : undefined);
  if (shareBase) env.SHARE_BASE_URL = shareBase;
  if (smsRegion !== undefined) env.SMS_REGION = smsRegion;
  if (settings.smsAllowedCountries.length > 0) env.SMS_ALLOWED_COUNTRIES = settings.smsAllowedCountries.join(',');
  if (settings.smsDailyCap !== undefined) env.SMS_DAILY_CAP = String(settings.smsDailyCap);
  if (settings.smsDailyCapReturning !== undefined) env.SMS_DAILY_CAP_RETURNING = String(settings.smsDailyCapReturning);
  Object.assign(env, settings.appLinks, settings.policies);
  return env;
}

export interface ExpohubStackProps extends StackProps {
  settings?: ExpohubSettings;
  /** Folder of the built key-management page (web/build.ts); without it no page is uploaded. */
  webAssetsDir?: string;
  /**
   * The web ACL and certificate made by the us-east-1 companion stack (infra/edge-stack.ts) when this
   * stack is in another region; without them this stack makes them itself, and must be in us-east-1.
   */
  cloudFront?: CloudFrontScoped;
}

/**
 * Everything expohub runs on: the tables, the JWT secret, one function per entry of FUNCTIONS, the
 * HTTP API with every route of ROUTES, the key-management page behind CloudFront (the API's front
 * door, with its web ACL), and the alarms and dashboard.
 * Environment-agnostic: synthesizes offline, with no credentials and no lookups.
 */
export class ExpohubStack extends Stack {
  constructor(scope: Construct, id: string, props: ExpohubStackProps = {}) {
    super(scope, id, {
      description: 'expohub: industry information hub and access-key service (Lambda, HTTP API, DynamoDB, CloudFront)',
      ...props,
    });
    const settings = props.settings ?? DEFAULT_SETTINGS;
    const prefix = namePrefix(settings.stage);
    // Where SNS sends the codes: the stack's region when SNS sends SMS there (infra/regions.ts).
    const region = Token.isUnresolved(this.region) ? undefined : this.region;
    const smsRegion = settings.smsRegion ?? (region === undefined ? undefined : smsRegionFor(region));
    if (smsRegion !== undefined && smsRegion !== region) {
      Annotations.of(this).addInfo(`SNS does not send SMS from ${region ?? 'this region'} (or -c smsRegion says otherwise): verification codes are sent through ${smsRegion} (docs/deploy.md, "Regions").`);
    }
    // Production keeps its data and logs when the stack goes; other stages leave nothing behind.
    const keep = settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    const tables = new DataTables(this, 'Tables', { production: settings.production, existing: settings.existingTables });

    const jwtSecret = new Secret(this, 'JwtSecret', {
      description: `${prefix}: signing key of login tokens (JWT, HS256). Rotate with npm run rotate-jwt-secret: tokens of the previous version keep working.`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: keep,
    });
    const originVerifySecret = new Secret(this, 'OriginVerifySecret', {
      description: `${prefix}: sent by CloudFront to the API (${ORIGIN_VERIFY_HEADER}); requests without it are refused.`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    NagSuppressions.addResourceSuppressions(jwtSecret, [
      {
        id: 'AwsSolutions-SMG4',
        reason: 'Rotated by one command (npm run rotate-jwt-secret, docs/deploy.md) that the functions follow without logging anyone out; a scheduled rotation would need a rotation Lambda and, twice within a token lifetime (30 days), would end the oldest sessions.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(originVerifySecret, [
      {
        id: 'AwsSolutions-SMG4',
        reason: 'CloudFront reads the value only when the stack is deployed (a dynamic reference), so an automatic rotation would lock CloudFront out; it is rotated by hand with a redeploy (docs/deploy.md).',
      },
    ]);

    const functions = new ApiFunctions(this, 'Functions', {
      tables,
      jwtSecret,
      originVerifySecret,
      environment: functionEnvironment(settings, smsRegion),
      logRemovalPolicy: keep,
    });
    const { limits } = settings;
    const http = new ExpohubHttpApi(this, 'Http', {
      functions,
      corsOrigins: settings.corsOrigins,
      throttles: {
        stage: { rateLimit: limits.stageRate, burstLimit: limits.stageBurst },
        routes: { verifyKey: { rateLimit: limits.verifyRate, burstLimit: limits.verifyBurst } },
      },
      logRemovalPolicy: keep,
    });
    const streamCounters = new StreamCounters(this, 'StreamCounters', { table: tables.table('HUB_TABLE'), fn: functions.get('streamCounters') });
    new FeedModel(this, 'FeedModel', { refresh: functions.get('refreshModel') });
    const erasure = new Erasure(this, 'Erasure', { table: tables.table('HUB_TABLE'), erase: functions.get('eraseAccounts'), sweep: functions.get('sweepErasures'), service: prefix });
    const { webAclArn, certificate } = props.cloudFront ?? cloudFrontScoped(this, settings);
    const web = new WebHosting(this, 'Web', {
      apiDomainName: http.domainName,
      assetsDir: props.webAssetsDir,
      originVerifySecret,
      webAclArn,
      domain: settings.domain && certificate ? { name: settings.domain.name, certificate } : undefined,
    });
    if (settings.domain?.hostedZoneId !== undefined) {
      // The name points at the distribution (IPv4 and IPv6 aliases, no extra DNS cost).
      for (const type of ['A', 'AAAA']) {
        new CfnRecordSet(this, `DomainAlias${type}`, {
          hostedZoneId: settings.domain.hostedZoneId,
          name: `${settings.domain.name}.`,
          type,
          aliasTarget: { dnsName: web.distribution.distributionDomainName, hostedZoneId: CLOUDFRONT_HOSTED_ZONE_ID },
        });
      }
    }
    const webUrl = settings.domain ? `https://${settings.domain.name}` : `https://${web.distribution.distributionDomainName}`;
    // Share links point at the page's own domain (docs/hub-api.md, "The share page"): the
    // distribution, unless a share base URL or a custom domain is configured.
    if (!settings.shareBaseUrl && !settings.domain) {
      for (const name of ['hub', 'sharePage'] as const) functions.get(name).addEnvironment('SHARE_BASE_URL', webUrl);
    }
    // Every 5 minutes, the smoke checks through the distribution (docs/deploy.md, "The synthetic check").
    const synthetic = new SyntheticCheck(this, 'SyntheticCheck', { fn: functions.get('syntheticCheck'), baseUrl: webUrl, namePrefix: prefix });
    if (!props.webAssetsDir) {
      Annotations.of(web).addWarningV2(
        'expohub:web-page-missing',
        'web/build.ts was not found: the key-management page is not uploaded (the bucket and distribution are still created).',
      );
    }

    const monitoring = new Monitoring(this, 'Monitoring', {
      namePrefix: prefix,
      functions,
      api: http.api,
      tables,
      smsMonthlySpendLimitUsd: settings.smsMonthlySpendLimitUsd,
      smsRegion,
      smsSpendAlarmRatio: SMS_SPEND_ALARM_RATIO,
      // The functions' defaults when the context does not set them (lib/platform/config.ts: 1000 each).
      smsDailyCaps: { new: settings.smsDailyCap ?? 1000, returning: settings.smsDailyCapReturning ?? 1000 },
      alarmEmail: settings.alarmEmail,
      otherAlarms: [...streamCounters.alarms, ...erasure.alarms],
      production: settings.production,
    });

    new CfnOutput(this, 'ApiUrl', {
      value: http.stage.url,
      description: 'The execute-api URL: refuses direct calls (403); clients use WebUrl/api/v1',
    });
    new CfnOutput(this, 'WebUrl', {
      value: webUrl,
      description: 'The public URL: the key-management page, /api/v1/..., the share pages /s/* and /.well-known/*',
    });
    if (settings.domain) {
      new CfnOutput(this, 'DistributionDomainName', {
        value: web.distribution.distributionDomainName,
        description: `Point ${settings.domain.name} here (DNS CNAME, or a Route 53 alias)`,
      });
    }
    new CfnOutput(this, 'ApiKeysTableName', { value: tables.table('API_KEYS_TABLE').tableName });
    new CfnOutput(this, 'HubTableName', { value: tables.table('HUB_TABLE').tableName });
    new CfnOutput(this, 'JwtSecretArn', { value: jwtSecret.secretArn, description: 'Secret holding the JWT signing key (value not shown)' });
    new CfnOutput(this, 'OriginVerifySecretArn', { value: originVerifySecret.secretArn, description: 'Secret CloudFront sends to the API (value not shown)' });
    new CfnOutput(this, 'DistributionId', { value: web.distribution.distributionId });
    new CfnOutput(this, 'AlarmTopicArn', { value: monitoring.topic.topicArn, description: 'Every alarm notifies this topic: subscribe to it' });
    new CfnOutput(this, 'CanaryKeySecretArn', { value: synthetic.canarySecret.secretArn, description: "The synthetic check's canary key secret (value not shown)" });
    new CfnOutput(this, 'WebAclArn', { value: webAclArn, description: 'The web ACL on the distribution' });
  }
}
