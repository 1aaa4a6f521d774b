import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExpohubStack, settingsFromContext } from '../../infra/stack.js';
import { METRICS_NAMESPACE, SYNTHETIC_CHECK_NAMES } from '../../lib/platform/observability/metric-names.js';

// The synthetic check in the synthesized production template (docs/deploy.md, "The synthetic check").
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CONTEXT: Record<string, string> = { stage: 'prod', adminPhones: '+8613800138000', shareBaseUrl: 'https://share.example.com', contactEmail: 'abuse@example.com' };
let resources: Record<string, { Type: string; Properties: Json }>;
let outputs: Json;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new ExpohubStack(app, 'Expohub-prod', { settings: settingsFromContext((key) => CONTEXT[key]) });
  const json = Template.fromStack(stack).toJSON();
  resources = json.Resources;
  outputs = json.Outputs;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const refersTo = (value: unknown, logicalId: string) => JSON.stringify(value).includes(`"${logicalId}"`);
const checkFunction = () => {
  const found = ofType('AWS::Lambda::Function').filter(([id]) => /^FunctionsSyntheticCheckFunction[0-9A-F]{8}$/.test(id));
  expect(found).toHaveLength(1);
  return found[0]!;
};
const secretId = () => {
  const found = ofType('AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('SyntheticCheckCanaryKeySecret'));
  expect(found).toHaveLength(1);
  return found[0]![0];
};

describe('the synthetic check', () => {
  it('runs the function every 5 minutes, not retried', () => {
    const [fnId] = checkFunction();
    const rules = ofType('AWS::Events::Rule').filter(([, r]) => JSON.stringify(r.Properties.Targets ?? []).includes(`"${fnId}"`));
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
    expect(rules[0]![1].Properties.Targets[0].RetryPolicy).toMatchObject({ MaximumRetryAttempts: 0 });
  });

  it('calls the distribution (WebUrl) and reads its canary key from a generated secret of 32 letters and digits', () => {
    const [, fn] = checkFunction();
    const env = fn.Properties.Environment.Variables;
    expect(JSON.stringify(env.SYNTHETIC_BASE_URL)).toContain('DomainName');
    expect(env.SYNTHETIC_BASE_URL).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^WebDistribution/), 'DomainName'] }]] });
    expect(env.CANARY_KEY_SECRET_ARN).toEqual({ Ref: secretId() });
    expect(env.CANARY_KEY_SECRET).toBeUndefined();
    expect(resources[secretId()]!.Properties.GenerateSecretString).toEqual({ PasswordLength: 32, ExcludePunctuation: true, IncludeSpace: false });
    expect(outputs.CanaryKeySecretArn.Value).toEqual({ Ref: secretId() });
  });

  it('is the only function that may read the canary secret', () => {
    const readers = ofType('AWS::IAM::Policy').filter(([, p]) =>
      (p.Properties.PolicyDocument.Statement as Json[]).some((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue') && refersTo(s.Resource, secretId())),
    );
    expect(readers).toHaveLength(1);
    expect(readers[0]![1].Properties.Roles).toEqual([{ Ref: expect.stringMatching(/^FunctionsSyntheticCheckRole/) }]);
  });

  it('alarms to the alarm topic after 2 failed 5-minute periods of SyntheticSuccess check=all, a period without a run counting as failed', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.AlarmName === 'expohub-prod-synthetic-check-failing');
    expect(alarms).toHaveLength(1);
    const alarm = alarms[0]![1].Properties;
    expect(alarm).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: 'SyntheticSuccess',
      Statistic: 'Minimum',
      Period: 300,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(alarm.Dimensions).toEqual(expect.arrayContaining([{ Name: 'service', Value: 'expohub-prod' }, { Name: 'check', Value: 'all' }]));
    const [topicId] = ofType('AWS::SNS::Topic')[0]!;
    expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
  });

  it('has its widgets on the dashboard: the alarm, success and latency of every check', () => {
    const body = JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody);
    expect(body).toContain('Synthetic check: success per check');
    expect(body).toContain('Synthetic check: latency per check');
    for (const check of SYNTHETIC_CHECK_NAMES) expect(body, check).toContain(`\\"check\\",\\"${check}\\"`);
    expect(body).toContain('SyntheticLatency');
  });
});
