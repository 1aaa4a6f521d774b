import type { JsonSchema } from '../../lib/platform/api-doc.js';
import { HUB_NAMES, ROUTE_NAMES, type Paging } from './names.js';

/**
 * The text of client/src/generated.ts: for every hub operation (lib/transport/hub/operations.ts) and
 * every route (lib/transport/routes/index.ts) its parameter and answer types, written from the same zod
 * declarations as the OpenAPI document (zod's JSON Schema, then a small JSON-Schema-to-TypeScript
 * emitter below: the package imports neither zod nor lib/), and the table the client calls them by.
 * Idempotent (retried on 429/503): every GET route and every hub operation whose scope is `hub:read`
 * (they read; get_next_list's record of views is a set, so a repeat changes nothing).
 * test/unit/client-generated.test.ts fails when the committed file differs from this.
 */
export async function clientFile(): Promise<string> {
  process.env.API_KEYS_TABLE ??= 'openapi-generation';
  process.env.HUB_TABLE ??= 'openapi-generation';
  if (!process.env.JWT_SECRET && !process.env.JWT_SECRET_ARN) process.env.JWT_SECRET = 'openapi-generation-placeholder-not-a-secret-000000';
  const z = await import('../../lib/platform/zod.js');
  const { applyDocumented } = await import('../../lib/platform/api-doc.js');
  const { HUB_OPERATION_LIST } = await import('../../lib/transport/hub/operations.js');
  const { ROUTES, ROUTE_DOCS } = await import('../../lib/transport/routes/index.js');

  const json = (schema: unknown, io: 'input' | 'output'): JsonSchema =>
    z.toJSONSchema(schema as never, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
      override: io === 'input' ? (ctx) => applyDocumented(ctx.zodSchema, ctx.jsonSchema as JsonSchema) : undefined,
    }) as JsonSchema;

  const lines: string[] = [];
  const table: string[] = [];
  const ops: string[] = [];
  const seen = new Set<string>();
  const typeName = (name: string) => name.replace(/(^|\.)([a-z])/g, (_, __, c: string) => c.toUpperCase());
  /** A paged list's cursor must be one of its parameters, and what continues it a field of its answer. */
  const checkPage = (name: string, page: Paging | undefined, params: Record<string, unknown>, data: JsonSchema) => {
    const fields = (data.properties ?? {}) as Record<string, unknown>;
    if (page && (!(page.param in params) || !(page.next in fields) || (page.end === 'has_more' && !('has_more' in fields)))) throw new Error(`${name}: its paging does not match its parameters and answer`);
  };
  const entry = (name: string, fields: Record<string, unknown>, page: Paging | undefined) => {
    if (seen.has(name)) throw new Error(`client name ${name} used twice`);
    seen.add(name);
    table.push(`  '${name}': ${JSON.stringify({ ...fields, ...(page && { page }) })},`);
  };

  for (const op of HUB_OPERATION_LIST) {
    const named = HUB_NAMES[op.name];
    if (!named) throw new Error(`hub operation ${op.name} has no client name in scripts/client/names.ts`);
    const t = typeName(named.name);
    const query = json(op.query, 'input');
    const props = { ...(query.properties as Record<string, JsonSchema>) };
    let required = ((query.required as string[] | undefined) ?? []).filter((p) => p in props);
    // The client sends `openid` from the session when it is not given (an operation that authenticates).
    if (op.auth !== 'none') required = required.filter((p) => p !== 'openid');
    // Sign-in ends the device's previous session: the client sends the stored one (or nothing).
    if (op.name === 'create_phone_account') required = required.filter((p) => p !== 'openid0' && p !== 'token0');
    // A context parameter the API requires but accepts empty (docs/hub-api.md, "Rules shared by every operation": `d`, `watch_list`, `view`, `q`,
    // `locale`, `country`): the client sends '' when it is not given.
    const shape = (op.query as unknown as { _zod: { def: { shape?: Record<string, unknown> } } })._zod.def.shape ?? {};
    const empty = required.filter((p) => MAY_BE_EMPTY.includes(p) && shape[p] && (shape[p] as { safeParse(v: unknown): { success: boolean } }).safeParse('').success);
    required = required.filter((p) => !empty.includes(p));
    lines.push(`/** ${op.summary} (hub \`do=${op.name}\`). */`);
    lines.push(`export type ${t}Params = ${emit({ type: 'object', properties: props, required, 'x-params': true }, '')};`);
    const data = json(op.data, 'output');
    checkPage(named.name, named.page, props, data);
    lines.push(`export type ${t}Data = ${emit(data, '')};`);
    ops.push(`  '${named.name}': { params: ${t}Params; data: ${t}Data };`);
    const idempotent = 'scope' in op && op.scope === 'hub:read';
    entry(named.name, { kind: 'hub', method: 'GET', path: '/api/v1', do: op.name, auth: op.auth, idempotent, ...(empty.length > 0 && { empty }) }, named.page);
  }

  for (const route of ROUTES) {
    const key = `${route.method} ${route.path}`;
    if (route.function === 'hub') continue;
    const named = ROUTE_NAMES[key];
    if (!named) throw new Error(`route ${key} has no client name in scripts/client/names.ts`);
    const doc = ROUTE_DOCS[key];
    if (!doc) throw new Error(`route ${key} has no doc`);
    const t = typeName(named.name);
    const parts: { where: string; schema: JsonSchema }[] = [];
    if (doc.pathParams) parts.push({ where: 'path', schema: json(doc.pathParams, 'input') });
    if (doc.query) parts.push({ where: 'query', schema: json(doc.query, 'input') });
    if (doc.body) parts.push({ where: 'body', schema: json(doc.body, 'input') });
    const props: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const where: Record<string, string> = {};
    for (const part of parts) {
      if (part.schema.type !== 'object') throw new Error(`${key}: the ${part.where} is not an object`);
      for (const [name, s] of Object.entries(part.schema.properties as Record<string, JsonSchema>)) {
        if (name in props) throw new Error(`${key}: ${name} is both a ${where[name]} and a ${part.where} parameter`);
        props[name] = s;
        where[name] = part.where;
        if (part.where === 'path' || ((part.schema.required as string[] | undefined) ?? []).includes(name)) required.push(name);
      }
    }
    if (doc.success.kind === 'json') checkPage(named.name, named.page, props, json(doc.success.data, 'output'));
    const data = doc.success.kind === 'json' ? emit(json(doc.success.data, 'output'), '') : 'string';
    const alternative = doc.alternative ? ` | ${emit(json(doc.alternative.data, 'output'), '')}` : '';
    lines.push(`/** ${doc.summary} (\`${key}\`). */`);
    lines.push(`export type ${t}Params = ${emit({ type: 'object', properties: props, required, 'x-params': true }, '')};`);
    lines.push(`export type ${t}Data = ${data}${alternative};`);
    ops.push(`  '${named.name}': { params: ${t}Params; data: ${t}Data };`);
    const body = Object.keys(where).filter((n) => where[n] === 'body');
    const query = Object.keys(where).filter((n) => where[n] === 'query');
    entry(
      named.name,
      { kind: 'route', method: route.method, path: route.path, auth: route.auth, idempotent: route.method === 'GET', answer: doc.success.kind, query, body: doc.body ? body : null },
      named.page,
    );
  }
  for (const name of Object.values(HUB_NAMES).map((n) => n.name).concat(Object.values(ROUTE_NAMES).map((n) => n.name))) {
    if (!seen.has(name)) throw new Error(`client name ${name} names no operation`);
  }

  return [
    '/* Generated by `npm run client:generate` (scripts/client/generate.ts) from the hub operations and the routes: do not edit. */',
    '',
    ...lines,
    '',
    '/** Every method of the client: its parameters and the answer\'s `data`. */',
    'export interface Operations {',
    ...ops,
    '}',
    '',
    '/** How each method is called: the hub `do` or the route, the credential, whether a retry is safe. */',
    'export const OPERATIONS = {',
    ...table,
    '} as const;',
    '',
  ].join('\n');
}

