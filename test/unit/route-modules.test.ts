import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HUB_PATH } from '../../scripts/openapi/document.js';
import { FUNCTIONS } from '../../infra/routes.js';
import { ROUTE_MODULES, ROUTES, routeEntry } from '../../lib/transport/routes/index.js';

/**
 * The route modules and their index (lib/transport/routes/index.ts) agree: every module file is listed
 * once, under the name its entry is derived from, and is the Lambda entry of its function (it exports
 * the handler its defineRoute built); no method and path is served twice; every route but the hub's
 * carries its description for the OpenAPI document. A module added without its index line fails here.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MODULE_FILES = readdirSync(join(ROOT, 'lib/transport/routes'))
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
  .map((f) => `lib/transport/routes/${f}`)
  .sort();

describe('the route modules', () => {
  it('are each listed once in the index, under the name their file is derived from', () => {
    const names = ROUTE_MODULES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.map(routeEntry).sort()).toEqual(MODULE_FILES);
  });

  it.each(ROUTE_MODULES.map((m) => [m.name, m] as const))('%s: is its function\'s entry and exports the handler it defines', async (name, m) => {
    expect(FUNCTIONS[name].entry).toBe(routeEntry(name));
    const loaded = (await import(pathToFileURL(join(ROOT, routeEntry(name))).href)) as { handler?: unknown; route?: unknown };
    expect(loaded.route).toBe(m);
    expect(loaded.handler).toBe(m.handler);
    expect(m.routes.length).toBeGreaterThan(0);
  });

  it('serve each method and path once, and describe every route but the hub\'s', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const undescribed = ROUTE_MODULES.flatMap((m) => m.routes.filter((r) => !m.docs[`${r.method} ${r.path}`]).map((r) => `${r.method} ${r.path}`));
    expect(undescribed).toEqual([`GET ${HUB_PATH}`]);
  });
});
