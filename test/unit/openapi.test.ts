import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import * as z from '../../lib/platform/zod.js';
import type { RouteDoc } from '../../lib/platform/api-doc.js';
import { defineOperation } from '../../lib/transport/hub/operation.js';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { renderReferencePage } from '../../lib/transport/openapi/reference-page.js';
import { buildOpenApiDocument, DEFAULT_SOURCES, HUB_PATH, HUB_RULES_PARAMETER, type OpenApiDocument } from '../../scripts/openapi/document.js';
import { generatedFiles } from '../../scripts/openapi/generated-files.js';
import { DEV_ROUTES } from '../../local/dev-routes.js';
import { ROUTE_DOCS, ROUTES } from '../../lib/transport/routes/index.js';

const ROOT = join(import.meta.dirname, '../..');
const served = JSON.parse(readFileSync(join(ROOT, 'lib/transport/openapi/generated/openapi.json'), 'utf8')) as OpenApiDocument;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const paths = served.paths as Record<string, Record<string, Json>>;
const hubOperation = paths[HUB_PATH]!.get!;
const hubParameters = hubOperation.parameters as Json[];
/** The hub's validator-only object parameter (docs/hub-api.md, "The OpenAPI document"). */
const hubRules = hubParameters.find((p) => p.name === HUB_RULES_PARAMETER)!;
const hubFlat = hubParameters.filter((p) => p !== hubRules);

