import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { API_KEYS_TABLE, HUB_TABLE, type TableDefinition } from '../../lib/platform/db/tables.js';
import { ORIGIN_VERIFY_SECRET_ENV } from '../../lib/transport/http/origin-verify.js';
import { FUNCTIONS, ROUTES, type FunctionName, type FunctionSpec, type TableGrant } from '../routes.js';
import type { DataTables } from './data-tables.js';
import { ExpohubFunction } from './expohub-function.js';

/** Which table definition each `FunctionSpec.tables` key names. */
const TABLE_OF_ACCESS_KEY: Record<keyof FunctionSpec['tables'], TableDefinition> = {
  apiKeys: API_KEYS_TABLE,
  hub: HUB_TABLE,
};

export interface ApiFunctionsProps {
  tables: DataTables;
  jwtSecret: ISecret;
  /** Non-secret settings shared by every function (ADMIN_PHONES, ENFORCE_KEY_SCOPES, ...). */
  environment: Record<string, string>;
  /** The secret CloudFront sends to the API: the functions behind a route check it (lib/transport/http/front-door.ts). */
  originVerifySecret?: ISecret;
  logRemovalPolicy?: RemovalPolicy;
}

const logicalName = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * Exactly the actions of the spec on the table, and Query on each index it names: not the
 * grantReadData/grantReadWriteData sets, which add Scan, DescribeTable, the stream actions and every
 * index (`<table>/index/*`).
 */
function grantTable(table: dynamodb.ITable, definition: TableDefinition, fn: NodejsFunction, grant: TableGrant | undefined) {
  if (!grant) return;
  const unknown = (grant.indexes ?? []).filter((name) => !definition.globalIndexes.some((i) => i.indexName === name));
  if (unknown.length > 0) throw new Error(`${fn.node.path}: no index ${unknown.join(', ')} on table ${definition.id} (lib/platform/db/tables.ts)`);
  if (grant.actions.length > 0) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: grant.actions.map((a) => `dynamodb:${a}`), resources: [table.tableArn] }));
  }
  const indexes = grant.indexes ?? [];
  if (indexes.length > 0) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes.map((name) => `${table.tableArn}/index/${name}`) }));
  }
}

/**
 * One Lambda function per entry of FUNCTIONS (infra/routes.ts), each with exactly the grants its
 * spec asks for. A function added to FUNCTIONS is deployed without touching this file.
 */
export class ApiFunctions extends Construct {
  private readonly functions = new Map<FunctionName, NodejsFunction>();

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);

    // Every function gets every table name and the secret's ARN: lib/platform/config.ts validates them all
    // at cold start. Access is granted separately, per spec.
    const environment: Record<string, string> = {
      ...props.environment,
      JWT_SECRET_ARN: props.jwtSecret.secretArn,
    };
    for (const definition of Object.values(TABLE_OF_ACCESS_KEY)) {
      environment[definition.envVar] = props.tables.table(definition.envVar).tableName;
    }

    for (const [name, spec] of Object.entries(FUNCTIONS) as [FunctionName, FunctionSpec][]) {
      // Functions behind a route answer HTTP: they check the origin secret; the authorizer and the
      // stream processor do not (the function after the authorizer refuses a direct call).
      const checksOrigin = props.originVerifySecret !== undefined && ROUTES.some((r) => r.function === name);
      // The authorizer verifies login tokens on every protected route, whatever its spec says.
      const readsJwtSecret = spec.jwtSecret === true || name === 'authorizer';
      const built = new ExpohubFunction(this, logicalName(name), {
        entry: spec.entry,
        description: spec.description,
        environment,
        memoryMb: spec.memoryMb,
        timeoutSeconds: spec.timeoutSeconds,
        logRemovalPolicy: props.logRemovalPolicy,
        readsSecrets: checksOrigin || readsJwtSecret || spec.secrets === true,
      });
      const fn = built.function;
      if (checksOrigin && props.originVerifySecret) {
        fn.addEnvironment(ORIGIN_VERIFY_SECRET_ENV, props.originVerifySecret.secretArn);
        props.originVerifySecret.grantRead(fn);
      }

      for (const [key, definition] of Object.entries(TABLE_OF_ACCESS_KEY) as [keyof FunctionSpec['tables'], TableDefinition][]) {
        grantTable(props.tables.table(definition.envVar), definition, fn, spec.tables[key]);
      }
      if (readsJwtSecret) props.jwtSecret.grantRead(fn);
      if (spec.sms) this.grantSmsToPhoneNumbers(built);

      this.functions.set(name, fn);
    }
  }

  get(name: FunctionName): NodejsFunction {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`Function ${name} is not in FUNCTIONS`);
    return fn;
  }

  /**
   * SMS straight to a phone number (Publish with PhoneNumber) has no resource ARN, so the Allow must
   * name `*`. The Deny on every SNS ARN (topics, platform endpoints) leaves only phone numbers: the
   * function can send a verification code but cannot publish to any topic or push endpoint.
   */
  private grantSmsToPhoneNumbers(built: ExpohubFunction) {
    const policy = new iam.Policy(built, 'SmsToPhoneNumbers', {
      statements: [
        new iam.PolicyStatement({ sid: 'SmsToPhoneNumbers', effect: iam.Effect.ALLOW, actions: ['sns:Publish'], resources: ['*'] }),
        new iam.PolicyStatement({
          sid: 'NoTopicsOrEndpoints',
          effect: iam.Effect.DENY,
          actions: ['sns:Publish'],
          resources: [`arn:${Stack.of(this).partition}:sns:*:*:*`],
        }),
      ],
    });
    policy.attachToRole(built.role);
    NagSuppressions.addResourceSuppressions(policy, [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'sns:Publish to a phone number (SMS verification codes) has no resource ARN, so the Allow is on *; a Deny on arn:<partition>:sns:*:*:* in the same policy excludes every topic and platform endpoint.',
        appliesTo: ['Resource::*', { regex: '/^Resource::arn:<AWS::Partition>:sns:\\*:\\*:\\*$/g' }],
      },
    ]);
  }
}
