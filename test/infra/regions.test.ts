import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, edgeStackName, stackName } from '../../infra/app.js';
import { FUNCTIONS } from '../../infra/routes.js';
import { SNS_SMS_REGIONS, smsRegionFor } from '../../infra/regions.js';

/**
 * The stage deployed in any region (docs/deploy.md, "Regions"): outside us-east-1 a companion stack
 * there makes the web ACL and the certificate, which the stage's stack reads through cross-region
 * references; everything else (the functions' grants, the front door's rules) is the same wherever
 * the stage lives.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-east-1', 'ap-southeast-1'] as const;
type Region = (typeof REGIONS)[number];
const ZONE = 'Z0123456789ABCDEFGHIJ';
const CONTEXT = {
  stage: 'prod',
  adminPhones: '+8613800138000',
  contactEmail: 'abuse@example.com',
  domainName: 'hub.example.com',
  hostedZoneId: ZONE,
  smsMonthlySpendLimitUsd: '50',
  'aws:cdk:bundling-stacks': [],
};

interface Synth {
  stack: Stack;
  edge?: Stack;
  main: Json;
  edgeJson?: Json;
}
const synths = new Map<Region | 'unknown', Synth>();
let webOutDir: string;

async function synth(region: Region | undefined): Promise<Synth> {
  const context = region === undefined ? CONTEXT : { ...CONTEXT, region };
  const { stack, edge } = await createApp(new App({ context }), { webOutDir }, {});
  return { stack, edge, main: Template.fromStack(stack).toJSON(), edgeJson: edge ? Template.fromStack(edge).toJSON() : undefined };
}

beforeAll(async () => {
  webOutDir = await mkdtemp(join(tmpdir(), 'expohub-web-'));
  for (const region of REGIONS) synths.set(region, await synth(region));
  synths.set('unknown', await synth(undefined));
});
afterAll(async () => {
  if (webOutDir) await rm(webOutDir, { recursive: true, force: true });
});

const of = (region: Region | 'unknown') => synths.get(region)!;
const resourcesOfType = (template: Json, type: string): [string, Json][] => Object.entries(template.Resources as Json).filter(([, r]) => r.Type === type);
const one = (template: Json, type: string): Json => {
  const found = resourcesOfType(template, type);
  expect(found, type).toHaveLength(1);
  return found[0]![1];
};

const PSEUDO = new Set(['AWS::AccountId', 'AWS::NotificationARNs', 'AWS::NoValue', 'AWS::Partition', 'AWS::Region', 'AWS::StackId', 'AWS::StackName', 'AWS::URLSuffix']);

/**
 * What CloudFormation would refuse before creating anything: a reference to no resource, parameter or
 * condition, an unresolved CDK token, more than 500 resources, 200 outputs or parameters, or a
 * template over the 1 MB CloudFormation reads from S3.
 */
function templateProblems(template: Json): string[] {
  const problems: string[] = [];
  const resources = Object.keys(template.Resources ?? {});
  const parameters = Object.keys(template.Parameters ?? {});
  const conditions = Object.keys(template.Conditions ?? {});
  const known = new Set([...resources, ...parameters, ...PSEUDO]);
  const text = JSON.stringify(template);
  if (text.length > 1_000_000) problems.push(`template is ${text.length} bytes`);
  if (resources.length > 500) problems.push(`${resources.length} resources`);
  if (Object.keys(template.Outputs ?? {}).length > 200) problems.push('more than 200 outputs');
  if (parameters.length > 200) problems.push('more than 200 parameters');
  if (/\$\{Token\[/.test(text)) problems.push('an unresolved token');
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === 'Ref' && typeof value === 'string' && !known.has(value)) problems.push(`${where}: Ref ${value}`);
      if (key === 'Fn::GetAtt' && !resources.includes(Array.isArray(value) ? value[0] : String(value).split('.')[0])) problems.push(`${where}: GetAtt ${JSON.stringify(value)}`);
      if (key === 'Condition' && typeof value === 'string' && !conditions.includes(value)) problems.push(`${where}: Condition ${value}`);
      if (key === 'Fn::Sub') {
        const [body, vars] = Array.isArray(value) ? [value[0] as string, Object.keys(value[1] ?? {})] : [value as string, []];
        for (const [, name] of body.matchAll(/\$\{([^!}][^}]*)\}/g)) {
          const target = name!.split('.')[0]!;
          if (!known.has(target) && !vars.includes(target)) problems.push(`${where}: Sub \${${name}}`);
        }
      }
      walk(value, `${where}.${key}`);
    }
  };
  walk(template.Resources, 'Resources');
  walk(template.Outputs, 'Outputs');
  for (const [id, r] of Object.entries(template.Resources as Json)) {
    for (const dep of [r.DependsOn ?? []].flat() as string[]) if (!resources.includes(dep)) problems.push(`${id}: DependsOn ${dep}`);
    if (!/^(AWS::[A-Za-z0-9]+::[A-Za-z0-9]+|Custom::[A-Za-z0-9]+)$/.test(r.Type)) problems.push(`${id}: type ${r.Type}`);
  }
  return problems;
}

