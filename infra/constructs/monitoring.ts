import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { DefaultDashboardFactory, MonitoringFacade, SnsAlarmActionStrategy } from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { TABLES } from '../../lib/platform/db/tables.js';
import { METRICS, METRICS_NAMESPACE, type MetricName } from '../../lib/platform/observability/metric-names.js';
import { FUNCTIONS, type FunctionName } from '../routes.js';
import type { ApiFunctions } from './api-functions.js';
import type { DataTables } from './data-tables.js';
import { SYNTHETIC_CHECK_RATE } from './synthetic-check.js';

/** What the alarms watch for, in one place (docs/deploy.md, "Alarms"). */
/** The share of a daily SMS budget sent in 24 hours that raises its alarm. */
export const SMS_BUDGET_ALARM_RATIO = 0.8;

export const ALARM_THRESHOLDS = {
  /** Any invocation error (a crash or a timeout: handled errors answer in the envelope) in 5 minutes. */
  lambdaErrors: 0,
  lambdaThrottles: 0,
  /** Share of 5xx answers (503 included) of the API over 5 minutes. */
  api5xxRate: 0.05,
  apiP99Latency: Duration.seconds(3),
  /** Read or write throttle events on a table or an index in 5 minutes. */
  dynamoThrottles: 0,
  /** 503 answers (a dependency failed) in 5 minutes. */
  unavailable: 10,
  smsFailed: 0,
  /** The oldest open report's age (seconds): the stores expect action within 24 hours (docs/moderation.md, "Moderation"). */
  oldestOpenReport: 20 * 3600,
} as const;

/** Metrics that are values, not counts: not summed into the service widgets. */
const GAUGES: readonly MetricName[] = ['OldestOpenReportAge', 'SyntheticSuccess', 'SyntheticLatency'];

/** The synthetic check's alarm: this many failed 5-minute periods in a row (docs/deploy.md, "The synthetic check"). */
export const SYNTHETIC_FAILURES_TO_ALARM = 2;

/** How often the report-age check (functions/report-age.ts) publishes OldestOpenReportAge. */
export const REPORT_AGE_SCHEDULE = Duration.minutes(5);

export interface MonitoringProps {
  /** `expohub-<stage>`: names of the alarms, the dashboard and the POWERTOOLS_SERVICE_NAME of the functions. */
  namePrefix: string;
  functions: ApiFunctions;
  api: IHttpApi;
  tables: DataTables;
  /** The account's monthly SMS spend limit (USD) and the share of it that raises the alarm. */
  smsMonthlySpendLimitUsd: number;
  smsSpendAlarmRatio: number;
  /** Where SNS sends the codes (SMS_REGION); unknown when the stack's region is. */
  smsRegion?: string;
  /** The functions' two daily SMS budgets (SMS_DAILY_CAP, SMS_DAILY_CAP_RETURNING): alarmed before they run out. */
  smsDailyCaps: { new: number; returning: number };
  alarmEmail?: string;
  /** Alarms made elsewhere in the stack that should notify the topic too. */
  otherAlarms: cloudwatch.Alarm[];
  production: boolean;
}

/**
 * The stack's alarms and its dashboard (cdk-monitoring-constructs): errors and throttles of every
 * function (the authorizer's errors are its own), the API's 5xx rate and p99 latency, throttles of
 * every table and index, the SMS month-to-date spend near the account's limit, and the custom
 * metrics of lib/platform/observability/metric-names.ts. Every alarm notifies one encrypted SNS topic.
 */
