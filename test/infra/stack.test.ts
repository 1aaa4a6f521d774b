import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../infra/app.js';
import { PROJECT_ROOT } from '../../infra/constructs/expohub-function.js';
import { FUNCTIONS, ROUTES, usesAuthorizer, type FunctionName, type FunctionSpec } from '../../infra/routes.js';
import { DEFAULT_SETTINGS, ExpohubStack, settingsFromContext } from '../../infra/stack.js';
import { COMMON_RULE_SET_COUNT_ONLY } from '../../infra/constructs/web-acl.js';
import { esbuildOptions } from '../../infra/constructs/lambda-bundle.js';
import { DEFAULT_LIMITS } from '../../infra/settings.js';
import { queryParameters, type ApiEvent } from '../../lib/transport/http/request.js';
import { METRICS_NAMESPACE } from '../../lib/platform/observability/metric-names.js';
import { TABLES } from '../../lib/platform/db/tables.js';
import { COUNTER_BATCHING } from '../../lib/features/streams/batching.js';
import { countsTowardRateRule, type RawRequest } from '../support/waf-eval.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Resource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

const CONTEXT = {
  stage: 'prod',
  adminPhones: '+8613800138000, +8613900139000',
  enforceKeyScopes: 'true',
  shareBaseUrl: 'https://share.example.com/',
  logLevel: 'warn',
  smsAllowedCountries: 'cn, HK',
  smsDailyCap: '500',
  termsVersion: '2026-11-01',
  contactEmail: 'abuse@example.com',
  smsDailyCapReturning: '700',
  smsMonthlySpendLimitUsd: '50',
  alarmEmail: 'ops@example.com',
  wafRequestsPer5Min: '1500',
  wafGenCodePer5Min: '25',
  wafVerifyPer5Min: '700',
  throttleRate: '80',
  throttleBurst: '160',
  verifyThrottleRate: '7',
  verifyThrottleBurst: '14',
};
/**
 * A stack of the app as `cdk synth -c ...` builds it, without bundling the functions (quick): the
 * template is the same but for the assets' hashes, and the bundles are checked by themselves below
 * ("bundles every function as the stack deploys it"). The same context gives the same template, so
 * it is synthesized once for the tests that read it.
 */
const synths = new Map<string, Promise<{ stack: ExpohubStack; resources: Record<string, Resource>; json: Json }>>();
function synthWith(context: Record<string, unknown>): Promise<{ stack: ExpohubStack; resources: Record<string, Resource>; json: Json }> {
  const key = JSON.stringify(context);
  let synth = synths.get(key);
  if (!synth) {
    synth = createApp(new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } }), { webOutDir }).then(({ stack: built }) => {
      const json = Template.fromStack(built).toJSON();
      return { stack: built, resources: json.Resources, json };
    });
    synths.set(key, synth);
  }
  return synth;
}
// AWS managed policies (ids are fixed by CloudFront).
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

let webOutDir: string;
let stack: ExpohubStack;
let template: Template;
let resources: Record<string, Resource>;

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Our functions (not CDK's deployment helpers), by the FUNCTIONS entry they were built from. */
function ourFunctions(): Map<FunctionName, { id: string; props: Json }> {
  const found = new Map<FunctionName, { id: string; props: Json }>();
  const lambdas = ofType('AWS::Lambda::Function');
  for (const [name, spec] of Object.entries(FUNCTIONS) as [FunctionName, FunctionSpec][]) {
    const prefix = `Functions${name.charAt(0).toUpperCase()}${name.slice(1)}Function`;
    const matches = lambdas.filter(([id]) => id.startsWith(prefix) && /^[0-9A-F]{8}$/.test(id.slice(prefix.length)));
    expect(matches, `function for FUNCTIONS.${name}`).toHaveLength(1);
    const [id, r] = matches[0]!;
    expect(r.Properties.Description).toBe(spec.description);
    found.set(name, { id, props: r.Properties });
  }
  // Nothing else runs our code: every other function is a CDK deployment helper.
  const ours = lambdas.filter(([, r]) => r.Properties.Environment?.Variables?.EXPOHUB_RUNTIME === 'aws');
  expect(ours).toHaveLength(found.size);
  return found;
}

/** Every statement of the identity policies attached to a function's role. */
function roleStatements(fn: Json): Json[] {
  const roleId = fn.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => asArray<Json>(p.Properties.Roles).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => asArray<Json>(p.Properties.PolicyDocument.Statement));
}

const refersTo = (value: unknown, logicalId: string) => JSON.stringify(value).includes(`"${logicalId}"`);

beforeAll(async () => {
  webOutDir = await mkdtemp(join(tmpdir(), 'expohub-web-'));
  ({ stack } = await createApp(new App({ context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [] } }), { webOutDir }));
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
});

afterAll(async () => {
  if (webOutDir) await rm(webOutDir, { recursive: true, force: true });
});

describe('HTTP API', () => {
  it('has exactly the routes of ROUTES, with the authorizer where the route asks for it', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    const [authorizerId] = ofType('AWS::ApiGatewayV2::Authorizer').map(([id]) => id);
    for (const route of ROUTES) {
      const deployed = routes.find((r) => r.RouteKey === `${route.method} ${route.path}`)!;
      if (usesAuthorizer(route)) {
        expect(deployed.AuthorizationType).toBe('CUSTOM');
        expect(deployed.AuthorizerId).toEqual({ Ref: authorizerId });
      } else {
        expect(deployed.AuthorizationType).toBe('NONE');
        expect(deployed.AuthorizerId).toBeUndefined();
      }
    }
  });

  it('routes each path to the function named in ROUTES', () => {
    const functions = ourFunctions();
    const integrations = Object.fromEntries(ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, r.Properties]));
    for (const [, r] of ofType('AWS::ApiGatewayV2::Route')) {
      const route = ROUTES.find((x) => `${x.method} ${x.path}` === r.Properties.RouteKey)!;
      const integrationId = (r.Properties.Target['Fn::Join'][1] as unknown[])
        .map((part) => (part as Json).Ref)
        .find((ref) => typeof ref === 'string' && ref in integrations) as string;
      const integration = integrations[integrationId]!;
      expect(integration.IntegrationType).toBe('AWS_PROXY');
      expect(integration.PayloadFormatVersion).toBe('2.0');
      expect(refersTo(integration.IntegrationUri, functions.get(route.function)!.id)).toBe(true);
    }
  });

  it('deploys no local-only /_dev route', () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => k.split(' ')[1]!.startsWith('/_dev'))).toEqual([]);
  });

  it('has one uncached REQUEST authorizer with simple responses that runs without an Authorization header', () => {
    const authorizers = ofType('AWS::ApiGatewayV2::Authorizer');
    expect(authorizers).toHaveLength(1);
    const props = authorizers[0]![1].Properties;
    expect(props).toMatchObject({
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      AuthorizerResultTtlInSeconds: 0,
    });
    // An identity source would make API Gateway answer 401 itself when the header is missing.
    expect(asArray(props.IdentitySource)).toEqual([]);
    expect(refersTo(props.AuthorizerUri, ourFunctions().get('authorizer')!.id)).toBe(true);
  });

  it('throttles each route of the default stage from context, and the public key verification route apart', () => {
    const stage = ofType('AWS::ApiGatewayV2::Stage')[0]![1].Properties;
    // From context (throttleRate, throttleBurst; verifyThrottleRate, verifyThrottleBurst).
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 80, ThrottlingBurstLimit: 160 });
    const verify = ROUTES.find((r) => r.function === 'verifyKey')!;
    expect(stage.RouteSettings).toEqual({ [`${verify.method} ${verify.path}`]: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 14 } });
  });

  it('logs every request as one JSON line of request metadata only: no query string, header or authorizer context', () => {
    const stages = ofType('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0]![1].Properties;
    expect(stage.StageName).toBe('$default');
    expect(stage.AutoDeploy).toBe(true);
    const format = JSON.parse(stage.AccessLogSettings.Format) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
    });
    // Every field is one $context variable known to carry no request content. Those that would
    // ($context.requestOverride.querystring.*, ...header.*, $context.authorizer.<key>, $request.*)
    // are not on the list: the hub's query string carries token, token0 and code, verify's key, and
    // Authorization a JWT or an access key. $context.path is the path alone.
    const SAFE = new Set([
      '$context.requestId', '$context.routeKey', '$context.httpMethod', '$context.path', '$context.status',
      '$context.responseLatency', '$context.integrationLatency', '$context.integrationErrorMessage',
      '$context.authorizer.error', '$context.responseLength', '$context.identity.sourceIp', '$context.requestTime',
    ]);
    for (const [name, value] of Object.entries(format)) expect(SAFE.has(value), `${name}: ${value}`).toBe(true);
    expect(stage.AccessLogSettings.Format).not.toMatch(/header|querystring|authorization|\$request\.|\$input/i);
  });
});