describe('the OpenAPI document covers every route and every do', () => {
  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_, route) => {
    expect(paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path} is not in lib/transport/openapi/generated/openapi.json`).toBeDefined();
  });

  it.each(Object.keys(HUB_OPERATIONS))('do=%s: a query schema in the oneOf, its parameters among the top-level properties and the flat parameters, and its x-hub-operations entry', (op) => {
    const params = hubRules;
    expect(params).toMatchObject({ in: 'query', required: false, style: 'form', explode: true });
    expect(params.schema.oneOf).toContainEqual({ $ref: `#/components/schemas/HubQuery_${op}` });
    expect(params.schema.properties.do.enum).toContain(op);
    // A validator deserializing the form-exploded object (Prism) keeps only the keys listed at the top.
    const query = (served.components.schemas as Json)[`HubQuery_${op}`];
    expect(Object.keys(query.properties).filter((name) => !(name in params.schema.properties))).toEqual([]);
    // A client generator sends the flat parameters: each of the operation's is one, typed as in the object.
    const flat = new Map(hubFlat.map((p) => [p.name as string, p]));
    expect(Object.keys(query.properties).filter((name) => flat.get(name)?.in !== 'query')).toEqual([]);
    for (const name of Object.keys(query.properties)) expect(flat.get(name)!.schema, name).toEqual(params.schema.properties[name]);
    expect((served.components.schemas as Json)[`HubQuery_${op}`].properties.do).toEqual({ const: op });
    const entry = hubOperation['x-hub-operations'][op];
    expect(entry.query).toEqual({ $ref: `#/components/schemas/HubQuery_${op}` });
    expect(entry.data).toEqual({ $ref: `#/components/schemas/HubData_${op}` });
    // Its required and optional parameters, stated in x-hub-operations and in do's table.
    expect(entry.required).toEqual(query.required.filter((name: string) => name !== 'do'));
    expect([...entry.required, ...entry.optional, 'do'].sort()).toEqual(Object.keys(query.properties).sort());
    expect(flat.get('do')!.description).toContain(`| ${op} | ${entry.required.join(', ') || '-'} | ${entry.optional.join(', ') || '-'} |`);
  });

  it('the hub\'s flat parameters: do required, an enum of every operation; every other optional, described by the operations that use it', () => {
    const [first, ...others] = hubFlat;
    expect(first).toMatchObject({ name: 'do', in: 'query', required: true, schema: { type: 'string', enum: Object.keys(HUB_OPERATIONS) } });
    expect(others.filter((p) => p.required !== false || p.in !== 'query' || !/^Used by: /.test(p.description)).map((p) => p.name)).toEqual([]);
    expect(new Set(hubFlat.map((p) => p.name)).size).toBe(hubFlat.length);
    expect(hubFlat.map((p) => p.name).sort()).toEqual(Object.keys(hubRules.schema.properties).sort());
  });

  it('has nothing else: no path or do that the API does not serve, and no local-only route', () => {
    const served = new Set(ROUTES.map((r) => `${r.method.toLowerCase()} ${r.path}`));
    const documented = Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
    expect(documented.sort()).toEqual([...served].sort());
    expect(Object.keys(hubOperation['x-hub-operations']).sort()).toEqual(Object.keys(HUB_OPERATIONS).sort());
    for (const dev of DEV_ROUTES) expect(paths[dev.path]).toBeUndefined();
  });

  it('cannot be built when a route or a do has no description, and names each', () => {
    // tsc requires both of a declared operation; one built around it (a cast) is refused at run time too.
    const extraOperation = { ...defineOperation({ name: 'new_op', summary: 'New', auth: 'none', query: z.object({ x: z.string() }), data: z.object({}), examples: [], run: async () => ({}) }), summary: '' };
    expect(() =>
      buildOpenApiDocument({
        ...DEFAULT_SOURCES,
        routes: [...ROUTES, { method: 'GET', path: '/api/v1/not-described', function: 'me', auth: 'either' }],
        hubOperations: { ...HUB_OPERATIONS, new_op: extraOperation },
      }),
    ).toThrow(/route GET \/api\/v1\/not-described \(give its route module a doc: lib\/transport\/routes\/\); do=new_op \(declare its summary and examples in its module under lib\/transport\/hub\/\)/);
  });

  it('is a valid OpenAPI 3.1 document (Redocly\'s structural checks and its recommended rules report no error)', async () => {
    const problems = await lintFromString({
      source: readFileSync(join(ROOT, 'lib/transport/openapi/generated/openapi.json'), 'utf8'),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('compiles in Ajv 8 strict mode (the Ajv Prism validates with), and tells the hub\'s operations apart', () => {
    // Prism's own Ajv: a JSON Schema 2020-12 validator this project did not write.
    const prismHttp = dirname(createRequire(import.meta.url).resolve('@stoplight/prism-http'));
    const fromPrism = createRequire(join(prismHttp, 'index.js'));
    const { default: Ajv2020 } = fromPrism('ajv/dist/2020') as { default: new (o: object) => Json };
    const { default: addFormats } = fromPrism('ajv-formats') as { default: (ajv: Json) => void };
    const ajv = new Ajv2020({ strict: true, coerceTypes: true, allErrors: true, logger: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', $defs: served.components.schemas });
    const local = (schema: unknown) => JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"doc#/$defs/'));
    const refused: string[] = [];
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const schemas = [
          ...(op.parameters ?? []).map((p: Json) => p.schema),
          op.requestBody?.content['application/json'].schema,
          ...Object.values(op.responses as Record<string, Json>).map((r) => r.content?.['application/json']?.schema),
        ].filter(Boolean);
        for (const schema of schemas) {
          try {
            ajv.compile(local(schema));
          } catch (error) {
            refused.push(`${method} ${path}: ${(error as Error).message}`);
          }
        }
      }
    }
    expect(refused).toEqual([]);
    const hub = ajv.compile(local(hubRules.schema));
    const valid = (query: Record<string, string>) => hub(structuredClone(query)) as boolean;
    expect(valid({ do: 'like', openid: 'u_1', vid: 'v_1' })).toBe(true);
    expect(valid({ do: 'like', openid: 'u_1' })).toBe(false);
    expect(valid({ do: 'get_fav', openid: 'u_1', next_id: '0', fav_index: ' 5 ', watch_list: '', view: '', q: '' })).toBe(true);
    expect(valid({ do: 'get_fav', openid: 'u_1', next_id: '0', fav_index: '51', watch_list: '', view: '', q: '' })).toBe(false);
    expect(valid({ do: 'no_such_operation' })).toBe(false);
  });

  it('lists the statuses the code answers besides the declared ones: 429 behind the authorizer and on verify, 409 on the hub', () => {
    // A limited key is 429 on every route behind the authorizer, before the route refuses it (lib/transport/http/route-access.ts).
    const authorized = ROUTES.filter((r) => r.auth !== 'none');
    expect(authorized.filter((r) => !paths[r.path]![r.method.toLowerCase()]!.responses['429']).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // Verification counts the key it verifies (lib/features/keys/key-service.ts).
    expect(Object.keys(paths['/api/v1/api-keys/verify']!.get!.responses)).toContain('429');
    // block_user past the most accounts one may block (lib/entities/social/blocks.ts), and the sign-in, comment, share and report limits.
    expect(Object.keys(hubOperation.responses)).toEqual(expect.arrayContaining(['409', '429', '503']));
  });

  it('is OpenAPI 3.1 with one operation id per operation', () => {
    expect(served.openapi).toBe('3.1.0');
    const ids = Object.values(paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the generated files are up to date (npm run openapi)', () => {
  it('lib/transport/openapi/generated/openapi.json is what the generator writes now', async () => {
    for (const [path, text] of Object.entries(await generatedFiles())) {
      expect(readFileSync(join(ROOT, path), 'utf8'), `${path} is stale: run npm run openapi`).toBe(text);
    }
  });
});

/** Every problem of one example against its route's schemas. */
function exampleProblems(doc: RouteDoc, example: NonNullable<RouteDoc['examples']>[number]): string[] {
  const problems: string[] = [];
  const check = (what: string, schema: z.ZodMiniType | undefined, value: unknown) => {
    if (value === undefined) return;
    if (!schema) return problems.push(`${what}: the route declares no ${what} schema`);
    const result = schema.safeParse(value);
    if (!result.success) problems.push(`${what}: ${result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  };
  check('path', doc.pathParams, example.path);
  check('query', doc.query, example.query);
  check('body', doc.body, example.body);
  check('data', example.alternative ? doc.alternative?.data : doc.success.kind === 'json' ? doc.success.data : undefined, example.data);
  return problems;
}

describe('every documented example validates against the schemas', () => {
  const routeExamples = Object.entries(ROUTE_DOCS).flatMap(([route, doc]) => (doc.examples ?? []).map((e) => [`${route}: ${e.summary}`, doc, e] as const));
  it.each(routeExamples)('%s', (_, doc, example) => {
    expect(exampleProblems(doc, example)).toEqual([]);
  });

  const hubExamples = Object.entries(HUB_OPERATIONS).flatMap(([op, operation]) => operation.examples.map((e) => [`do=${op}: ${e.summary}`, op, e] as const));
  it.each(hubExamples)('%s', (_, op, example) => {
    expect(HUB_OPERATIONS[op]!.query.safeParse(example.query).error?.issues ?? []).toEqual([]);
    if (example.data !== undefined) expect(HUB_OPERATIONS[op]!.data.safeParse(example.data).error?.issues ?? []).toEqual([]);
  });

  it('every do has at least one example', () => {
    expect(Object.keys(HUB_OPERATIONS).filter((op) => !HUB_OPERATIONS[op]?.examples.length)).toEqual([]);
  });

  it('a broken example is reported, naming the field', () => {
    const doc = ROUTE_DOCS['POST /api/v1/api-keys']!;
    expect(exampleProblems(doc, { summary: 'bad', body: { name: '', expires_at: 'tomorrow' }, data: { api_key: 1 } })).toEqual([
      expect.stringMatching(/^body: name must not be empty; expires_at must be an ISO 8601 timestamp or null/),
      expect.stringMatching(/^data: api_key /),
    ]);
    expect(exampleProblems(ROUTE_DOCS['GET /api/v1/api-keys']!, { summary: 'no query here', query: { a: 'b' } })).toEqual(['query: the route declares no query schema']);
  });
});

describe('the reference page', () => {
  const page = renderReferencePage(served as Json);
  it('shows every route and every do, and links the document', () => {
    for (const route of ROUTES) expect(page).toContain(`${route.method}</span> <code>${route.path}</code>`);
    for (const op of Object.keys(HUB_OPERATIONS)) expect(page).toContain(`id="do-${op}"`);
    expect(page).toContain('href="/api/v1/openapi.json"');
  });
  it('has no script and loads nothing from elsewhere', () => {
    expect(page).not.toMatch(/<script|<link|src=|https?:\/\/(?!cdn\.example\.com|share\.example\.com)/);
  });
});