export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly facade: MonitoringFacade;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    // A customer managed key: CloudWatch can publish to a topic encrypted with it (its key policy
    // says so); it cannot use the AWS managed alias/aws/sns key.
    const key = new kms.Key(this, 'AlarmTopicKey', {
      description: `${props.namePrefix}: encrypts the alarm topic`,
      enableKeyRotation: true,
      removalPolicy,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: `${props.namePrefix} alarms`, masterKey: key, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    this.facade = new MonitoringFacade(this, 'Facade', {
      alarmFactoryDefaults: {
        alarmNamePrefix: props.namePrefix,
        actionsEnabled: true,
        action: new SnsAlarmActionStrategy({ onAlarmTopic: this.topic }),
        datapointsToAlarm: 1,
      },
      metricFactoryDefaults: { namespace: METRICS_NAMESPACE },
      dashboardFactory: new DefaultDashboardFactory(this, 'Dashboards', {
        dashboardNamePrefix: props.namePrefix,
        createDashboard: true,
        createSummaryDashboard: false,
        createAlarmDashboard: false,
      }),
    });

    this.facade.addLargeHeader(`${props.namePrefix}: API`);
    this.facade.monitorApiGatewayV2HttpApi({
      api: props.api,
      alarmFriendlyName: 'Api',
      humanReadableName: 'HTTP API ($default stage)',
      add5xxRateAlarm: { Critical: { maxErrorRate: ALARM_THRESHOLDS.api5xxRate } },
      addLatencyP99Alarm: { Critical: { maxLatency: ALARM_THRESHOLDS.apiP99Latency } },
    });

    this.facade.addLargeHeader('Functions');
    for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
      this.facade.monitorLambdaFunction({
        lambdaFunction: props.functions.get(name),
        alarmFriendlyName: `Fn-${name}`,
        humanReadableName: name === 'authorizer' ? 'authorizer (its errors: requests that got API Gateway\'s own 500)' : name,
        addFaultCountAlarm: { Critical: { maxErrorCount: ALARM_THRESHOLDS.lambdaErrors } },
        addThrottlesCountAlarm: { Critical: { maxErrorCount: ALARM_THRESHOLDS.lambdaThrottles } },
      });
    }

    this.facade.addLargeHeader('DynamoDB');
    for (const definition of TABLES) {
      const table: dynamodb.ITable = props.tables.table(definition.envVar);
      this.facade.monitorDynamoTable({
        table,
        alarmFriendlyName: `Table-${definition.id}`,
        humanReadableName: `table ${definition.id}`,
        addReadThrottledEventsCountAlarm: { Critical: { maxThrottledEventsThreshold: ALARM_THRESHOLDS.dynamoThrottles } },
        addWriteThrottledEventsCountAlarm: { Critical: { maxThrottledEventsThreshold: ALARM_THRESHOLDS.dynamoThrottles } },
      });
      for (const index of definition.globalIndexes) {
        this.facade.monitorDynamoTableGlobalSecondaryIndex({
          table,
          globalSecondaryIndexName: index.indexName,
          alarmFriendlyName: `Index-${definition.id}-${index.indexName}`,
          humanReadableName: `index ${definition.id}/${index.indexName}`,
          addReadThrottledEventsCountAlarm: { Critical: { maxThrottledEventsThreshold: ALARM_THRESHOLDS.dynamoThrottles } },
          addWriteThrottledEventsCountAlarm: { Critical: { maxThrottledEventsThreshold: ALARM_THRESHOLDS.dynamoThrottles } },
        });
      }
    }

    this.facade.addLargeHeader('SMS and the service');
    const spendLimit = props.smsMonthlySpendLimitUsd;
    const stackRegion = Token.isUnresolved(Stack.of(this).region) ? undefined : Stack.of(this).region;
    // SNS publishes the spend in the region that sends the SMS. An alarm watches metrics of its own
    // region only, so when the codes go through another region the dashboard shows the spend from
    // there and no alarm is made here (docs/deploy.md, "Regions").
    const smsElsewhere = props.smsRegion !== undefined && props.smsRegion !== stackRegion;
    const spend = new cloudwatch.Metric({
      namespace: 'AWS/SNS',
      metricName: 'SMSMonthToDateSpentUSD',
      statistic: 'Maximum',
      period: Duration.minutes(15),
      ...(smsElsewhere ? { region: props.smsRegion } : {}),
    });
    if (smsElsewhere) {
      this.facade.addWidget(
        new cloudwatch.GraphWidget({
          title: `SMS spend (USD), ${props.smsRegion}; account limit ${spendLimit}`,
          left: [spend],
          leftAnnotations: [{ value: spendLimit * props.smsSpendAlarmRatio, label: `${Math.round(props.smsSpendAlarmRatio * 100)}% of the limit` }],
          width: 24,
        }),
      );
    } else {
      this.facade.monitorCustom({
        alarmFriendlyName: 'SmsSpend',
        humanReadableName: `SMS month-to-date spend (USD; account limit ${spendLimit})`,
        metricGroups: [
          {
            title: 'SMS spend (USD)',
            metrics: [
              {
                metric: spend,
                alarmFriendlyName: 'SmsMonthToDateSpend',
                addAlarm: {
                  Warning: {
                    threshold: spendLimit * props.smsSpendAlarmRatio,
                    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                    additionalDescription: `SMS spend this month reached ${Math.round(props.smsSpendAlarmRatio * 100)}% of the account limit (${spendLimit} USD): past it SNS stops sending and sign-up stops (docs/deploy.md, "SMS").`,
                  },
                },
              },
            ],
          },
        ],
      });
    }

    const service = { service: props.namePrefix };
    const customMetric = (name: MetricName, extra: Record<string, string> = {}, label?: string) =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { ...service, ...extra }, statistic: 'Sum', period: Duration.minutes(5), label });
    /** A metric with a dimension is published per value: the total is their sum. */
    const total = (name: MetricName) => {
      const spec: { dimension?: string; values?: readonly string[] } = METRICS[name];
      if (!spec.dimension || !spec.values) return customMetric(name);
      const parts = Object.fromEntries(spec.values.map((v, i) => [`m${i}`, customMetric(name, { [spec.dimension!]: v })]));
      return new cloudwatch.MathExpression({ expression: Object.keys(parts).join(' + '), usingMetrics: parts, label: name, period: Duration.minutes(5) });
    };
    const alarmed: Partial<Record<MetricName, { threshold: number; description: string }>> = {
      Unavailable: { threshold: ALARM_THRESHOLDS.unavailable, description: 'Requests answered 503 because a dependency (DynamoDB, Secrets Manager, SNS) failed.' },
      SmsFailed: { threshold: ALARM_THRESHOLDS.smsFailed, description: 'SNS refused or failed to send a verification code: sign-up is affected.' },
    };
    this.facade.monitorCustom({
      alarmFriendlyName: 'Service',
      humanReadableName: `Service metrics (${METRICS_NAMESPACE}, service=${props.namePrefix})`,
      // OldestOpenReportAge and the synthetic check's metrics are gauges, not counts: their own widgets and alarms below.
      metricGroups: (Object.keys(METRICS) as MetricName[]).filter((name) => !GAUGES.includes(name)).map((name) => {
        const spec: { dimension?: string; values?: readonly string[] } = METRICS[name];
        const alarm = alarmed[name];
        if (alarm) {
          return {
            title: name,
            metrics: [
              {
                metric: total(name),
                alarmFriendlyName: name,
                addAlarm: {
                  Critical: {
                    threshold: alarm.threshold,
                    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                    additionalDescription: alarm.description,
                  },
                },
              },
            ],
          };
        }
        return {
          title: name,
          metrics: spec.dimension && spec.values ? spec.values.map((v) => customMetric(name, { [spec.dimension!]: v }, v)) : [customMetric(name)],
        };
      }),
    });

    // The daily SMS budgets (docs/deploy.md, "SMS cost controls"): an alarm when the sends of the last
    // 24 hours reach SMS_BUDGET_ALARM_RATIO of a budget, before gen_code starts answering 429 to its
    // numbers, and one as soon as a budget refuses a send. The budgets are UTC days; the 24-hour window
    // is the longest an alarm evaluates, so it warns early rather than late.
    this.facade.addLargeHeader('SMS daily budgets');
    for (const budget of ['new', 'returning'] as const) {
      const cap = props.smsDailyCaps[budget];
      const sent = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'SmsSent', dimensionsMap: { ...service, budget }, statistic: 'Sum', period: Duration.days(1) });
      const near = sent.createAlarm(this, `SmsBudgetNear-${budget}`, {
        alarmName: `${props.namePrefix}-sms-budget-near-${budget}`,
        alarmDescription: `SMS sent in 24 hours to ${budget === 'new' ? 'numbers without an account' : 'returning accounts'} reached ${Math.round(SMS_BUDGET_ALARM_RATIO * 100)}% of its daily budget (${cap}): past it gen_code answers 429 to those numbers until 00:00 UTC (docs/deploy.md, "SMS cost controls").`,
        threshold: Math.floor(cap * SMS_BUDGET_ALARM_RATIO),
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      const refused = customMetric('SmsRefused', { reason: budget === 'new' ? 'daily_cap' : 'daily_cap_returning' });
      const spent = refused.createAlarm(this, `SmsBudgetSpent-${budget}`, {
        alarmName: `${props.namePrefix}-sms-budget-spent-${budget}`,
        alarmDescription: `The daily SMS budget of ${budget === 'new' ? 'numbers without an account' : 'returning accounts'} (${cap}) is spent: gen_code answers 429 to those numbers until 00:00 UTC.`,
        threshold: 0,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      for (const alarm of [near, spent]) alarm.addAlarmAction(new SnsAction(this.topic));
      this.facade.addWidget(new cloudwatch.GraphWidget({ title: `SMS sent, budget ${budget} (24 h sums)`, left: [sent], leftAnnotations: [{ value: cap, label: 'daily budget' }], width: 12 }));
    }

    // Moderation (docs/moderation.md, "Moderation"): the age of the oldest open report, published by a
    // scheduled function (a quiet queue writes nothing, so no stream consumer could publish it).
    this.facade.addLargeHeader('Moderation');
    new events.Rule(this, 'ReportAgeSchedule', {
      description: 'Publishes the age of the oldest open report (docs/moderation.md, "Moderation")',
      schedule: events.Schedule.rate(REPORT_AGE_SCHEDULE),
      targets: [new targets.LambdaFunction(props.functions.get('reportAge'), { retryAttempts: 2 })],
    });
    const reportAge = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'OldestOpenReportAge', dimensionsMap: service, statistic: 'Maximum', period: Duration.minutes(15) });
    const oldestReport = reportAge.createAlarm(this, 'OldestOpenReport', {
      alarmName: `${props.namePrefix}-oldest-open-report`,
      alarmDescription: `A report has waited more than ${ALARM_THRESHOLDS.oldestOpenReport / 3600} hours for a moderator: the app stores expect action within 24 (docs/moderation.md, "Moderation").`,
      threshold: ALARM_THRESHOLDS.oldestOpenReport,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      // No datapoint means the check did not run: its function's error alarm says so.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    oldestReport.addAlarmAction(new SnsAction(this.topic));
    this.facade.addWidget(
      new cloudwatch.GraphWidget({
        title: 'Oldest open report (hours)',
        left: [new cloudwatch.MathExpression({ expression: 'age / 3600', usingMetrics: { age: reportAge }, label: 'oldest open report, hours', period: Duration.minutes(15) })],
        leftAnnotations: [
          { value: ALARM_THRESHOLDS.oldestOpenReport / 3600, label: 'alarm' },
          { value: 24, label: 'store deadline' },
        ],
        width: 12,
      }),
    );

    // The synthetic check (docs/deploy.md, "The synthetic check"): `all` is 1 when every check of a run
    // passed. Two failed periods in a row alarm; a period without a run counts as failed (missing data
    // breaching), so a check that stopped running alarms too.
    this.facade.addLargeHeader('Synthetic check');
    const syntheticAll = new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: 'SyntheticSuccess',
      dimensionsMap: { ...service, check: 'all' },
      statistic: 'Minimum',
      period: SYNTHETIC_CHECK_RATE,
    });
    const synthetic = syntheticAll.createAlarm(this, 'SyntheticCheckFailing', {
      alarmName: `${props.namePrefix}-synthetic-check-failing`,
      alarmDescription: `The synthetic check failed ${SYNTHETIC_FAILURES_TO_ALARM} runs in a row, or did not run: the deployment does not answer as it should. Its log line names the failing checks (docs/deploy.md, "The synthetic check").`,
      threshold: 1,
      evaluationPeriods: SYNTHETIC_FAILURES_TO_ALARM,
      datapointsToAlarm: SYNTHETIC_FAILURES_TO_ALARM,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    synthetic.addAlarmAction(new SnsAction(this.topic));
    synthetic.addOkAction(new SnsAction(this.topic));
    const perCheck = (name: 'SyntheticSuccess' | 'SyntheticLatency', statistic: string) =>
      METRICS[name].values
        .filter((check) => check !== 'all')
        .map((check) => new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { ...service, check }, statistic, period: SYNTHETIC_CHECK_RATE, label: check }));
    this.facade.addWidget(
      new cloudwatch.AlarmWidget({ title: `Synthetic check: every check passed (1) or not (0); alarm after ${SYNTHETIC_FAILURES_TO_ALARM} failed runs`, alarm: synthetic, width: 8 }),
    );
    this.facade.addWidget(new cloudwatch.GraphWidget({ title: 'Synthetic check: success per check (minimum)', left: perCheck('SyntheticSuccess', 'Minimum'), leftYAxis: { min: 0, max: 1 }, width: 8 }));
    this.facade.addWidget(new cloudwatch.GraphWidget({ title: 'Synthetic check: latency per check (ms, maximum)', left: perCheck('SyntheticLatency', 'Maximum'), width: 8 }));

    for (const alarm of props.otherAlarms) alarm.addAlarmAction(new SnsAction(this.topic));
  }
}
