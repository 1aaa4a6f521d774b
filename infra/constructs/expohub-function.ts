import { resolve } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Architecture, ParamsAndSecretsLayerVersion, ParamsAndSecretsLogLevel, ParamsAndSecretsVersions, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { LAMBDA_BUNDLE } from './lambda-bundle.js';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

export const FUNCTION_DEFAULTS = {
  memoryMb: 512,
  timeoutSeconds: 10,
  logRetention: RetentionDays.ONE_MONTH,
} as const;

export interface ExpohubFunctionProps {
  /** Entry file relative to the project root; it exports `handler`. */
  entry: string;
  description: string;
  environment: Record<string, string>;
  memoryMb?: number;
  timeoutSeconds?: number;
  /** The log group's fate when the stack is deleted: retained in production. */
  logRemovalPolicy?: RemovalPolicy;
  /** Reads a secret (lib/platform/secrets/secrets-extension.ts): gets the Parameters and Secrets extension's layer. */
  readsSecrets?: boolean;
}

/**
 * The AWS Parameters and Secrets Lambda Extension, for the functions that read a secret: they ask it
 * over localhost instead of bundling a Secrets Manager client (docs/performance.md, "Cold starts").
 * CDK picks the layer's ARN for the stack's region and the functions' architecture (a mapping when
 * the region is unknown at synth). Its cache is off: the functions keep the secrets themselves, for
 * the times their code states (lib/platform/secrets/signing-secrets.ts, lib/transport/http/front-door.ts), so a
 * rotation reaches them as it did through the SDK.
 */
export const SECRETS_EXTENSION = ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
  cacheEnabled: false,
  logLevel: ParamsAndSecretsLogLevel.WARN,
});

/**
 * Every Lambda function of the stack, with the defaults fixed in one place: Node.js 22 on arm64,
 * X-Ray active tracing (without the SDK in the bundle), the secrets extension where a secret is read, a log group with one month retention, and a local esbuild bundle (no Docker) as
 * minified ESM with source maps (infra/constructs/lambda-bundle.ts). The AWS SDK v3 is bundled
 * rather than taken from the nodejs22.x runtime: the bundled SDK imports in about half the time
 * (docs/performance.md, "Cold starts"), and the version deployed is the one locked and tested here.
 *
 * The role is created here with write access to its own log group only, instead of the managed
 * AWSLambdaBasicExecutionRole (which allows writing to every log group of the account).
 */
export class ExpohubFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ExpohubFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: FUNCTION_DEFAULTS.logRetention,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: resolve(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: resolve(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? FUNCTION_DEFAULTS.memoryMb,
      timeout: Duration.seconds(props.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds),
      // Lambda records each invocation's segment (init, invocation, overhead) by itself; no X-Ray SDK
      // is bundled: its per-call subsegments cost more import time than they tell (docs/performance.md,
      // "Cold starts").
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      environment: { ...props.environment, NODE_OPTIONS: LAMBDA_BUNDLE.nodeOptions },
      ...(props.readsSecrets ? { paramsAndSecrets: SECRETS_EXTENSION } : {}),
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: LAMBDA_BUNDLE.target,
        platform: LAMBDA_BUNDLE.platform,
        mainFields: [...LAMBDA_BUNDLE.mainFields],
        banner: LAMBDA_BUNDLE.banner,
        minify: LAMBDA_BUNDLE.minify,
        sourceMap: LAMBDA_BUNDLE.sourceMap,
        sourcesContent: LAMBDA_BUNDLE.sourcesContent,
        logLevel: LogLevel.WARNING,
        // Everything is bundled, the AWS SDK v3 included (see the class comment).
        bundleAwsSDK: true,
        externalModules: [...LAMBDA_BUNDLE.externalModules],
      },
    });

    NagSuppressions.addResourceSuppressions(this.function, [
      {
        id: 'AwsSolutions-L1',
        reason: 'Pinned to nodejs22.x on purpose: the code is built for target node22 and tested on Node 20/22; moving to a newer runtime is a deliberate, tested upgrade.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(
      this.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason: 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions, so their resource is *.',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
  }
}
