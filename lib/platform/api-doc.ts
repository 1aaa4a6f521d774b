import type * as z from './zod.js';

/**
 * The description of one HTTP route for the generated OpenAPI document (scripts/openapi/): the zod
 * schemas that validate its request, the schema of its answer's `data`, and examples. A route module
 * (lib/transport/routes/) declares it beside the schemas the shared chain validates the request with,
 * so the document and the validation share one source; lib/transport/routes/index.ts lists them.
 * A leaf module (no imports but types; a WeakMap for documentAs): any use case may declare one.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** Groups routes on the reference page. */
  tag: 'Hub' | 'Access keys' | 'Protected' | 'Administration' | 'Moderation' | 'Service' | 'Share pages';
  /** Path parameters, one string property per `{name}` of the path. */
  pathParams?: z.ZodMiniType;
  /** Query parameters: an object schema of strings (its input side is documented). */
  query?: z.ZodMiniType;
  /** A JSON body. */
  body?: z.ZodMiniType;
  /** The success answer. `json`: the envelope `{code: 0, data}`; other kinds are files or pages. */
  success:
    | { status: 200 | 201 | 202; kind: 'json'; data: z.ZodMiniType }
    | { status: 200; kind: 'html' | 'file' };
  /** A second success answer, chosen by a request parameter (a dry run): its status must differ from `success`'s. */
  alternative?: { status: 200; when: string; data: z.ZodMiniType };
  /** The statuses of the envelope (docs/api-keys.md, "Envelope") this route can answer besides its success (400 and 500 are implied where they apply). */
  errors: number[];
  /** Request examples; each must validate against the schemas above (test/unit/openapi.test.ts). */
  examples?: RouteExample[];
}

export interface RouteExample {
  summary: string;
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** The answer's `data`, validated against the route's data schema (the alternative's when `alternative`). */
  data?: unknown;
  alternative?: boolean;
}

/** True when A and B are the same type: a documented schema's output checked against the type the code returns. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Keeps a literal's types while checking it is a RouteDoc. */
export const defineRouteDoc = (doc: RouteDoc): RouteDoc => doc;

/** A JSON Schema, as the OpenAPI document writes it. */
export type JsonSchema = Record<string, unknown>;

type How = 'replace' | 'add' | 'fill';
const WIRE = new WeakMap<object, { json: JsonSchema; how: How }>();

/**
 * What the document shows for a request schema whose checks zod cannot write as JSON Schema (a
 * refinement, a transform from the query string's text): `replace` puts `json` in place of zod's
 * own, `add` sets its keywords over zod's (a pattern for a refinement), `fill` only those zod's lacks
 * (the text check's pattern, which a stricter pattern of the same schema wins over). Helpers that build the zod
 * check and this JSON Schema from the same constants (lib/transport/hub/params.ts, lib/platform/text.ts) use it, so the
 * document says what the server enforces (docs/hub-api.md, "The OpenAPI document").
 * Returns `schema` itself.
 */
export function documentAs<S extends object>(schema: S, json: JsonSchema, how: How = 'replace'): S {
  WIRE.set(schema, { json, how });
  return schema;
}

/**
 * The JSON Schema documentAs gave `schema`, applied to zod's `generated` one (in place). A schema
 * made by adding checks to a documented one (`s.check(...)` clones `s`, zod keeps it as `_zod.parent`)
 * keeps what `add` and `fill` said of its parents: more checks only narrow what they describe.
 */
export function applyDocumented(schema: object, generated: JsonSchema): void {
  const chain: { json: JsonSchema; how: How }[] = [];
  for (let s: object | undefined = schema, own = true; s; s = (s as { _zod?: { parent?: object } })._zod?.parent, own = false) {
    const wire = WIRE.get(s);
    if (wire && (own || wire.how !== 'replace')) chain.unshift(wire);
  }
  for (const wire of chain) {
    if (wire.how === 'replace') for (const key of Object.keys(generated)) delete generated[key];
    for (const [key, value] of Object.entries(wire.json)) if (wire.how !== 'fill' || !(key in generated)) generated[key] = structuredClone(value);
  }
}
