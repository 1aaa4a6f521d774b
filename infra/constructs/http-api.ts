import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnAuthorizer,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpStage,
  LogGroupLogDestination,
  type HttpRouteIntegration,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ROUTES, type FunctionName, type RouteSpec } from '../routes.js';
import type { ApiFunctions } from './api-functions.js';

export const STAGE_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;

/**
 * One JSON line per request. Deliberately no headers (Authorization) and no query string (the hub
 * carries `token` there): `$context.path` is the path alone.
 */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  routeKey: '$context.routeKey',
  method: '$context.httpMethod',
  path: '$context.path',
  status: '$context.status',
  latency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  responseLength: '$context.responseLength',
  sourceIp: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
});

export interface ExpohubHttpApiProps {
  functions: ApiFunctions;
  /** Browser origins allowed to call the API cross-origin (the page itself calls it same-origin). */
  corsOrigins: string[];
}

/**
 * The HTTP API: every route of ROUTES (infra/routes.ts), the Lambda authorizer on the routes that ask
 * for it, access logs and throttling on the `$default` stage.
 */
export class ExpohubHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** `{apiId}.execute-api.{region}.{suffix}`: the origin CloudFront forwards `/api/*` to. */
  readonly domainName: string;

  constructor(scope: Construct, id: string, props: ExpohubHttpApiProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.api = new HttpApi(this, 'Api', {
      description: 'expohub: the hub (GET /api/v1?do=...) and the access-key service',
      createDefaultStage: false,
      corsPreflight:
        props.corsOrigins.length > 0
          ? {
              allowOrigins: props.corsOrigins,
              allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.DELETE, CorsHttpMethod.OPTIONS],
              allowHeaders: ['content-type', 'authorization'],
              exposeHeaders: ['x-request-id', 'retry-after'],
              maxAge: Duration.hours(1),
            }
          : undefined,
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: STAGE_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
    });
    this.domainName = `${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;

    // No caching: a revoked key must fail on the very next request. No identity source either: with
    // one, API Gateway answers a request without that header 401 itself, outside the contract's
    // envelope. The authorizer lets such requests through as unauthenticated and the function
    // answers 401 in the envelope.
    const authorizer = new HttpLambdaAuthorizer('CredentialAuthorizer', props.functions.get('authorizer'), {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      resultsCacheTtl: Duration.seconds(0),
      identitySource: [],
    });

    const integrations = new Map<FunctionName, HttpRouteIntegration>();
    const integrationFor = (name: FunctionName) => {
      let integration = integrations.get(name);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${name}Integration`, props.functions.get(name));
        integrations.set(name, integration);
      }
      return integration;
    };

    const publicRoutes: string[] = [];
    for (const route of ROUTES) {
      assertDeployable(route);
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationFor(route.function),
        authorizer: route.auth === 'authorizer' ? authorizer : new HttpNoneAuthorizer(),
      });
      if (route.auth === 'none') publicRoutes.push(`${route.method} ${route.path}`);
    }

    this.dropEmptyIdentitySource();

    NagSuppressions.addResourceSuppressions(
      this.api,
      [
        {
          id: 'AwsSolutions-APIG4',
          reason: `Public by design (contract): ${publicRoutes.join(', ')}. The hub authenticates per operation from its token parameter; health and verify need no credential.`,
        },
      ],
      true,
    );
  }

  /**
   * CDK renders `identitySource: []` as an empty list; leave the property out instead, which is how
   * API Gateway describes a REQUEST authorizer with no identity source (allowed when caching is off).
   */
  private dropEmptyIdentitySource() {
    for (const child of this.api.node.findAll()) {
      if (child instanceof CfnAuthorizer) {
        const sources = child.identitySource;
        if (Array.isArray(sources) && sources.length === 0) child.addPropertyDeletionOverride('IdentitySource');
      }
    }
  }
}

function assertDeployable(route: RouteSpec) {
  // `/_dev/*` belongs to the local server only (e.g. reading SMS codes); it must never be deployed.
  if (route.path.startsWith('/_dev')) throw new Error(`Route ${route.method} ${route.path} is local-only and cannot be deployed`);
}
