import * as z from '../../lib/platform/zod.js';
import { applyDocumented, type JsonSchema, type RouteDoc, type RouteExample } from '../../lib/platform/api-doc.js';
import type { HubOperation } from '../../lib/transport/hub/operation.js';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import type { RouteSpec } from '../../lib/transport/http/routes.js';
import { ROUTE_DOCS, ROUTES } from '../../lib/transport/routes/index.js';

/**
 * Builds the OpenAPI 3.1 document from the zod schemas that validate the requests
 * (README.md, "API reference"):
 * requests from their input side (what a client sends, before trims and transforms), answers from
 * the output side. Run by `npm run openapi`, which writes lib/transport/openapi/generated/openapi.json (served by
 * lib/transport/routes/openapi.ts) and the typed client's types.
 *
 * The hub is one path with every parameter in the query; OpenAPI allows one operation per path and
 * method, so `GET /api/v1` has flat query parameters (`do` required, every other hub parameter
 * optional) plus one validator-only object parameter holding a `oneOf` of one schema per `do`
 * (components.schemas.HubQuery_<do>, each with `do: {const: <do>}`: hubOperation below); the
 * answer's `data` is an `anyOf` of HubData_<do>; and `x-hub-operations` maps each `do` to its
 * required and optional parameters, query, data, auth, scope and examples (docs/hub-api.md, "The
 * OpenAPI document").
 */
type HttpMethod = RouteSpec['method'];

export const HUB_PATH = '/api/v1';
const HUB_QUERY = (op: string) => `HubQuery_${op}`;
const HUB_DATA = (op: string) => `HubData_${op}`;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    // A request's checks that zod cannot write (lib/platform/api-doc.ts, documentAs).
    override: io === 'input' ? (ctx) => applyDocumented(ctx.zodSchema, ctx.jsonSchema as JsonSchema) : undefined,
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

function objectProperties(schema: z.ZodMiniType, what: string): { properties: Record<string, JsonSchema>; required: string[] } {
  const json = jsonSchema(schema, 'input');
  if (json.type !== 'object' || typeof json.properties !== 'object') throw new Error(`${what}: an object schema is needed for parameters`);
  return { properties: json.properties as Record<string, JsonSchema>, required: (json.required as string[] | undefined) ?? [] };
}

function parameters(schema: z.ZodMiniType | undefined, where: 'query' | 'path', what: string) {
  if (!schema) return [];
  const { properties, required } = objectProperties(schema, what);
  return Object.entries(properties).map(([name, s]) => ({ name, in: where, required: where === 'path' || required.includes(name), schema: s }));
}

const ERROR_TEXT: Record<number, string> = {
  400: 'VALIDATION_ERROR: a parameter or the body is missing, malformed or out of range; the message names it',
  401: 'AUTH_ERROR: missing, invalid, expired or ended credential',
  403: 'FORBIDDEN: authenticated but not allowed (role, scope, an access key on a role-context path), or a call that bypassed the published URL',
  404: 'NOT_FOUND',
  409: 'LIMIT_EXCEEDED: a hard quota',
  429: 'RATE_LIMITED: see the Retry-After header (seconds)',
  500: 'INTERNAL_ERROR: a bug, logged with the request id',
  503: 'UNAVAILABLE: a dependency is throttled or down; see Retry-After; nothing half-written',
};

const errorResponseRef = (status: number) => ({ $ref: `#/components/responses/Error${status}` });

function errorResponses(statuses: number[]) {
  return Object.fromEntries([...new Set(statuses)].sort().map((s) => [String(s), errorResponseRef(s)]));
}

/** Every answer has it (docs/api-keys.md, "Envelope"): the id its log lines carry. */
const requestIdHeader = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
const retryAfterHeader = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };

/**
 * The functions that read no store (lib/transport/routes/): they cannot answer 503. Every other route
 * can, when DynamoDB, Secrets Manager or SNS is throttled or down.
 */
const NO_DEPENDENCY = new Set(['health', 'openapi', 'policies', 'wellKnown']);
/**
 * A key over its per-minute limit is 429 on every route behind the authorizer (docs/api-keys.md,
 * "Per-key rate limit"): the authorizer counts the key before the route's own check refuses a key
 * (lib/transport/http/route-access.ts, principalFor), so a login-token-only route answers 429 to a
 * limited key too. Verification counts the key it verifies (its doc declares the 429).
 */