describe('throttles by stage', () => {
  const from = (context: Record<string, unknown>) => settingsFromContext((key) => context[key]);
  const prod = { stage: 'prod', adminPhones: '+8613800138000', shareBaseUrl: 'https://s.example.com', contactEmail: 'abuse@example.com' };

  it('defaults to production figures on a production stage and a tenth of them elsewhere (docs/deploy.md, "Throttles")', () => {
    expect(from(prod).limits).toEqual({ wafRequestsPer5Min: 2000, wafGenCodePer5Min: 30, wafVerifyPer5Min: 1000, stageRate: 5000, stageBurst: 2500, verifyRate: 1000, verifyBurst: 500 });
    expect(from({ stage: 'prod-eu', adminPhones: '+8613800138000', shareBaseUrl: 'https://s.example.com', contactUrl: 'https://example.com/report' }).limits).toEqual(DEFAULT_LIMITS.production);
    for (const stage of ['dev', 'staging', 'production']) {
      expect(from({ stage }).limits, stage).toEqual({ wafRequestsPer5Min: 2000, wafGenCodePer5Min: 30, wafVerifyPer5Min: 1000, stageRate: 500, stageBurst: 250, verifyRate: 100, verifyBurst: 50 });
    }
    // Context still wins, on any stage.
    expect(from({ ...prod, throttleRate: '3000', verifyThrottleBurst: '20' }).limits).toMatchObject({ stageRate: 3000, stageBurst: 2500, verifyRate: 1000, verifyBurst: 20 });
  });

  it('keeps production within half the default account quota, and needs hundreds of addresses at the per-IP limit to use up verification', () => {
    // API Gateway: 10,000 requests per second, burst 5,000, per account and Region, every API and stage together.
    const ACCOUNT = { rate: 10_000, burst: 5_000 };
    const { production, other } = DEFAULT_LIMITS;
    expect(production.stageRate).toBeLessThanOrEqual(ACCOUNT.rate / 2);
    expect(production.stageBurst).toBeLessThanOrEqual(ACCOUNT.burst / 2);
    expect(other.stageRate * 10).toBeLessThanOrEqual(production.stageRate);
    for (const limits of [production, other]) {
      expect(limits.verifyRate).toBeLessThan(limits.stageRate);
      // Addresses, each at WAF's verify limit (per 5 minutes), that together reach the route's rate.
      const addresses = (limits.verifyRate * 300) / limits.wafVerifyPer5Min;
      expect(addresses).toBeGreaterThanOrEqual(limits === production ? 300 : 30);
      expect(limits.wafVerifyPer5Min).toBeLessThan(limits.wafRequestsPer5Min);
    }
  });

  it('synthesizes the defaults of a non-production stage: the stage, the verify route and the per-IP verify rule', async () => {
    const { resources: all } = await synthWith({});
    const stage = Object.values(all).find((r) => r.Type === 'AWS::ApiGatewayV2::Stage')!.Properties;
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 250 });
    const verify = ROUTES.find((r) => r.function === 'verifyKey')!;
    expect(stage.RouteSettings).toEqual({ [`${verify.method} ${verify.path}`]: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 50 } });
    const acl = Object.values(all).find((r) => r.Type === 'AWS::WAFv2::WebACL')!.Properties;
    const rule = asArray<Json>(acl.Rules).find((r) => r.Name === 'VerifyPerIp')!;
    expect(rule.Statement.RateBasedStatement).toMatchObject({ Limit: 1000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 });
  });
});

describe('tables', () => {
  it('builds every definition of lib/platform/db/tables.ts: on demand, PITR, encrypted, retained, every GSI and the TTL', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(TABLES.length);
    for (const definition of TABLES) {
      const matches = tables.filter(([id]) => id.startsWith(`Tables${definition.id.replace(/_/g, '')}`));
      expect(matches, definition.id).toHaveLength(1);
      const [, table] = matches[0]!;
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties.TableName).toBeUndefined();
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: [
          { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: definition.sortKey.name, KeyType: 'RANGE' },
        ],
      });
      const indexes = asArray<Json>(table.Properties.GlobalSecondaryIndexes);
      expect(indexes.map((i) => i.IndexName).sort()).toEqual(definition.globalIndexes.map((i) => i.indexName).sort());
      for (const index of definition.globalIndexes) {
        const deployed = indexes.find((i) => i.IndexName === index.indexName)!;
        expect(deployed.KeySchema[0]).toEqual({ AttributeName: index.partitionKey.name, KeyType: 'HASH' });
        if (index.sortKey) expect(deployed.KeySchema[1]).toEqual({ AttributeName: index.sortKey.name, KeyType: 'RANGE' });
        expect(deployed.Projection.ProjectionType).toBe(index.projection);
      }
      if (definition.ttlAttribute) {
        expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: definition.ttlAttribute, Enabled: true });
      } else {
        expect(table.Properties.TimeToLiveSpecification).toBeUndefined();
      }
    }
  });

  it('has the sparse key_hash-index on key_hash and the TTL on the hub table', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({ IndexName: 'key_hash-index', KeySchema: [{ AttributeName: 'key_hash', KeyType: 'HASH' }] }),
      ]),
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', { TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } });
  });
});

