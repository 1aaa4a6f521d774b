import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../infra/app.js';
import { PROJECT_ROOT } from '../../infra/constructs/expohub-function.js';
import { FUNCTIONS, ROUTES, type FunctionName, type FunctionSpec } from '../../infra/routes.js';
import { ExpohubStack, settingsFromContext } from '../../infra/stack.js';
import { TABLES } from '../../lib/db/tables.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Resource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

const CONTEXT = {
  adminPhones: '+8613800138000, +8613900139000',
  enforceKeyScopes: 'true',
  shareBaseUrl: 'https://share.example.com/',
};
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
  ({ stack } = await createApp(new App({ context: CONTEXT }), { webOutDir }));
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
}, 180_000);

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
      if (route.auth === 'authorizer') {
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

  it('logs every request as JSON without headers or query strings, and throttles the default stage', () => {
    const stages = ofType('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0]![1].Properties;
    expect(stage.StageName).toBe('$default');
    expect(stage.AutoDeploy).toBe(true);
    expect(stage.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(stage.DefaultRouteSettings.ThrottlingBurstLimit).toBeGreaterThan(0);
    const format = JSON.parse(stage.AccessLogSettings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
    });
    expect(stage.AccessLogSettings.Format).not.toMatch(/header|querystring|authorization/i);
  });
});

describe('tables', () => {
  it('builds every definition of lib/db/tables.ts: on demand, PITR, encrypted, retained, every GSI and the TTL', () => {
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
    const [secretId] = ofType('AWS::SecretsManager::Secret').map(([id]) => id);
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
      });
      for (const definition of TABLES) expect(env[definition.envVar], name).toEqual({ Ref: tableIds[definition.envVar] });
      expect(env.JWT_SECRET, name).toBeUndefined();
      expect(JSON.stringify(env), name).not.toMatch(/resolve:secretsmanager|SecretString/);
    }
  });

  it('grants each function exactly the table access, secret and SMS its spec asks for', () => {
    const [secretId] = ofType('AWS::SecretsManager::Secret').map(([id]) => id);
    const tableIds = { apiKeys: 'Tablesapikeys', hub: 'Tableshub' } as const;
    for (const [name, { props }] of ourFunctions()) {
      const spec: FunctionSpec = FUNCTIONS[name];
      const statements = roleStatements(props).filter((s) => s.Effect === 'Allow');
      for (const [key, prefix] of Object.entries(tableIds) as [keyof typeof tableIds, string][]) {
        const actions = statements.filter((s) => JSON.stringify(s.Resource).includes(prefix)).flatMap((s) => asArray<string>(s.Action));
        const access = spec.tables[key];
        expect(actions.includes('dynamodb:GetItem'), `${name} reads ${key}`).toBe(access !== undefined);
        expect(actions.includes('dynamodb:Query'), `${name} queries ${key}`).toBe(access !== undefined);
        expect(actions.includes('dynamodb:PutItem'), `${name} writes ${key}`).toBe(access === 'readWrite');
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

  it('never grants DynamoDB on every resource (but listing streams, which has no resource)', () => {
    const broad = identityStatements().filter(
      (s) => asArray<string>(s.Action).some((a) => a.startsWith('dynamodb:')) && asArray(s.Resource).includes('*'),
    );
    // The stream's event source mapping needs dynamodb:ListStreams, an action without resource-level
    // permissions: it lists stream ARNs, no data. Nothing else may be granted on *.
    expect(broad).toEqual([{ Action: 'dynamodb:ListStreams', Effect: 'Allow', Resource: '*' }]);
  });
});

describe('JWT secret', () => {
  it('is generated (long, no punctuation), retained, and exported by ARN only', () => {
    const secrets = ofType('AWS::SecretsManager::Secret');
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

  it('serves the share pages /s/* uncached and /.well-known/* from the HTTP API (CONTRACT §7)', () => {
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
  }, 180_000);

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
    const findings = Annotations.fromStack(checked).findError('/Expohub/NagCanary/Resource', Match.stringLikeRegexp('AwsSolutions-S'));
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

  it('defaults to no admins, scope gate off, no CORS', () => {
    expect(from({})).toEqual({ adminPhones: [], enforceKeyScopes: false, corsOrigins: [], shareBaseUrl: undefined, jwtSecretGeneration: undefined });
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