const behindAuthorizer = (auth: RouteSpec['auth']) => auth !== 'none';

const envelope = (data: JsonSchema) => ({
  type: 'object',
  properties: { code: { const: 0 }, data },
  required: ['code', 'data'],
});

/** The route's declared authorization (lib/transport/http/routes.ts, RouteAuth) as OpenAPI security requirements. */
function security(auth: RouteSpec['auth']) {
  if (auth === 'none') return [];
  if (auth === 'jwt' || auth === 'admin' || auth === 'moderator') return [{ bearerJwt: [] }];
  if (auth === 'key') return [{ accessKey: [] }];
  return [{ bearerJwt: [] }, { accessKey: [] }];
}

function requestExamples(examples: RouteExample[] | undefined) {
  return (examples ?? []).map(({ summary, path, query, body }) => ({ summary, ...(path && { path }), ...(query && { query }), ...(body !== undefined && { body }) }));
}

function routeOperation(route: RouteSpec, doc: RouteDoc) {
  const name = `${route.method} ${route.path}`;
  const hasInput = !!(doc.pathParams || doc.query || doc.body);
  const page = doc.success.kind !== 'json';
  const statuses = [
    ...doc.errors,
    ...(page ? [] : [500, 403]),
    ...(hasInput && !page ? [400] : []),
    ...(route.auth === 'none' ? [] : [401]),
    ...(NO_DEPENDENCY.has(route.function) || page ? [] : [503]),
    ...(behindAuthorizer(route.auth) ? [429] : []),
  ];
  const success =
    doc.success.kind === 'json'
      ? {
          description: 'Success: the envelope `{code: 0, data}`',
          headers: requestIdHeader,
          content: {
            'application/json': {
              schema: envelope(jsonSchema(doc.success.data, 'output')),
              ...examplesOf(doc.examples?.filter((e) => e.data !== undefined && !e.alternative).map((e) => ({ summary: e.summary, value: { code: 0, data: e.data } }))),
            },
          },
        }
      : doc.success.kind === 'html'
        ? { description: 'An HTML page', headers: requestIdHeader, content: { 'text/html': { schema: { type: 'string' } } } }
        : { description: 'A JSON file (not the envelope)', headers: requestIdHeader, content: { 'application/json': { schema: { type: 'object' } } } };
  return {
    operationId: operationId(route),
    summary: doc.summary,
    ...(doc.description && { description: doc.description }),
    tags: [doc.tag],
    security: security(route.auth),
    ...(route.scope && { 'x-scope': route.scope }),
    parameters: [...parameters(doc.pathParams, 'path', name), ...parameters(doc.query, 'query', name)],
    ...(doc.body && {
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: jsonSchema(doc.body, 'input'),
            ...examplesOf(doc.examples?.filter((e) => e.body !== undefined).map((e) => ({ summary: e.summary, value: e.body }))),
          },
        },
      },
    }),
    responses: {
      [String(doc.success.status)]: success,
      ...(doc.alternative && {
        [String(doc.alternative.status)]: {
          description: `When ${doc.alternative.when}: the envelope \`{code: 0, data}\``,
          headers: requestIdHeader,
          content: {
            'application/json': {
              schema: envelope(jsonSchema(doc.alternative.data, 'output')),
              ...examplesOf(doc.examples?.filter((e) => e.data !== undefined && e.alternative).map((e) => ({ summary: e.summary, value: { code: 0, data: e.data } }))),
            },
          },
        },
      }),
      ...errorResponses(statuses),
      ...(page && pageErrors(route, doc)),
    },
    ...(doc.examples?.length && { 'x-examples': requestExamples(doc.examples) }),
  };
}

/**
 * The answers of a page or a file besides its success (lib/transport/http/handler.ts, pageHandler): a page's
 * 404 and 503 are HTML pages (the share page: the only page that reads a store or can miss), a
 * file's 404 is the JSON error; a bug is plain text naming the request id, a call that bypassed the
 * published URL a plain-text 403.
 */
