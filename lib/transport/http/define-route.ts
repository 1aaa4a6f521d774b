import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { RouteDoc } from '../../platform/api-doc.js';
import type * as z from '../../platform/zod.js';
import { httpHandler, pageHandler, type ChainDeclaration, type PageRequest, type PageResult, type RouteHandler } from './handler.js';
import type { ApiEvent } from './request.js';
import type { HttpMethod, RouteAuth, RouteSpec } from './routes.js';
import type { Scope } from '../../features/auth/scope-gate.js';

/**
 * The DynamoDB actions a function may call on a table (IAM names). A transaction needs the action of
 * each of its items (PutItem, UpdateItem, DeleteItem, ConditionCheckItem); there is no Scan: request
 * paths query, never scan (docs/data-model.md).
 */
export type DynamoAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem' | 'ConditionCheckItem';

export interface TableGrant {
  actions: DynamoAction[];
  /** Global secondary indexes the function queries (Query on `<table>/index/<name>`); none when absent. */
  indexes?: string[];
}

/** What a deployed function needs (infra/constructs/api-functions.ts builds it from this). */
export interface FunctionNeeds {
  description: string;
  /**
   * Exactly the DynamoDB actions the function's code path sends, per table (test/infra/grants.test.ts
   * checks them against the commands in the function's bundle).
   */
  tables: { apiKeys?: TableGrant; hub?: TableGrant };
  /** Needs the signing secret (issues or verifies login tokens, signs cursors). */
  jwtSecret?: boolean;
  /** Sends SMS through Amazon SNS. */
  sms?: boolean;
  /** Reads a secret other than the signing and origin secrets (the canary key's): gets the secrets extension (infra/constructs/expohub-function.ts). */
  secrets?: boolean;
  memoryMb?: number;
  timeoutSeconds?: number;
}

/** A route's description in the OpenAPI document, but for its request schemas, which come from the route's `request`. */
export type RouteDocPart = Omit<RouteDoc, 'pathParams' | 'query' | 'body'>;

/** A method and path the function serves; `doc` when its routes are described differently (the documents, the app-association files). */
export interface RouteLine {
  method: HttpMethod;
  /** API Gateway path syntax: `{name}` is a path parameter. */
  path: string;
  doc?: RouteDocPart;
}

interface Declared<N extends string> extends FunctionNeeds {
  /** The function's name (CDK logical id, FUNCTIONS key); its module is lib/transport/routes/<kebab-name>.ts (the name in kebab case). */
  name: N;
  routes: readonly RouteLine[];
  /** The description of every route of `routes` that has no `doc` of its own (none: the hub, described from its operations). */
  doc?: RouteDocPart;
}

export interface JsonRouteDeclaration<N extends string, P, Q, B, G> extends Declared<N>, ChainDeclaration<P, Q, B, G> {
  handler: RouteHandler<P, Q, B, G>;
}

/** A route that answers a page or a file rather than the envelope: no credential, no validation but the front door's. */
export interface PageRouteDeclaration<N extends string> extends Declared<N> {
  auth: 'none';
  /** Documented only: a page answers any value with a page (404 for an unknown one). */
  request?: { path?: z.ZodMiniType };
  page: (request: PageRequest) => Promise<PageResult>;
  unavailable?: (request: PageRequest) => PageResult;
}

export type LambdaHttpHandler = (event: ApiEvent, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** What a route module declares, as the index (lib/transport/routes/index.ts) and everything derived from it read it. */
export interface RouteModule<N extends string = string> {
  name: N;
  needs: FunctionNeeds;
  auth: RouteAuth;
  scope?: Scope;
  /** Its rows of the route table. */
  routes: readonly RouteSpec<N>[];
  /** `"METHOD path"` -> its description for the OpenAPI document (absent for the hub's route). */
  docs: Readonly<Record<string, RouteDoc>>;
  /** The Lambda handler (the module exports it as `handler`). */
  handler: LambdaHttpHandler;
}

function moduleOf<N extends string>(declared: Declared<N> & { auth: RouteAuth; scope?: Scope; request?: { path?: z.ZodMiniType; query?: z.ZodMiniType; body?: z.ZodMiniType } }, handler: LambdaHttpHandler): RouteModule<N> {
  const { name, routes, doc, auth, scope, request, description, tables, jwtSecret, sms, secrets, memoryMb, timeoutSeconds } = declared;
  const docs: Record<string, RouteDoc> = {};
  for (const line of routes) {
    const part = line.doc ?? doc;
    if (part) docs[`${line.method} ${line.path}`] = { ...part, pathParams: request?.path, query: request?.query, body: request?.body };
  }
  const needs: FunctionNeeds = { description, tables, jwtSecret, sms, secrets, memoryMb, timeoutSeconds };
  for (const key of Object.keys(needs) as (keyof FunctionNeeds)[]) if (needs[key] === undefined) delete needs[key];
  return {
    name,
    needs,
    auth,
    scope,
    routes: routes.map(({ method, path }) => ({ method, path, function: name, auth, ...(scope && { scope }), ...(request?.body && { body: 'json' as const }) })),
    docs,
    handler,
  };
}

/**
 * One route module (lib/transport/routes/<name>.ts): the function that serves the routes, what it
 * needs, the routes with who may call them and their request schemas, their description for the
 * OpenAPI document, and the handler, which the shared chain (lib/transport/http/handler.ts) runs once
 * the request is authenticated and parsed. `page` instead of `handler`: a page or a file.
 */
export function defineRoute<const N extends string, P = Record<string, string>, Q = Record<string, string>, B = undefined, G = undefined>(
  declared: JsonRouteDeclaration<N, P, Q, B, G>,
): RouteModule<N>;
export function defineRoute<const N extends string>(declared: PageRouteDeclaration<N>): RouteModule<N>;
export function defineRoute<const N extends string>(declared: JsonRouteDeclaration<N, unknown, unknown, unknown, unknown> | PageRouteDeclaration<N>): RouteModule<N> {
  if ('page' in declared) {
    if ((declared.auth as RouteAuth) !== 'none') throw new Error(`${declared.name}: a page serves routes declared auth none`);
    return moduleOf(declared, pageHandler(declared.page, { unavailable: declared.unavailable }) as unknown as LambdaHttpHandler);
  }
  return moduleOf(declared, httpHandler(declared, declared.handler) as unknown as LambdaHttpHandler);
}