/** A value as one string: joins flattened, a Ref as ${Name}, a GetAtt as ${Resource.Attribute}. */
function flat(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if (v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(flat).join(v['Fn::Join'][0]);
  if (v.Ref) return `\${${v.Ref}}`;
  if (v['Fn::GetAtt']) return `\${${[v['Fn::GetAtt']].flat().join('.')}}`;
  return JSON.stringify(value);
}

/** Our functions' identity policies, by FUNCTIONS name, resources as strings, with the region written as REGION. */
function grants(template: Json, region: string): Map<string, string> {
  const byName = new Map<string, string>();
  const policies = resourcesOfType(template, 'AWS::IAM::Policy');
  for (const [name, spec] of Object.entries(FUNCTIONS)) {
    const fn = resourcesOfType(template, 'AWS::Lambda::Function').find(([, r]) => r.Properties.Description === spec.description);
    expect(fn, name).toBeDefined();
    const roleId = fn![1].Properties.Role['Fn::GetAtt'][0] as string;
    const statements = policies
      .filter(([, p]) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => [p.Properties.PolicyDocument.Statement].flat())
      .map((st: Json) => ({ ...st, Resource: [st.Resource].flat().map(flat) }));
    byName.set(name, JSON.stringify(statements).replaceAll(region, 'REGION'));
  }
  return byName;
}

const ourEnvironments = (template: Json): Json[] =>
  resourcesOfType(template, 'AWS::Lambda::Function')
    .map(([, r]) => r.Properties.Environment?.Variables)
    .filter((v: Json | undefined) => v?.EXPOHUB_RUNTIME === 'aws');

describe.each(REGIONS)('a production stage in %s', (region) => {
  it('synthesizes valid templates with no cdk-nag error, the stage in its region and, outside us-east-1, the companion there', () => {
    const { stack, edge, main, edgeJson } = of(region);
    expect(stack.stackName).toBe(stackName('prod'));
    expect(stack.region).toBe(region);
    expect(templateProblems(main)).toEqual([]);
    for (const s of [stack, edge].filter((s): s is Stack => s !== undefined)) {
      expect(Annotations.fromStack(s).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
    }
    if (region === 'us-east-1') {
      expect(edge).toBeUndefined();
      return;
    }
    expect(edge!.stackName).toBe(edgeStackName('prod'));
    expect(edge!.region).toBe('us-east-1');
    expect(templateProblems(edgeJson!)).toEqual([]);
    // cdk deploy --all deploys the companion first.
    expect(stack.dependencies).toContain(edge);
  });

  it("gives the functions that read a secret the Parameters and Secrets extension's arm64 layer of this region", () => {
    const ours = resourcesOfType(of(region).main, 'AWS::Lambda::Function').filter(([, f]) => f.Properties.Environment?.Variables?.EXPOHUB_RUNTIME === 'aws');
    const layers = new Set(ours.flatMap(([, f]) => (f.Properties.Layers ?? []) as unknown[]).map((l) => JSON.stringify(l)));
    expect([...layers]).toHaveLength(1);
    expect(JSON.parse([...layers][0]!)).toMatch(new RegExp(`^arn:aws:lambda:${region}:\\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\\d+$`));
  });

  it('attaches the web ACL with the same rules as in us-east-1, made in us-east-1', () => {
    const { main, edgeJson } = of(region);
    const reference = one(of('us-east-1').main, 'AWS::WAFv2::WebACL');
    const distribution = one(main, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;
    if (region === 'us-east-1') {
      expect(distribution.WebACLId).toEqual({ 'Fn::GetAtt': [resourcesOfType(main, 'AWS::WAFv2::WebACL')[0]![0], 'Arn'] });
      return;
    }
    expect(resourcesOfType(main, 'AWS::WAFv2::WebACL')).toEqual([]);
    const acl = one(edgeJson!, 'AWS::WAFv2::WebACL');
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    expect(acl.Properties.Rules).toEqual(reference.Properties.Rules);
    expect(one(edgeJson!, 'AWS::WAFv2::LoggingConfiguration').Properties.RedactedFields).toEqual(one(of('us-east-1').main, 'AWS::WAFv2::LoggingConfiguration').Properties.RedactedFields);
    // The stage's stack reads the ACL's ARN from the parameter the companion writes in its region.
    const [aclId] = resourcesOfType(edgeJson!, 'AWS::WAFv2::WebACL')[0]!;
    const writer = one(edgeJson!, 'Custom::CrossRegionExportWriter').Properties.WriterProps;
    expect(writer.region).toBe(region);
    const exportName = Object.entries(writer.exports as Json).find(([, v]) => JSON.stringify(v) === JSON.stringify({ 'Fn::GetAtt': [aclId, 'Arn'] }))![0];
    const [readerId, reader] = resourcesOfType(main, 'Custom::CrossRegionExportReader')[0]!;
    expect(reader.Properties.ReaderProps.region).toBe(region);
    expect(Object.keys(reader.Properties.ReaderProps.imports)).toContain(exportName);
    expect(distribution.WebACLId).toEqual({ 'Fn::GetAtt': [readerId, exportName] });
  });

  it('makes the domain\'s certificate in us-east-1, validated by DNS in the hosted zone, and points the name at the distribution', () => {
    const { main, edgeJson } = of(region);
    const home = region === 'us-east-1' ? main : edgeJson!;
    const [certId, certificate] = resourcesOfType(home, 'AWS::CertificateManager::Certificate')[0]!;
    expect(certificate.Properties).toMatchObject({ DomainName: 'hub.example.com', ValidationMethod: 'DNS', DomainValidationOptions: [{ DomainName: 'hub.example.com', HostedZoneId: ZONE }] });
    expect(certificate.DeletionPolicy).toBe('Retain');
    if (region !== 'us-east-1') expect(resourcesOfType(main, 'AWS::CertificateManager::Certificate')).toEqual([]);
    const viewer = one(main, 'AWS::CloudFront::Distribution').Properties.DistributionConfig.ViewerCertificate;
    expect(viewer).toMatchObject({ SslSupportMethod: 'sni-only', MinimumProtocolVersion: 'TLSv1.2_2021' });
    if (region === 'us-east-1') expect(viewer.AcmCertificateArn).toEqual({ Ref: certId });
    else expect(JSON.stringify(viewer.AcmCertificateArn)).toMatch(/ExportsReader/);
    const aliases = resourcesOfType(main, 'AWS::Route53::RecordSet').map(([, r]) => r.Properties);
    expect(aliases.map((a) => a.Type).sort()).toEqual(['A', 'AAAA']);
    for (const alias of aliases) {
      expect(alias).toMatchObject({ HostedZoneId: ZONE, Name: 'hub.example.com.', AliasTarget: { HostedZoneId: 'Z2FDTNDATAQYW2' } });
      expect(JSON.stringify(alias.AliasTarget.DNSName)).toMatch(/WebDistribution.*DomainName/);
    }
  });

  it('grants every function exactly what it has in us-east-1', () => {
    const reference = grants(of('us-east-1').main, 'us-east-1');
    expect(grants(of(region).main, region)).toEqual(reference);
  });

  it('sends SMS through SNS in the region, or in the nearest region where SNS sends SMS, and alarms on the spend only where the spend is published', () => {
    const { main } = of(region);
    const smsRegion = smsRegionFor(region);
    expect(SNS_SMS_REGIONS).toContain(smsRegion);
    for (const env of ourEnvironments(main)) expect(env.SMS_REGION).toBe(smsRegion);
    const spendAlarms = resourcesOfType(main, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.MetricName === 'SMSMonthToDateSpentUSD');
    const dashboard = JSON.stringify(one(main, 'AWS::CloudWatch::Dashboard').Properties.DashboardBody);
    if (smsRegion === region) {
      expect(spendAlarms).toHaveLength(1);
      return;
    }
    // An alarm watches its own region's metrics only: the dashboard shows the spend from there.
    expect(spendAlarms).toEqual([]);
    expect(dashboard).toMatch(new RegExp(`SMSMonthToDateSpentUSD.*region.*${smsRegion}`));
  });
});

describe('where SNS sends the codes', () => {
  it('keeps the region where SNS sends SMS, sends Hong Kong\'s through Singapore, and any unknown region\'s through us-east-1', () => {
    expect(smsRegionFor('eu-west-1')).toBe('eu-west-1');
    expect(smsRegionFor('ap-east-1')).toBe('ap-southeast-1');
    expect(smsRegionFor('ap-northeast-2')).toBe('ap-northeast-1');
    expect(smsRegionFor('xx-nowhere-9')).toBe('us-east-1');
  });
});

describe('a stage whose region is not known at synth', () => {
  it('is one environment-agnostic stack that CloudFormation refuses outside us-east-1 before creating anything', () => {
    const { stack, edge, main } = of('unknown');
    expect(stack.environment).toBe('aws://unknown-account/unknown-region');
    expect(edge).toBeUndefined();
    expect(templateProblems(main)).toEqual([]);
    for (const rule of ['WebAclRegion', 'CertificateRegion']) {
      expect(main.Rules[rule].Assertions[0].Assert).toEqual({ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] });
      expect(main.Rules[rule].Assertions[0].AssertDescription).toMatch(/-c region=/);
    }
    // SNS's region is the functions' own.
    for (const env of ourEnvironments(main)) expect(env.SMS_REGION).toBeUndefined();
  });
});

describe('a stage switched to tables restored to a point in time (docs/deploy.md, "Backups and restore")', () => {
  const HUB = 'Expohub-prod-hub-restored-0325';
  const KEYS = 'Expohub-prod-keys-restored-0325';
  const STREAM = `arn:aws:dynamodb:ap-southeast-1:123456789012:table/${HUB}/stream/2026-11-26T03:25:00.000`;
  let restored: Json;
  beforeAll(async () => {
    const { stack } = await createApp(
      new App({ context: { ...CONTEXT, region: 'ap-southeast-1', hubTableName: HUB, hubTableStreamArn: STREAM, apiKeysTableName: KEYS } }),
      { webOutDir },
      {},
    );
    restored = Template.fromStack(stack).toJSON();
  });

  it('creates no table, and every function, grant, stream consumer and alarm uses the restored ones', () => {
    expect(templateProblems(restored)).toEqual([]);
    expect(resourcesOfType(restored, 'AWS::DynamoDB::Table')).toEqual([]);
    for (const env of ourEnvironments(restored)) expect(env).toMatchObject({ HUB_TABLE: HUB, API_KEYS_TABLE: KEYS });
    // The same grants as a stage that made its tables, on the restored tables' ARNs.
    const reference = grants(of('ap-southeast-1').main, 'ap-southeast-1');
    const tableArn = (name: string) => `arn:\${AWS::Partition}:dynamodb:REGION:\${AWS::AccountId}:table/${name}`;
    const made = (id: string, attribute = 'Arn') => new RegExp(`\\$\\{Tables${id}[0-9A-F]{8}\\.${attribute}\\}`, 'g');
    for (const [name, statements] of grants(restored, 'ap-southeast-1')) {
      const expected = reference.get(name)!.replace(made('hub'), tableArn(HUB)).replace(made('apikeys'), tableArn(KEYS)).replace(made('hub', 'StreamArn'), STREAM.replace('ap-southeast-1', 'REGION'));
      expect(JSON.parse(statements), name).toEqual(JSON.parse(expected));
    }
    const mappings = resourcesOfType(restored, 'AWS::Lambda::EventSourceMapping').map(([, r]) => r.Properties.EventSourceArn);
    expect(mappings.length).toBeGreaterThan(0);
    for (const arn of mappings) expect(arn).toBe(STREAM);
    const throttleAlarms = resourcesOfType(restored, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.Namespace === 'AWS/DynamoDB' || JSON.stringify(a.Properties.Metrics ?? '').includes('AWS/DynamoDB'));
    expect(JSON.stringify(throttleAlarms)).toContain(HUB);
    expect(JSON.stringify(throttleAlarms)).toContain(KEYS);
  });
});