function pageErrors(route: RouteSpec, doc: RouteDoc) {
  const html = doc.success.kind === 'html';
  const text = (description: string, headers: Record<string, unknown> = {}) => ({ description, headers: { ...requestIdHeader, ...headers }, content: { 'text/plain': { schema: { type: 'string' } } } });
  const htmlPage = (description: string, headers: Record<string, unknown> = {}) => ({ description, headers: { ...requestIdHeader, ...headers }, content: { 'text/html': { schema: { type: 'string' } } } });
  return {
    '403': text('A call that bypassed the published URL'),
    ...(doc.errors.includes(404) && { '404': html ? htmlPage('The "not found" page (an unknown or expired share, a removed video), HTML') : errorResponseRef(404) }),
    '500': text('A bug, logged with the request id'),
    ...(!NO_DEPENDENCY.has(route.function) && {
      '503': html ? htmlPage('A dependency is throttled or down: the "try again" page, HTML', retryAfterHeader) : text('A dependency is throttled or down', retryAfterHeader),
    }),
  };
}

function examplesOf(list: { summary: string; value: unknown }[] | undefined) {
  if (!list?.length) return {};
  return { examples: Object.fromEntries(list.map((e, i) => [`example${i + 1}`, e])) };
}

/** The function's name, or for a function serving several routes its name plus the path's last segment. */
function operationId(route: RouteSpec): string {
  const shared = ROUTES.filter((r) => r.function === route.function).length > 1;
  if (!shared) return route.function;
  const last = route.path.split('/').pop()!.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''));
  return `${route.function}${last.charAt(0).toUpperCase()}${last.slice(1)}`;
}

/** The login token in the query of an operation that authenticates (an access key there is 401). */
const TOKEN_PARAMETER = { type: 'string', description: 'The login token (a JWT), or send it as Authorization: Bearer (a JWT or an access key); empty: as if absent' };

function hubQuerySchema(op: string, operation: HubOperation): JsonSchema {
  const { properties, required } = objectProperties(operation.query, `do=${op}`);
  return {
    type: 'object',
    properties: { do: { const: op }, ...(operation.auth !== 'none' && { token: TOKEN_PARAMETER }), ...properties },
    required: ['do', ...required],
  };
}

function hubAuth(operation: HubOperation) {
  if (operation.auth === 'none') return { auth: 'none' };
  return { auth: operation.auth, scope: operation.scope };
}

/**
 * Every hub parameter once, by name: its schema (an `anyOf` of the variants where two operations
 * describe one name differently: `token` is a JWT, or sign-up's nonce; `fav_index` a cursor, or
 * get_fav's page size) and, per `do`, whether that operation requires or allows it.
 */
function hubParameterUnion(names: string[], queries: Record<string, JsonSchema>) {
  const variants = new Map<string, Map<string, JsonSchema>>();
  const usedBy = new Map<string, string[]>();
  for (const op of names) {
    const query = queries[op]!;
    for (const [name, schema] of Object.entries(query.properties as Record<string, JsonSchema>)) {
      if (name === 'do') continue;
      const seen = variants.get(name) ?? new Map<string, JsonSchema>();
      seen.set(JSON.stringify(schema), schema);
      variants.set(name, seen);
      usedBy.set(name, [...(usedBy.get(name) ?? []), (query.required as string[]).includes(name) ? `${op} (required)` : op]);
    }
  }
  const union: Record<string, JsonSchema> = { do: { type: 'string', enum: names, description: 'The operation' } };
  for (const name of [...variants.keys()].sort()) {
    const schemas = [...variants.get(name)!.values()];
    union[name] = schemas.length === 1 ? schemas[0]! : { anyOf: schemas };
  }
  return { union, usedBy };
}

/** The name of the hub's validator parameter (docs/hub-api.md, "The OpenAPI document"): never set by a client. */
export const HUB_RULES_PARAMETER = 'hub_rules';

/**
 * The hub (docs/hub-api.md, "The OpenAPI document"): flat query parameters, `do` required (an enum
 * of every operation) and every other parameter of any operation optional, which client generators
 * read with their defaults (openapi-typescript + openapi-fetch: `params: { query: { do: 'like',
 * openid, token, vid } }`); what each `do` requires is in `do`'s description, in
 * `x-hub-operations` (`required`, `optional`, `query`, `data`) and in one more parameter,
 * HUB_RULES_PARAMETER: an optional object with `style: form, explode: true` (its properties are the
 * flat parameters themselves, never a parameter of its own on the wire) whose `oneOf` holds one
 * schema per operation, so that a validator reading the document (Prism, Ajv) refuses what the
 * server refuses for that `do` (get_fav's `fav_index=51`), which flat parameters cannot say.
 */