describe('functions', () => {
  it('builds one function per FUNCTIONS entry: Node.js 22 on arm64, X-Ray active, defaults or the spec values', () => {
    const functions = ourFunctions();
    expect([...functions.keys()].sort()).toEqual(Object.keys(FUNCTIONS).sort());
    for (const [name, { props }] of functions) {
      const spec: FunctionSpec = FUNCTIONS[name];
      expect(props.Runtime, name).toBe('nodejs22.x');
      expect(props.Architectures, name).toEqual(['arm64']);
      expect(props.TracingConfig, name).toEqual({ Mode: 'Active' });
      expect(props.MemorySize, name).toBe(spec.memoryMb ?? 512);
      expect(props.Timeout, name).toBe(spec.timeoutSeconds ?? 10);
      expect(props.Handler, name).toBe('index.handler');
      expect(props.LoggingConfig.LogGroup.Ref, name).toBeDefined();
    }
  });

  it('gives every function the table names, the secret ARN (never its value) and the settings from context', () => {
    const [secretId] = ofType('AWS::SecretsManager::Secret').map(([id]) => id).filter((id) => id.startsWith('JwtSecret'));
    const tableIds = Object.fromEntries(
      TABLES.map((d) => [d.envVar, ofType('AWS::DynamoDB::Table').find(([id]) => id.startsWith(`Tables${d.id.replace(/_/g, '')}`))![0]]),
    );
    for (const [name, { props }] of ourFunctions()) {
      const env = props.Environment.Variables;
      expect(env, name).toMatchObject({
        EXPOHUB_RUNTIME: 'aws',
        NODE_OPTIONS: '--enable-source-maps',
        JWT_SECRET_ARN: { Ref: secretId },
        ENFORCE_KEY_SCOPES: 'true',
        ADMIN_PHONES: '+8613800138000,+8613900139000',
        SHARE_BASE_URL: 'https://share.example.com',
        POWERTOOLS_SERVICE_NAME: 'expohub-prod',
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        LOG_LEVEL: 'WARN',
        SMS_ALLOWED_COUNTRIES: 'CN,HK',
        SMS_DAILY_CAP: '500',
        SMS_DAILY_CAP_RETURNING: '700',
        TERMS_VERSION: '2026-11-01',
        CONTACT_EMAIL: 'abuse@example.com',
      });
      // The functions behind a route check the origin secret; the authorizer and the stream processor do not.
      const [originSecretId] = ofType('AWS::SecretsManager::Secret').map(([id]) => id).filter((id) => id.startsWith('OriginVerifySecret'));
      const routed = ROUTES.some((r) => r.function === name);
      expect(env.ORIGIN_VERIFY_SECRET_ARN, name).toEqual(routed ? { Ref: originSecretId } : undefined);
      const readsOriginSecret = roleStatements(props).some((s) => refersTo(s.Resource, originSecretId!) && asArray<string>(s.Action).includes('secretsmanager:GetSecretValue'));
      expect(readsOriginSecret, `${name} reads the origin secret`).toBe(routed);
      for (const definition of TABLES) expect(env[definition.envVar], name).toEqual({ Ref: tableIds[definition.envVar] });
      expect(env.JWT_SECRET, name).toBeUndefined();
      expect(JSON.stringify(env), name).not.toMatch(/resolve:secretsmanager|SecretString/);
    }
  });

  it('gives the Parameters and Secrets extension (its cache off) to exactly the functions that read a secret, and no X-Ray SDK setting to any', () => {
    for (const [name, { props }] of ourFunctions()) {
      const spec: FunctionSpec = FUNCTIONS[name];
      const env = props.Environment.Variables;
      // The origin secret (behind a route), the signing secret, or a secret of its own (the canary key).
      const readsSecret = env.ORIGIN_VERIFY_SECRET_ARN !== undefined || Boolean(spec.jwtSecret) || name === 'authorizer' || Boolean(spec.secrets);
      expect(props.Layers?.length ?? 0, name).toBe(readsSecret ? 1 : 0);
      // The stack's region is unknown at synth: the layer's ARN is looked up per region in a mapping.
      const [mapping, , key] = (props.Layers?.[0]?.['Fn::FindInMap'] ?? []) as [string, unknown, string];
      const arns = mapping ? Object.values(template.toJSON().Mappings[mapping] as Record<string, Record<string, string>>).map((byKey) => byKey[key] ?? '') : [];
      expect(arns.length > 0 && arns.every((arn) => /:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/.test(arn)), `${name} has the extension`).toBe(readsSecret);
      // The functions keep the secrets for the times their code states; the extension keeps nothing.
      expect(env.PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED, name).toBe(readsSecret ? 'false' : undefined);
      expect(props.TracingConfig, name).toEqual({ Mode: 'Active' });
      expect(Object.keys(env).filter((k) => k.startsWith('POWERTOOLS_TRACE') || k.startsWith('AWS_XRAY')), name).toEqual([]);
    }
    expect(ourFunctions().get('syntheticCheck')!.props.Layers, 'the canary key').toHaveLength(1);
  });

  it('grants each function exactly the table access, secret and SMS its spec asks for', () => {
    const [secretId] = ofType('AWS::SecretsManager::Secret').map(([id]) => id).filter((id) => id.startsWith('JwtSecret'));
    const tableIds = { apiKeys: 'Tablesapikeys', hub: 'Tableshub' } as const;
    for (const [name, { props }] of ourFunctions()) {
      const spec: FunctionSpec = FUNCTIONS[name];
      const statements = roleStatements(props).filter((s) => s.Effect === 'Allow');
      for (const [key, prefix] of Object.entries(tableIds) as [keyof typeof tableIds, string][]) {
        const grant = spec.tables[key];
        // Each resource (the table, one of its indexes) with the actions allowed on it.
        const byResource = new Map<string, Set<string>>();
        for (const s of statements) {
          for (const resource of asArray<Json>(s.Resource)) {
            const text = JSON.stringify(resource);
            if (!text.includes(`"${prefix}`)) continue;
            const index = text.includes('StreamArn') ? 'stream' : (/\/index\/([\w-]+)/.exec(text)?.[1] ?? (text.includes('/index/') ? '?' : ''));
            const actions = byResource.get(index) ?? new Set<string>();
            for (const a of asArray<string>(s.Action)) actions.add(a);
            byResource.set(index, actions);
          }
        }
        const expected = new Map<string, string[]>();
        if (grant && grant.actions.length > 0) expected.set('', grant.actions.map((a) => `dynamodb:${a}`).sort());
        for (const index of grant?.indexes ?? []) expected.set(index, ['dynamodb:Query']);
        // The stream's two consumers (the counters, the erasure) read the hub table's stream, and only that.
        if ((name === 'streamCounters' || name === 'eraseAccounts') && key === 'hub') expected.set('stream', ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']);
        expect(Object.fromEntries([...byResource].map(([r, a]) => [r, [...a].sort()])), `${name} on ${key}`).toEqual(Object.fromEntries(expected));
      }
      const readsSecret = statements.some(
        (s) => refersTo(s.Resource, secretId!) && asArray<string>(s.Action).includes('secretsmanager:GetSecretValue'),
      );
      expect(readsSecret, `${name} reads the JWT secret`).toBe(Boolean(spec.jwtSecret) || name === 'authorizer');
      const publishes = statements.some((s) => asArray<string>(s.Action).includes('sns:Publish'));
      expect(publishes, `${name} sends SMS`).toBe(Boolean(spec.sms));
    }
  });

  it('lets SMS functions publish to phone numbers only: every SNS ARN (topics, endpoints) is denied', () => {
    const smsFunctions = [...ourFunctions()].filter(([name]) => (FUNCTIONS[name] as FunctionSpec).sms);
    expect(smsFunctions.length).toBeGreaterThan(0);
    for (const [name, { props }] of smsFunctions) {
      const statements = roleStatements(props).filter((s) => asArray<string>(s.Action).includes('sns:Publish'));
      expect(statements, name).toHaveLength(2);
      expect(statements.find((s) => s.Effect === 'Allow')).toMatchObject({ Action: 'sns:Publish', Resource: '*' });
      const deny = statements.find((s) => s.Effect === 'Deny')!;
      expect(deny.Action).toBe('sns:Publish');
      expect(JSON.stringify(deny.Resource)).toMatch(/:sns:\*:\*:\*"/);
    }
  });
});

describe('IAM', () => {
  const identityStatements = () =>
    [
      ...ofType('AWS::IAM::Policy').flatMap(([, p]) => asArray<Json>(p.Properties.PolicyDocument.Statement)),
      ...ofType('AWS::IAM::ManagedPolicy').flatMap(([, p]) => asArray<Json>(p.Properties.PolicyDocument.Statement)),
      ...ofType('AWS::IAM::Role').flatMap(([, r]) =>
        asArray<Json>(r.Properties.Policies).flatMap((p) => asArray<Json>(p.PolicyDocument.Statement)),
      ),
    ] as Json[];

  it('never allows the action * or service:*', () => {
    const statements = identityStatements();
    expect(statements.length).toBeGreaterThan(10);
    const wildcards = statements.filter((s) => asArray<string>(s.Action).some((a) => a === '*' || /^[a-z0-9-]+:\*$/i.test(a)));
    expect(wildcards).toEqual([]);
    // Resource policies (the bucket policy) may only use a wildcard action to deny, e.g. non-TLS access.
    const resourcePolicyAllows = ofType('AWS::S3::BucketPolicy')
      .flatMap(([, p]) => asArray<Json>(p.Properties.PolicyDocument.Statement))
      .filter((s) => s.Effect === 'Allow' && asArray<string>(s.Action).some((a) => a === '*' || a.endsWith(':*')));
    expect(resourcePolicyAllows).toEqual([]);
  });

  it('never allows Scan, DescribeTable or a whole set of indexes; stream actions only on the stream, to its two consumers', () => {
    const statements = identityStatements().filter((s) => s.Effect === 'Allow');
    const dynamo = statements.filter((s) => asArray<string>(s.Action).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.length).toBeGreaterThan(10);
    expect(dynamo.filter((s) => asArray<string>(s.Action).some((a) => a === 'dynamodb:Scan' || a === 'dynamodb:DescribeTable'))).toEqual([]);
    expect(dynamo.filter((s) => JSON.stringify(s.Resource).includes('/index/*'))).toEqual([]);
    const streamActions = dynamo.filter((s) => asArray<string>(s.Action).some((a) => /^dynamodb:(GetRecords|GetShardIterator|DescribeStream)$/.test(a)));
    expect(streamActions.length).toBeGreaterThan(0);
    for (const s of streamActions) expect(asArray<Json>(s.Resource).every((r) => JSON.stringify(r).includes('StreamArn')), JSON.stringify(s)).toBe(true);
    const streamRoles = ofType('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('dynamodb:GetRecords'))
      .flatMap(([, p]) => asArray<Json>(p.Properties.Roles).map((r) => r.Ref as string));
    expect(streamRoles.sort()).toEqual(['streamCounters', 'eraseAccounts'].map((name) => ourFunctions().get(name as FunctionName)!.props.Role['Fn::GetAtt'][0]).sort());
  });

  it('never grants DynamoDB on every resource (but listing streams, which has no resource)', () => {
    const broad = identityStatements().filter(
      (s) => asArray<string>(s.Action).some((a) => a.startsWith('dynamodb:')) && asArray(s.Resource).includes('*'),
    );
    // The stream's event source mapping needs dynamodb:ListStreams, an action without resource-level
    // permissions: it lists stream ARNs, no data (one statement per consumer). Nothing else may be granted on *.
    expect(broad).toEqual([
      { Action: 'dynamodb:ListStreams', Effect: 'Allow', Resource: '*' },
      { Action: 'dynamodb:ListStreams', Effect: 'Allow', Resource: '*' },
    ]);
  });
});

describe('JWT secret', () => {
  it('is generated (long, no punctuation), retained, and exported by ARN only', () => {
    const secrets = ofType('AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('JwtSecret'));
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0]!;
    expect(secret.DeletionPolicy).toBe('Retain');
    expect(secret.Properties.SecretString).toBeUndefined();
    expect(secret.Properties.GenerateSecretString.ExcludePunctuation).toBe(true);
    expect(secret.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(48);
    expect(template.toJSON().Outputs.JwtSecretArn.Value).toEqual({ Ref: secretId });
  });
});

describe('key-management page', () => {
  it('is a private, TLS-only bucket', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('is served by CloudFront through OAC, with /api/* forwarded uncached to the HTTP API', () => {
    const distributions = ofType('AWS::CloudFront::Distribution');
    expect(distributions).toHaveLength(1);
    const config = distributions[0]![1].Properties.DistributionConfig;
    expect(config.DefaultRootObject).toBe('index.html');
    const s3Origin = config.Origins.find((o: Json) => o.S3OriginConfig);
    expect(s3Origin.OriginAccessControlId).toBeDefined();
    const [apiId] = ofType('AWS::ApiGatewayV2::Api').map(([id]) => id);
    const apiOrigin = config.Origins.find((o: Json) => refersTo(o.DomainName, apiId!));
    expect(apiOrigin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    const api = config.CacheBehaviors.find((b: Json) => b.PathPattern === '/api/*');
    expect(api).toMatchObject({
      TargetOriginId: apiOrigin.Id,
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      AllowedMethods: expect.arrayContaining(['GET', 'POST', 'DELETE', 'OPTIONS']),
    });
    expect(config.DefaultCacheBehavior.TargetOriginId).toBe(s3Origin.Id);
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
  });

  it('serves the share pages /s/* uncached and /.well-known/* from the HTTP API (docs/hub-api.md, "The share page")', () => {
    const config = ofType('AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;
    const [apiId] = ofType('AWS::ApiGatewayV2::Api').map(([id]) => id);
    const apiOrigin = config.Origins.find((o: Json) => refersTo(o.DomainName, apiId!));
    const pages = config.CacheBehaviors.find((b: Json) => b.PathPattern === '/s/*');
    expect(pages).toMatchObject({ TargetOriginId: apiOrigin.Id, CachePolicyId: CACHING_DISABLED, OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER, ViewerProtocolPolicy: 'redirect-to-https' });
    expect(pages.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(config.CacheBehaviors.find((b: Json) => b.PathPattern === '/.well-known/*')).toMatchObject({ TargetOriginId: apiOrigin.Id });
  });

  it('points share links at the distribution when no share base URL is configured', async () => {
    const { stack: plain } = await createApp(new App({ context: { adminPhones: '+8613800138000', 'aws:cdk:bundling-stacks': [] } }), { webOutDir });
    const all = Template.fromStack(plain).toJSON().Resources as Record<string, Resource>;
    const [distributionId] = Object.entries(all).find(([, r]) => r.Type === 'AWS::CloudFront::Distribution')!;
    for (const name of ['Hub', 'SharePage']) {
      const [, fn] = Object.entries(all).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && new RegExp(`^Functions${name}Function[0-9A-F]{8}$`).test(id))!;
      const url = fn.Properties.Environment.Variables.SHARE_BASE_URL;
      expect(JSON.stringify(url), name).toContain('https://');
      expect(refersTo(url, distributionId), name).toBe(true);
    }
  });

  it('uploads the page built by web/build.ts, index.html last and never cached for long', () => {
    const deployments = ofType('Custom::CDKBucketDeployment');
    if (!existsSync(join(PROJECT_ROOT, 'web/build.ts'))) {
      // Not built yet: nothing is uploaded and the synth says so (see also the bare stack below).
      expect(deployments).toHaveLength(0);
      expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('web/build.ts was not found'))).toHaveLength(1);
      return;
    }
    expect(deployments).toHaveLength(2);
    const index = deployments.find(([, d]) => asArray<string>(d.Properties.Include).includes('index.html'));
    expect(index, 'an index.html deployment').toBeDefined();
    expect(index![1].Properties.SystemMetadata['cache-control']).toBe('no-cache');
    expect(index![1].Properties.DistributionPaths).toEqual(expect.arrayContaining(['/index.html']));
  });
});

describe('stack', () => {
  it('bundles every function as the stack deploys it (esbuild with the options of infra/constructs/lambda-bundle.ts)', async () => {
    // The synths here skip bundling (the template does not depend on it but for the assets' hashes);
    // `cdk synth` runs esbuild once per function with these options: one build of every entry, each
    // its own bundle, fails where any of them would. `npm run synth` (CI) bundles through CDK itself.
    const { entryPoints: _entry, outfile: _outfile, ...options } = esbuildOptions('', '');
    const entries = Object.fromEntries((Object.entries(FUNCTIONS) as [FunctionName, FunctionSpec][]).map(([name, spec]) => [name, join(PROJECT_ROOT, spec.entry)]));
    const result = await build({ ...options, entryPoints: entries, outdir: join(tmpdir(), 'expohub-bundles'), absWorkingDir: PROJECT_ROOT, write: false, logLevel: 'silent' });
    expect(result.errors).toEqual([]);
    const outputs = new Map(result.outputFiles.map((f) => [basename(f.path), f.text.length]));
    for (const name of Object.keys(entries)) {
      expect(outputs.get(`${name}.js`), `the bundle of FUNCTIONS.${name}`).toBeGreaterThan(0);
      expect(outputs.get(`${name}.js.map`), `the source map of FUNCTIONS.${name}`).toBeGreaterThan(0);
    }
  });

  it('outputs the URLs, the table names and the secret ARN', () => {
    expect(Object.keys(template.toJSON().Outputs)).toEqual(
      expect.arrayContaining(['ApiUrl', 'WebUrl', 'ApiKeysTableName', 'HubTableName', 'JwtSecretArn']),
    );
  });

  it('is environment-agnostic (no lookups, synthesizes offline)', () => {
    expect(stack.environment).toBe('aws://unknown-account/unknown-region');
  });

  it('has no unsuppressed cdk-nag (AwsSolutions) errors', () => {
    const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors).toEqual([]);
  });

  it('is checked by cdk-nag as infra/app.ts builds it: a non-compliant bucket added to the app is reported', async () => {
    // Suppressions are written into the template whether or not the checks run, and "no errors" is
    // also what an app without the checks shows; a resource that must fail them tells the two apart.
    const { stack: checked } = await createApp(new App({ context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [] } }), { webOutDir });
    new Bucket(checked, 'NagCanary');
    const findings = Annotations.fromStack(checked).findError('/Expohub-prod/NagCanary/Resource', Match.stringLikeRegexp('AwsSolutions-S'));
    expect(findings.map((f) => String(f.entry.data).split(':')[0])).toEqual(expect.arrayContaining(['AwsSolutions-S1', 'AwsSolutions-S10']));
  });
});

describe('stack without the web page', () => {
  it('still deploys the API, uploads nothing and says why', () => {
    // No bundling: this case is about the page only, and skipping it keeps the test quick.
    const bare = new ExpohubStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Bare');
    const bareTemplate = Template.fromStack(bare);
    bareTemplate.resourceCountIs('Custom::CDKBucketDeployment', 0);
    bareTemplate.resourceCountIs('AWS::CloudFront::Distribution', 1);
    bareTemplate.resourceCountIs('AWS::ApiGatewayV2::Route', ROUTES.length);
    const warnings = Annotations.fromStack(bare).findWarning('*', Match.stringLikeRegexp('web/build.ts was not found'));
    expect(warnings).toHaveLength(1);
  });
});

describe('settings from context', () => {
  const from = (context: Record<string, unknown>) => settingsFromContext((key) => context[key]);

  it('defaults to the dev stage, no admins, scope gate off, no CORS, INFO logs and the documented limits', () => {
    expect(from({})).toEqual({ ...DEFAULT_SETTINGS, shareBaseUrl: undefined, smsDailyCap: undefined, smsDailyCapReturning: undefined, alarmEmail: undefined, domain: undefined, webAclArn: undefined, region: undefined, smsRegion: undefined, existingTables: {} });
    expect(DEFAULT_SETTINGS).toMatchObject({ stage: 'dev', production: false, logLevel: 'INFO', smsMonthlySpendLimitUsd: 1 });
  });

  it('reads the stage, the log level, the SMS controls, the domain and the limits', () => {
    const settings = from({ ...CONTEXT, domainName: 'API.example.com', certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-000000000000' });
    expect(settings).toMatchObject({
      stage: 'prod',
      production: true,
      logLevel: 'WARN',
      smsAllowedCountries: ['CN', 'HK'],
      smsDailyCap: 500,
      smsDailyCapReturning: 700,
      smsMonthlySpendLimitUsd: 50,
      alarmEmail: 'ops@example.com',
      domain: { name: 'api.example.com' },
      limits: { wafRequestsPer5Min: 1500, wafGenCodePer5Min: 25, wafVerifyPer5Min: 700, stageRate: 80, stageBurst: 160, verifyRate: 7, verifyBurst: 14 },
    });
    expect(from({ stage: 'prod-eu', adminPhones: '+8613800138000', shareBaseUrl: 'https://s.example.com', contactUrl: 'https://example.com/report' }).production).toBe(true);
    expect(from({ stage: 'production' }).production).toBe(false);
  });

  it('passes the terms version and the contact for reports to the functions, and checks them', () => {
    expect(from({ termsVersion: '2026-11-01', termsUrl: 'https://example.com/terms', contactEmail: 'abuse@example.com', contactUrl: 'https://example.com/report' }).policies).toEqual({
      TERMS_VERSION: '2026-11-01',
      TERMS_URL: 'https://example.com/terms',
      CONTACT_EMAIL: 'abuse@example.com',
      CONTACT_URL: 'https://example.com/report',
    });
    expect(from({}).policies).toBeUndefined();
    expect(() => from({ termsVersion: 'v 2' })).toThrow(/termsVersion/);
    expect(() => from({ contactEmail: 'abuse' })).toThrow(/contactEmail/);
    expect(() => from({ termsUrl: 'http://example.com/terms' })).toThrow(/termsUrl/);
  });

  it('fails the synth of a production stage without a share base URL, administrators or a contact, naming what is missing', () => {
    expect(() => from({ stage: 'prod', adminPhones: '+8613800138000' })).toThrow(/Stage "prod" is a production stage and needs shareBaseUrl/);
    expect(() => from({ stage: 'prod', shareBaseUrl: 'https://s.example.com' })).toThrow(/needs adminPhones/);
    expect(() => from({ stage: 'prod-eu' })).toThrow(/needs shareBaseUrl .* and adminPhones and contactEmail \(or contactUrl\)/);
    expect(() => from({ stage: 'prod', adminPhones: '+8613800138000', shareBaseUrl: 'https://s.example.com' })).toThrow(/needs contactEmail \(or contactUrl\)/);
    expect(() => from({ stage: 'prod', adminPhones: '+8613800138000', contactEmail: 'abuse@example.com', domainName: 'api.example.com', certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b' })).not.toThrow();
    expect(() => from({ stage: 'dev' })).not.toThrow();
  });

  it('takes the region from -c region, else from CDK_DEFAULT_REGION (cdk deploy sets it from the credentials), else none', () => {
    expect(settingsFromContext((key) => ({ region: 'eu-west-1' })[key as 'region'], { CDK_DEFAULT_REGION: 'ap-east-1' }).region).toBe('eu-west-1');
    expect(settingsFromContext(() => undefined, { CDK_DEFAULT_REGION: 'ap-east-1' }).region).toBe('ap-east-1');
    expect(settingsFromContext(() => undefined, {}).region).toBeUndefined();
    expect(settingsFromContext((key) => ({ smsRegion: 'ap-northeast-1' })[key as 'smsRegion'], {}).smsRegion).toBe('ap-northeast-1');
  });

  it('accepts booleans from cdk.json and strings from -c', () => {
    expect(from({ enforceKeyScopes: true }).enforceKeyScopes).toBe(true);
    expect(from({ enforceKeyScopes: 'false' }).enforceKeyScopes).toBe(false);
    expect(from({ corsOrigins: 'https://a.example.com/, https://b.example.com' }).corsOrigins).toEqual([
      'https://a.example.com',
      'https://b.example.com',
    ]);
  });

  it('fails the synth on values the functions would reject', () => {
    expect(() => from({ adminPhones: '13800138000' })).toThrow(/adminPhones/);
    expect(() => from({ enforceKeyScopes: 'yes' })).toThrow(/enforceKeyScopes/);
    expect(() => from({ shareBaseUrl: 'http://share.example.com' })).toThrow(/shareBaseUrl/);
    expect(() => from({ shareBaseUrl: 'not a url' })).toThrow(/shareBaseUrl/);
    expect(() => from({ appLinkScheme: 'Expo Hub' })).toThrow(/appLinkScheme/);
    expect(() => from({ appStoreUrl: 'http://apps.example.com' })).toThrow(/appStoreUrl/);
    expect(() => from({ appleAppIds: 'com.example.expohub' })).toThrow(/appleAppIds/);
    expect(() => from({ androidAppPackage: 'com.example.expohub' })).toThrow(/go together/);
    expect(() => from({ androidAppPackage: 'com.example.expohub', androidCertSha256: 'AB:CD' })).toThrow(/androidCertSha256/);
    for (const stage of ['Prod', 'dev_1', '1dev', 'dev-', 'a-very-long-stage-name-indeed']) expect(() => from({ stage }), stage).toThrow(/Context stage/);
    expect(() => from({ logLevel: 'verbose' })).toThrow(/logLevel must be one of/);
    expect(() => from({ smsAllowedCountries: 'CN,CHN' })).toThrow(/smsAllowedCountries/);
    expect(() => from({ smsDailyCap: '0' })).toThrow(/smsDailyCap/);
    expect(() => from({ smsDailyCap: '1.5' })).toThrow(/smsDailyCap/);
    expect(() => from({ smsDailyCapReturning: '0' })).toThrow(/smsDailyCapReturning/);
    expect(() => from({ smsMonthlySpendLimitUsd: '-1' })).toThrow(/smsMonthlySpendLimitUsd/);
    expect(() => from({ alarmEmail: 'ops' })).toThrow(/alarmEmail/);
    expect(() => from({ domainName: 'api.example.com' })).toThrow(/domainName needs certificateArn .* or hostedZoneId/);
    expect(() => from({ hostedZoneId: 'Z0123456789ABCDEFGHIJ' })).toThrow(/need domainName/);
    expect(() => from({ domainName: 'api.example.com', hostedZoneId: 'example.com' })).toThrow(/hostedZoneId must be a Route 53 hosted zone id/);
    expect(() => from({ region: 'Europe' })).toThrow(/Context region must be an AWS region/);
    const HUB = 'Expohub-prod-hub-restored';
    expect(() => from({ hubTableName: HUB })).toThrow(/hubTableName needs hubTableStreamArn/);
    expect(() => from({ hubTableStreamArn: `arn:aws:dynamodb:us-east-1:123456789012:table/${HUB}/stream/2026-11-26T03:25:00.000` })).toThrow(/needs hubTableName/);
    expect(() => from({ hubTableName: HUB, hubTableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/other/stream/2026-11-26T03:25:00.000' })).toThrow(/must be the ARN of Expohub-prod-hub-restored's stream/);
    expect(() => from({ apiKeysTableName: 'k' })).toThrow(/apiKeysTableName must be a DynamoDB table name/);
    expect(() => from({ apiKeysTableName: 'keys-restored', apiKeysTableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/keys-restored/stream/x' })).toThrow(/has no stream/);
    expect(from({ hubTableName: HUB, hubTableStreamArn: `arn:aws:dynamodb:us-east-1:123456789012:table/${HUB}/stream/2026-11-26T03:25:00.000` }).existingTables.HUB_TABLE).toEqual({
      name: HUB,
      streamArn: `arn:aws:dynamodb:us-east-1:123456789012:table/${HUB}/stream/2026-11-26T03:25:00.000`,
    });
    expect(() => from({ smsRegion: 'sg' })).toThrow(/Context smsRegion must be an AWS region/);
    expect(() => from({ domainName: 'api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b' })).toThrow(/us-east-1/);
    expect(() => from({ webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/x/0a1b' })).toThrow(/webAclArn/);
    expect(() => from({ wafGenCodePer5Min: '5' })).toThrow(/wafGenCodePer5Min must be an integer of at least 10/);
    expect(() => from({ wafVerifyPer5Min: '9' })).toThrow(/wafVerifyPer5Min must be an integer of at least 10/);
    expect(() => from({ throttleRate: 'fast' })).toThrow(/throttleRate/);
  });

  it("passes the share pages' app links to the functions as their variables", () => {
    const cert = Array.from({ length: 32 }, () => 'AB').join(':');
    expect(from({ appLinkScheme: 'acme', appStoreUrl: 'https://apps.example.com/x/', appleAppIds: 'ABCDE12345.com.example.a, ABCDE12345.com.example.b', androidAppPackage: 'com.example.a', androidCertSha256: cert }).appLinks).toEqual({
      APP_LINK_SCHEME: 'acme',
      APP_STORE_URL: 'https://apps.example.com/x',
      APPLE_APP_IDS: 'ABCDE12345.com.example.a,ABCDE12345.com.example.b',
      ANDROID_APP_PACKAGE: 'com.example.a',
      ANDROID_CERT_SHA256: cert,
    });
  });
});

describe('front door', () => {
  const distributionConfig = () => ofType('AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;

  it('sends the origin secret to the API as a dynamic reference, never a value in the template', () => {
    const [apiId] = ofType('AWS::ApiGatewayV2::Api').map(([id]) => id);
    const apiOrigin = distributionConfig().Origins.find((o: Json) => refersTo(o.DomainName, apiId!));
    const [originSecretId] = ofType('AWS::SecretsManager::Secret').map(([id]) => id).filter((id) => id.startsWith('OriginVerifySecret'));
    const header = apiOrigin.OriginCustomHeaders.find((h: Json) => h.HeaderName === 'x-origin-verify');
    expect(JSON.stringify(header.HeaderValue)).toMatch(/\{\{resolve:secretsmanager:/);
    expect(refersTo(header.HeaderValue, originSecretId!)).toBe(true);
    const secret = resources[originSecretId!]!;
    expect(secret.Properties.SecretString).toBeUndefined();
    expect(secret.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(32);
  });

  const aclRules = (): Json => Object.fromEntries(asArray<Json>(ofType('AWS::WAFv2::WebACL')[0]![1].Properties.Rules).map((r) => [r.Name as string, r]));

  it('attaches a CLOUDFRONT web ACL: per-IP rate rules on everything, do=gen_code and key verification, then the common rule set', () => {
    const acls = ofType('AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const [aclId, acl] = acls[0]!;
    expect(distributionConfig().WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(acl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} }, Name: 'expohub-prod-web' });
    const rules = aclRules();
    expect(Object.keys(rules).sort()).toEqual(['AWSManagedRulesCommonRuleSet', 'GenCodePerIp', 'RatePerIp', 'VerifyPerIp']);
    expect(rules.RatePerIp).toMatchObject({ Action: { Block: {} }, Statement: { RateBasedStatement: { Limit: 1500, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } } });
    expect(rules.RatePerIp.Statement.RateBasedStatement.ScopeDownStatement).toBeUndefined();
    // Limits from context (wafGenCodePer5Min, wafVerifyPer5Min); what they count is tested below.
    expect(rules.GenCodePerIp).toMatchObject({ Action: { Block: {} }, Statement: { RateBasedStatement: { Limit: 25, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } } });
    expect(rules.VerifyPerIp).toMatchObject({ Action: { Block: {} }, Statement: { RateBasedStatement: { Limit: 700, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } } });
    const common = rules.AWSManagedRulesCommonRuleSet;
    expect(common.OverrideAction).toEqual({ None: {} });
    expect(common.Statement.ManagedRuleGroupStatement).toMatchObject({ VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' });
    const counted = asArray<Json>(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides);
    expect(counted.map((o) => o.Name).sort()).toEqual(Object.keys(COMMON_RULE_SET_COUNT_ONLY).sort());
    for (const o of counted) expect(o.ActionToUse).toEqual({ Count: {} });
    // The rate rules are evaluated before the rule group.
    for (const name of ['RatePerIp', 'GenCodePerIp', 'VerifyPerIp']) expect(rules[name].Priority, name).toBeLessThan(common.Priority);
  });

  describe('the gen_code rule counts every query string the hub runs as gen_code', () => {
    // What the hub runs (lib/transport/hub/dispatch.ts): the first `do` of the raw query string, decoded once
    // (lib/transport/http/request.ts; API Gateway passes rawQueryString as sent), trimmed.
    const hubRunsGenCode = (query: string) => (queryParameters({ rawQueryString: query } as ApiEvent).do ?? '').trim() === 'gen_code';
    const request = (query: string): RawRequest => ({ path: '/api/v1', query });
    const PHONE = 'phonenumber=13800138000&nonce=n1';
    const SPELLINGS = [
      'do=gen_code', 'do=gen_code+', 'do=gen_code%20', 'do=+gen_code+', 'do=%20gen_code%20', 'do=gen%5Fcode', 'do=gen%5fcode',
      'do=%67%65%6E%5F%63%6F%64%65', 'd%6F=gen_code', '%64%6F=gen%5Fcode%20', 'do=%09gen_code%0A', 'do=%0Bgen_code%0C%0D',
      'do=%C2%A0gen_code', 'do=%E3%80%80gen_code%EF%BB%BF', 'do=gen_code%E2%80%A8', 'do=gen_code&do=like',
    ];

    it.each(SPELLINGS)('%s: the hub sends a code, and the rule counts it', (spelling) => {
      const rule = aclRules().GenCodePerIp;
      for (const query of [`${spelling}&${PHONE}`, `${PHONE}&${spelling}`]) {
        expect(hubRunsGenCode(query), `the hub runs ${query}`).toBe(true);
        expect(countsTowardRateRule(rule, request(query)), query).toBe(true);
      }
    });

    it('also counts spellings the hub refuses (GEN_CODE), which costs nothing but the sender\'s own budget', () => {
      const rule = aclRules().GenCodePerIp;
      for (const query of [`do=GEN_CODE&${PHONE}`, `do=Gen_Code%20&${PHONE}`, `DO=gen_code&${PHONE}`]) {
        expect(hubRunsGenCode(query), query).toBe(false);
        expect(countsTowardRateRule(rule, request(query)), query).toBe(true);
      }
    });

    it('counts no other operation, and no double encoding (the hub decodes once: that is no operation)', () => {
      const rule = aclRules().GenCodePerIp;
      const others = [
        'do=get_next_list&openid=u_1&token=t&watch_count=5',
        'do=create_phone_account&openid=13800138000&token=n1&code=123456&openid0=&token0=',
        'do=comment_set&openid=u_1&token=t&vid=v1&content=gen_code%20is%20the%20first%20step',
        'do=like&openid=u_1&token=t&vid=v1',
        'do=gen%255Fcode&phonenumber=13800138000',
      ];
      for (const query of others) {
        expect(hubRunsGenCode(query), query).toBe(false);
        expect(countsTowardRateRule(rule, request(query)), query).toBe(false);
      }
    });
  });

  it('counts key verifications toward the per-IP verify rule however the path is spelled, and nothing else', () => {
    const rule = aclRules().VerifyPerIp;
    const verify = ROUTES.find((r) => r.function === 'verifyKey')!.path;
    const counted = [verify, '/api/v1/api-keys/%76erify', '/api/v1//api-keys/verify', '/api/v1/api-keys/./verify', '/api/v1/x/../api-keys/verify', '/API/v1/api-keys/VERIFY'];
    for (const path of counted) expect(countsTowardRateRule(rule, { path, query: 'key=ak_x' }), path).toBe(true);
    const notCounted = ['/api/v1/api-keys', '/api/v1/api-keys/k_0123/revoke', '/api/v1/health', '/api/v1'];
    for (const path of notCounted) expect(countsTowardRateRule(rule, { path, query: 'key=verify' }), path).toBe(false);
  });

  it('samples no request (samples keep URIs and headers, unredacted); every rule and the ACL keep their metrics', () => {
    const [, acl] = ofType('AWS::WAFv2::WebACL')[0]!;
    const configs = [acl.Properties.VisibilityConfig, ...asArray<Json>(acl.Properties.Rules).map((r) => r.VisibilityConfig)];
    expect(configs).toHaveLength(5);
    for (const config of configs) expect(config, config.MetricName).toMatchObject({ SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true });
    // Nothing else in the template samples requests either (a rule group, another ACL).
    expect(JSON.stringify(resources)).not.toMatch(/"SampledRequestsEnabled":true/);
  });

  it('logs blocked requests only, to an aws-waf-logs-* group, with the query string and Authorization redacted', () => {
    const configs = ofType('AWS::WAFv2::LoggingConfiguration');
    expect(configs).toHaveLength(1);
    const logging = configs[0]![1].Properties;
    const [aclId] = ofType('AWS::WAFv2::WebACL')[0]!;
    expect(logging.ResourceArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(logging.RedactedFields).toEqual(expect.arrayContaining([{ QueryString: {} }, { SingleHeader: { Name: 'authorization' } }]));
    expect(logging.RedactedFields).toHaveLength(2);
    expect(logging.LoggingFilter).toEqual({
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
    // The destination: the log group's ARN without the `:*` suffix WAF refuses.
    const destination = JSON.stringify(logging.LogDestinationConfigs);
    const groups = ofType('AWS::Logs::LogGroup').filter(([id]) => refersTo(logging.LogDestinationConfigs, id));
    expect(groups).toHaveLength(1);
    const [, group] = groups[0]!;
    expect(destination).toContain(':log-group:');
    expect(destination).not.toContain(':*');
    expect(JSON.stringify(group.Properties.LogGroupName)).toMatch(/"aws-waf-logs-expohub-prod-"/);
    expect(group.Properties.RetentionInDays).toBe(30);
    expect(group.DeletionPolicy).toBe('Retain');
  });

  it('refuses to deploy the web ACL outside us-east-1: a template rule, and the synth when the region is known', async () => {
    const rule = template.toJSON().Rules.WebAclRegion;
    expect(rule.Assertions[0].Assert).toEqual({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] });
    expect(rule.Assertions[0].AssertDescription).toMatch(/webAclArn/);
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new ExpohubStack(app, 'Elsewhere', { env: { account: '123456789012', region: 'eu-west-1' } })).toThrow(/only in us-east-1.*-c webAclArn/);
  });

  it('uses the web ACL given by webAclArn instead of creating one (and then deploys in any region)', async () => {
    const webAclArn = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/shared/0a1b2c3d-0000-4000-8000-000000000000';
    const { resources: all, json } = await synthWith({ webAclArn });
    const types = Object.values(all).map((r) => r.Type);
    expect(types).not.toContain('AWS::WAFv2::WebACL');
    expect(json.Rules?.WebAclRegion).toBeUndefined();
    const distribution = Object.values(all).find((r) => r.Type === 'AWS::CloudFront::Distribution')!;
    expect(distribution.Properties.DistributionConfig.WebACLId).toBe(webAclArn);
  });

  it('serves a custom domain with its ACM certificate, and share links default to it', async () => {
    const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-000000000000';
    const { resources: all, json } = await synthWith({ domainName: 'hub.example.com', certificateArn });
    const config = Object.values(all).find((r) => r.Type === 'AWS::CloudFront::Distribution')!.Properties.DistributionConfig;
    expect(config.Aliases).toEqual(['hub.example.com']);
    expect(config.ViewerCertificate).toMatchObject({ AcmCertificateArn: certificateArn, SslSupportMethod: 'sni-only', MinimumProtocolVersion: 'TLSv1.2_2021' });
    expect(json.Outputs.WebUrl.Value).toBe('https://hub.example.com');
    expect(json.Outputs.DistributionDomainName).toBeDefined();
    const ours = Object.values(all).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.EXPOHUB_RUNTIME === 'aws');
    expect(ours.length).toBe(Object.keys(FUNCTIONS).length);
    for (const fn of ours) expect(fn.Properties.Environment.Variables.SHARE_BASE_URL).toBe('https://hub.example.com');
  });
});

/** The one event source mapping of the hub table's stream that invokes `name`. */
function streamMappingOf(name: FunctionName): Json {
  const id = ourFunctions().get(name)!.id;
  const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => refersTo(m.Properties.FunctionName, id));
  expect(mappings).toHaveLength(1);
  return mappings[0]![1].Properties;
}

describe('the derived counters (docs/data-model.md, "Counters")', () => {
  it('reads the stream in batches of COUNTER_BATCHING: up to 100 likes and comments gathered over a second, one batch per shard at a time', () => {
    const mapping = streamMappingOf('streamCounters');
    expect(COUNTER_BATCHING).toEqual({ batchSize: 100, windowSeconds: 1, parallelization: 1 });
    expect(mapping).toMatchObject({ BatchSize: 100, MaximumBatchingWindowInSeconds: 1, ParallelizationFactor: 1, BisectBatchOnFunctionError: true, MaximumRetryAttempts: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  });
});

describe('the erasure of deleted accounts (docs/accounts.md, "Erasure")', () => {
  it('runs from the stream, filtered to deletion records still erasing, one at a time, with an on-failure queue', () => {
    const mapping = streamMappingOf('eraseAccounts');
    expect(mapping).toMatchObject({ BatchSize: 1, MaximumRetryAttempts: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(mapping.DestinationConfig.OnFailure.Destination).toBeDefined();
    const patterns = asArray<Json>(mapping.FilterCriteria.Filters).map((f) => JSON.parse(f.Pattern as string) as Json);
    expect(patterns).toEqual([{ eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: ['account_deletion'] }, state: { S: ['erasing'] } } } }]);
  });

  it('sweeps every 10 minutes and alarms on an erasure overdue or a run that failed past its retries', () => {
    const sweepId = ourFunctions().get('sweepErasures')!.id;
    const rules = ofType('AWS::Events::Rule').filter(([, r]) => asArray<Json>(r.Properties.Targets).some((t) => refersTo(t.Arn, sweepId)));
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(10 minutes)']);
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, r]) => r.Properties);
    expect(alarms.filter((a) => a.MetricName === 'ErasuresOverdue' && a.Namespace === 'expohub' && a.Threshold === 0)).toHaveLength(1);
    expect(alarms.filter((a) => String(a.AlarmDescription).includes('account erasure run failed'))).toHaveLength(1);
  });
});

describe('alarms and dashboard', () => {
  const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([, r]) => r.Properties);
  const named = (suffix: string) => {
    const found = alarms().filter((a) => a.AlarmName === `expohub-prod-${suffix}`);
    expect(found, suffix).toHaveLength(1);
    return found[0]!;
  };
  /** The metrics an alarm reads (a single metric, or the metrics of its math expression). */
  const metricsOf = (alarm: Json): Json[] =>
    alarm.MetricName ? [{ Namespace: alarm.Namespace, MetricName: alarm.MetricName, Dimensions: alarm.Dimensions }] : asArray<Json>(alarm.Metrics).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);

  it('notifies one KMS-encrypted topic from every alarm; the topic ARN is an output and e-mail subscribes from context', () => {
    const topics = ofType('AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const [topicId, topic] = topics[0]!;
    expect(topic.Properties.KmsMasterKeyId).toBeDefined();
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    const keyPolicy = JSON.stringify(resources[keyId]!.Properties.KeyPolicy);
    expect(keyPolicy).toContain('cloudwatch.amazonaws.com');
    expect(resources[keyId]!.Properties.EnableKeyRotation).toBe(true);
    expect(alarms().length).toBeGreaterThan(40);
    for (const alarm of alarms()) expect(alarm.AlarmActions, alarm.AlarmName ?? alarm.AlarmDescription).toEqual([{ Ref: topicId }]);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } });
    expect(template.toJSON().Outputs.AlarmTopicArn.Value).toEqual({ Ref: topicId });
  });

  it('alarms on the errors and the throttles of every function (the authorizer included)', () => {
    for (const [name, { id }] of ourFunctions()) {
      for (const kind of ['Fault-Count', 'Throttled-Count']) {
        const alarm = named(`Fn-${name}-${kind}-Critical`);
        expect(alarm.Threshold).toBe(0);
        expect(alarm.ComparisonOperator).toBe('GreaterThanThreshold');
        const metrics = metricsOf(alarm);
        expect(metrics.map((m) => m.MetricName), name).toEqual([kind === 'Fault-Count' ? 'Errors' : 'Throttles']);
        expect(refersTo(metrics[0]!.Dimensions, id), name).toBe(true);
      }
    }
  });

  it("alarms on the API's 5xx rate and p99 latency", () => {
    const [apiId] = ofType('AWS::ApiGatewayV2::Api').map(([id]) => id);
    const rate = named('Api-Fault-Rate-Critical');
    expect(rate.Threshold).toBe(0.05);
    expect(metricsOf(rate).map((m) => m.MetricName)).toEqual(['5xx']);
    const latency = named('Api-Latency-P99-Critical');
    expect(latency.Threshold).toBe(3000);
    expect(JSON.stringify(latency)).toMatch(/p99/);
    for (const alarm of [rate, latency]) expect(refersTo(metricsOf(alarm)[0]!.Dimensions, apiId!)).toBe(true);
  });

  it('alarms on read and write throttles of every table and every index', () => {
    for (const definition of TABLES) {
      for (const op of ['Read', 'Write']) {
        expect(named(`Table-${definition.id}-${op}-Throttled-Events-Critical`).Threshold).toBe(0);
        for (const index of definition.globalIndexes) {
          const alarm = named(`Index-${definition.id}-${index.indexName}-${op}-Throttled-Events-Critical`);
          expect(JSON.stringify(metricsOf(alarm))).toContain(index.indexName);
        }
      }
    }
  });

  it('alarms when the SMS month-to-date spend reaches 80% of the limit from context', () => {
    const alarm = named('SmsSpend-SmsMonthToDateSpend-Warning');
    expect(alarm).toMatchObject({ Namespace: 'AWS/SNS', MetricName: 'SMSMonthToDateSpentUSD', Threshold: 40, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('alarms before each daily SMS budget runs out (80% of its sends in 24 hours) and when it refuses a send', () => {
    // CONTEXT sets the budgets to 500 and 700.
    for (const [budget, reason, threshold] of [['new', 'daily_cap', 400], ['returning', 'daily_cap_returning', 560]] as const) {
      const near = named(`sms-budget-near-${budget}`);
      expect(near).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: 'SmsSent', Statistic: 'Sum', Period: 86400, Threshold: threshold, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(near.Dimensions).toEqual(expect.arrayContaining([{ Name: 'service', Value: 'expohub-prod' }, { Name: 'budget', Value: budget }]));
      const spent = named(`sms-budget-spent-${budget}`);
      expect(spent).toMatchObject({ MetricName: 'SmsRefused', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
      expect(spent.Dimensions).toEqual(expect.arrayContaining([{ Name: 'reason', Value: reason }]));
    }
  });

  it("alarms on the service's Unavailable (every cause) and SmsFailed metrics, for this stage's service", () => {
    const unavailable = metricsOf(named('Service-Unavailable-Critical'));
    expect(unavailable.map((m) => m.Dimensions.find((d: Json) => d.Name === 'cause').Value).sort()).toEqual(['dynamodb', 'other', 'secrets', 'sms']);
    const failed = metricsOf(named('Service-SmsFailed-Critical'));
    for (const m of [...unavailable, ...failed]) {
      expect(m.Namespace).toBe(METRICS_NAMESPACE);
      expect(m.Dimensions).toEqual(expect.arrayContaining([{ Name: 'service', Value: 'expohub-prod' }]));
    }
  });

  it('alarms when the oldest open report is more than 20 hours old, checked every 5 minutes, with a dashboard widget (docs/moderation.md, "Moderation")', () => {
    const alarm = named('oldest-open-report');
    expect(alarm).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: 'OldestOpenReportAge', Statistic: 'Maximum', Threshold: 72_000, ComparisonOperator: 'GreaterThanThreshold' });
    expect(alarm.Dimensions).toEqual([{ Name: 'service', Value: 'expohub-prod' }]);
    const checkId = ourFunctions().get('reportAge')!.id;
    const rules = ofType('AWS::Events::Rule').filter(([, r]) => asArray<Json>(r.Properties.Targets).some((t) => refersTo(t.Arn, checkId)));
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
    const body = JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody);
    expect(body).toContain('Oldest open report (hours)');
    expect(body).toContain('OldestOpenReportAge');
  });

  it('has one dashboard named after the stage, with the API, the functions, the tables and the custom metrics', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const props = dashboards[0]![1].Properties;
    expect(props.DashboardName).toBe('expohub-prod');
    const body = JSON.stringify(props.DashboardBody);
    for (const text of ['SMSMonthToDateSpentUSD', 'KeyVerifications', 'Authentications', 'FeedCalls', 'ConditionalCheckFailedRequests|ThrottledRequests|ReadThrottleEvents', '5xx']) {
      expect(body, text).toMatch(new RegExp(text));
    }
  });
});

describe('stages', () => {
  it('names the stack after the stage and keeps the data of a production stage', () => {
    expect(stack.stackName).toBe('Expohub-prod');
    for (const [, table] of ofType('AWS::DynamoDB::Table')) expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    // The functions' logs and the API's access log (not the page upload's, a deployment helper's).
    const logs = ofType('AWS::Logs::LogGroup').filter(([id]) => id.startsWith('Functions') || id.startsWith('Http'));
    expect(logs.length).toBe(Object.keys(FUNCTIONS).length + 1);
    for (const [id, group] of logs) expect(group.DeletionPolicy, id).toBe('Retain');
  });

  it('defaults to the dev stage, whose tables, secret and logs go with the stack', async () => {
    const { stack: dev, resources: all } = await synthWith({});
    expect(dev.stackName).toBe('Expohub-dev');
    const of = (type: string) => Object.entries(all).filter(([, r]) => r.Type === type);
    expect(of('AWS::DynamoDB::Table').length).toBe(TABLES.length);
    for (const [id, table] of of('AWS::DynamoDB::Table')) {
      expect(table.DeletionPolicy, id).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled, id).toBe(false);
    }
    for (const [id, r] of [...of('AWS::SecretsManager::Secret'), ...of('AWS::Logs::LogGroup')]) expect(r.DeletionPolicy, id).toBe('Delete');
    const dashboard = of('AWS::CloudWatch::Dashboard')[0]![1];
    expect(dashboard.Properties.DashboardName).toBe('expohub-dev');
    const fn = of('AWS::Lambda::Function').find(([, r]) => r.Properties.Environment?.Variables?.EXPOHUB_RUNTIME === 'aws')![1];
    expect(fn.Properties.Environment.Variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: 'expohub-dev', LOG_LEVEL: 'INFO' });
  });

  it('fails the synth of a production stage that lacks the share base URL or the administrators', async () => {
    await expect(synthWith({ stage: 'prod', adminPhones: '+8613800138000' })).rejects.toThrow(/production stage and needs shareBaseUrl/);
    await expect(synthWith({ stage: 'prod', shareBaseUrl: 'https://s.example.com' })).rejects.toThrow(/needs adminPhones/);
  });
});
