import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnAuthorizer,
  CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  type HttpRoute,
  HttpStage,
  LogGroupLogDestination,
  type HttpRouteIntegration,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ROUTES, usesAuthorizer, type FunctionName, type RouteSpec } from '../routes.js';
import type { ApiFunctions } from './api-functions.js';

/** Throttles of the `$default` stage (every route) and of routes that need a lower one, by function. */
export interface ApiThrottles {
  stage: { rateLimit: number; burstLimit: number };
  routes: Partial<Record<FunctionName, { rateLimit: number; burstLimit: number }>>;
}

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
  throttles: ApiThrottles;
  /** The access log's fate when the stack is deleted. */
  logRemovalPolicy?: RemovalPolicy;
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
  private readonly routes = new Map<string, HttpRoute>();

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

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttles.stage,
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
      const [added] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationFor(route.function),
        authorizer: usesAuthorizer(route) ? authorizer : new HttpNoneAuthorizer(),
      });
      this.routes.set(`${route.method} ${route.path}`, added!);
      if (route.auth === 'none') publicRoutes.push(`${route.method} ${route.path}`);
    }

    this.dropEmptyIdentitySource();
    this.throttleRoutes(props.throttles.routes);

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
   * Per-route throttles on the stage (route settings keyed by route key), for each route of the
   * functions named. A route's setting needs the route to exist first.
   */
  private throttleRoutes(routes: ApiThrottles['routes']) {
    const settings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    for (const route of ROUTES) {
      const throttle = routes[route.function];
      if (!throttle) continue;
      const key = `${route.method} ${route.path}`;
      settings[key] = { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit };
      this.stage.node.addDependency(this.routes.get(key)!);
    }
    if (Object.keys(settings).length > 0) (this.stage.node.defaultChild as CfnStage).routeSettings = settings;
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