function hubOperation(operations: Record<string, HubOperation>, queries: Record<string, JsonSchema>) {
  const names = Object.keys(operations);
  const { union, usedBy } = hubParameterUnion(names, queries);
  const requiredOf = (op: string) => (queries[op]!.required as string[]).filter((name) => name !== 'do');
  const optionalOf = (op: string) => Object.keys(queries[op]!.properties as JsonSchema).filter((name) => name !== 'do' && !requiredOf(op).includes(name));
  const table = names.map((op) => `| ${op} | ${requiredOf(op).join(', ') || '-'} | ${optionalOf(op).join(', ') || '-'} |`).join('\n');
  const flat = Object.entries(union).map(([name, schema]) =>
    name === 'do'
      ? {
          name,
          in: 'query',
          required: true,
          description:
            'The operation. What each requires and allows (all other parameters are ignored by it; `x-hub-operations` lists the same, with the answer\'s schema):\n\n' +
            `| do | required | optional |\n|---|---|---|\n${table}`,
          schema,
        }
      : { name, in: 'query', required: false, description: `Used by: ${usedBy.get(name)!.join(', ')}`, schema },
  );
  return {
    operationId: 'hub',
    summary: 'The hub: one path, the operation named by `do`, every parameter in the query string',
    description:
      'Every parameter is a query parameter of its own (`?do=like&openid=...`): `do` is required, every other one is listed once and is optional here, as operations differ; ' +
      'what each `do` requires is in `do`\'s description and in `x-hub-operations` (`required`, `optional`; `query`: components.schemas.HubQuery_<do>, `do` a constant in it). ' +
      `\`${HUB_RULES_PARAMETER}\` is not sent: a form-exploded object whose properties are those same parameters, its \`oneOf\` the HubQuery_<do> schemas, so that validators (Prism, Ajv) check a request against its operation; clients leave it unset. ` +
      'openapi-typescript + openapi-fetch with their defaults: `client.GET("/api/v1", { params: { query: { do: "like", openid, token, vid } } })` (docs/hub-api.md, "The OpenAPI document"). ' +
      'Strings are trimmed before they are checked (surrounding whitespace is allowed and ignored); unknown parameters are ignored. ' +
      'The answer\'s `data` is the operation\'s HubData_<do> (`x-hub-operations` maps each `do` to it); ' +
      'the response schema lists them in an `anyOf`, as an answer does not name its `do` and two operations can give the same answer (an empty page of get_follow and of get_follower). ' +
      'Authentication: the `token` query parameter (a JWT only), otherwise an Authorization Bearer header (a JWT or an access key); the user must equal `openid`.',
    tags: ['Hub'],
    security: [{}, { tokenQuery: [] }, { bearerJwt: [] }, { accessKey: [] }],
    parameters: [
      ...flat,
      {
        name: HUB_RULES_PARAMETER,
        in: 'query',
        required: false,
        description:
          'Not a parameter of its own: leave it unset. The rules of each `do` for validators (`style: form, explode: true`: its properties are the query parameters above), ' +
          'one schema per operation in its `oneOf` (components.schemas.HubQuery_<do>).',
        style: 'form',
        explode: true,
        schema: {
          type: 'object',
          properties: union,
          required: ['do'],
          // No `discriminator`: each branch's `do` is a constant, which every JSON Schema validator reads;
          // a discriminator's `mapping` (needed, as the values are not the schemas' names) is refused by Ajv's.
          oneOf: names.map((op) => ref(HUB_QUERY(op))),
        },
      },
    ],
    responses: {
      '200': {
        description: "Success: the envelope `{code: 0, data}`, `data` as the operation's HubData_<do>",
        headers: requestIdHeader,
        content: { 'application/json': { schema: envelope({ anyOf: names.map((op) => ref(HUB_DATA(op))) }) } },
      },
      // 409: block_user past the most accounts one may block (lib/entities/social/blocks.ts).
      ...errorResponses([400, 401, 403, 404, 409, 429, 500, 503]),
    },
    'x-hub-operations': Object.fromEntries(
      names.map((op) => {
        const operation = operations[op]!;
        return [
          op,
          {
            summary: operation.summary,
            ...hubAuth(operation),
            required: requiredOf(op),
            optional: optionalOf(op),
            query: ref(HUB_QUERY(op)),
            data: ref(HUB_DATA(op)),
            examples: operation.examples,
          },
        ];
      }),
    ),
  };
}