const MAY_BE_EMPTY = ['d', 'watch_list', 'view', 'q', 'locale', 'country'];
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON Schema (as zod writes it) as a TypeScript type. */
export function emit(s: JsonSchema | boolean | undefined, indent: string): string {
  if (s === undefined || s === true) return 'unknown';
  if (s === false) return 'never';
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ') || 'never';
  const union = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (union) return [...new Set(union.map((u) => wrap(emit(u, indent))))].join(' | ');
  if (Array.isArray(s.allOf)) return (s.allOf as JsonSchema[]).map((u) => wrap(emit(u, indent))).join(' & ');
  if (Array.isArray(s.type)) return (s.type as string[]).map((type) => emit({ ...s, type }, indent)).join(' | ');
  switch (s.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      if (Array.isArray(s.prefixItems)) return `[${(s.prefixItems as JsonSchema[]).map((i) => emit(i, indent)).join(', ')}]`;
      return `${wrap(emit(s.items as JsonSchema, indent))}[]`;
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((s.required as string[] | undefined) ?? []);
      const inner = `${indent}  `;
      const fields = Object.entries(props).map(([name, p]) => {
        const doc = typeof p.description === 'string' ? `${inner}/** ${p.description.replace(/\*\//g, '* /')} */\n` : '';
        return `${doc}${inner}${IDENT.test(name) ? name : JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${emit(p, inner)};`;
      });
      const extra = s.additionalProperties;
      if (extra && typeof extra === 'object') fields.push(`${inner}[key: string]: ${emit(extra as JsonSchema, inner)};`);
      if (fields.length === 0) return extra === false || s['x-params'] ? 'Record<string, never>' : 'Record<string, unknown>';
      return `{\n${fields.join('\n')}\n${indent}}`;
    }
    default:
      return 'unknown';
  }
}

const wrap = (t: string) => (/^[\w"[\]<>, ]+$/.test(t) && !t.includes(' | ') ? t : `(${t})`);