export interface DocumentSources {
  routes: readonly RouteSpec[];
  routeDocs: Record<string, RouteDoc>;
  /** Each declares its own summary, answer and examples (lib/transport/hub/operation.ts). */
  hubOperations: Record<string, HubOperation>;
}

export const DEFAULT_SOURCES: DocumentSources = { routes: ROUTES, routeDocs: ROUTE_DOCS, hubOperations: HUB_OPERATIONS };

/** The document; throws naming every route of ROUTES or `do` of HUB_OPERATIONS that has no description. */
export function buildOpenApiDocument(sources: DocumentSources = DEFAULT_SOURCES) {
  const { routes, routeDocs, hubOperations } = sources;
  const missing = [
    ...routes.filter((r) => r.path !== HUB_PATH && !routeDocs[`${r.method} ${r.path}`]).map((r) => `route ${r.method} ${r.path} (give its route module a doc: lib/transport/routes/)`),
    ...Object.entries(hubOperations)
      .filter(([, operation]) => !operation.summary || !operation.examples?.length)
      .map(([op]) => `do=${op} (declare its summary and examples in its module under lib/transport/hub/)`),
  ];
  if (missing.length) throw new Error(`The OpenAPI document does not describe: ${missing.join('; ')}`);

  const hubQueries = Object.fromEntries(Object.entries(hubOperations).map(([op, operation]) => [op, hubQuerySchema(op, operation)]));
  const paths: Record<string, Partial<Record<Lowercase<HttpMethod>, unknown>>> = {};
  for (const route of routes) {
    const operation = route.path === HUB_PATH ? hubOperation(hubOperations, hubQueries) : routeOperation(route, routeDocs[`${route.method} ${route.path}`]!);
    (paths[route.path] ??= {})[route.method.toLowerCase() as Lowercase<HttpMethod>] = operation;
  }

  const schemas: Record<string, JsonSchema> = {
    Error: {
      type: 'object',
      properties: { code: { type: 'string', enum: ['VALIDATION_ERROR', 'AUTH_ERROR', 'FORBIDDEN', 'NOT_FOUND', 'LIMIT_EXCEEDED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'UNAVAILABLE'] }, error: { type: 'string' } },
      required: ['code', 'error'],
    },
  };
  for (const op of Object.keys(hubOperations)) {
    schemas[HUB_QUERY(op)] = hubQueries[op]!;
    schemas[HUB_DATA(op)] = jsonSchema(hubOperations[op]!.data, 'output');
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'expohub API',
      version: '1',
      description:
        'The industry information hub (`GET /api/v1?do=<op>`) and the access-key service. Generated from the zod schemas that validate the requests (npm run openapi). ' +
        'Every JSON answer is the envelope: `{code: 0, data}` on success, `{code: "<ERROR_CODE>", error}` on failure; every answer has an x-request-id header.',
      contact: { name: 'expohub: the API reference is GET /api/v1/docs' },
    },
    servers: [{ url: '/' }],
    tags: ['Hub', 'Access keys', 'Protected', 'Administration', 'Moderation', 'Service', 'Share pages'].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The login token of create_phone_account' },
        accessKey: { type: 'http', scheme: 'bearer', description: 'An access key (ak_...) of POST /api/v1/api-keys' },
        tokenQuery: { type: 'apiKey', in: 'query', name: 'token', description: 'Hub operations only: the login JWT as a query parameter (an access key there is 401)' },
      },
      headers: {
        RequestId: { description: 'The id of the request, in every log line it wrote', required: true, schema: { type: 'string', minLength: 1 } },
        RetryAfter: { description: 'Seconds to wait before retrying', required: true, schema: { type: 'integer', minimum: 0 } },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_TEXT).map(([status, description]) => [
          `Error${status}`,
          { description, headers: { ...requestIdHeader, ...(status === '429' || status === '503' ? retryAfterHeader : {}) }, content: { 'application/json': { schema: ref('Error') } } },
        ]),
      ),
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
