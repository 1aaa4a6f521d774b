import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientFile } from '../../scripts/client/generated-file.js';
import { createClient, OPERATIONS } from '../../client/src/index.js';
import { HUB_OPERATION_LIST } from '../../lib/transport/hub/operations.js';
import { ROUTES } from '../../lib/transport/routes/index.js';

/**
 * client/src/generated.ts is what `npm run client:generate` writes from the declarations, and the
 * client has a method for every hub operation and every route (nothing left out).
 */
const ROOT = join(import.meta.dirname, '../..');

describe('@expohub/client generated types', () => {
  it('is up to date with the hub operations and the routes (npm run client:generate)', async () => {
    expect(readFileSync(join(ROOT, 'client/src/generated.ts'), 'utf8')).toBe(await clientFile());
  });

  it('imports nothing: the package installs alone', () => {
    for (const file of ['generated.ts', 'index.ts']) {
      const source = readFileSync(join(ROOT, 'client/src', file), 'utf8');
      const imports = [...source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]);
      expect(imports.every((i) => i === './generated.js'), `${file}: ${imports.join(', ')}`).toBe(true);
    }
  });

  it('has a method for every hub operation and every route', () => {
    const table = Object.values(OPERATIONS) as { kind: string; do?: string; method: string; path: string }[];
    expect(table.filter((o) => o.kind === 'hub').map((o) => o.do)).toEqual(HUB_OPERATION_LIST.map((o) => o.name));
    expect(table.filter((o) => o.kind === 'route').map((o) => `${o.method} ${o.path}`)).toEqual(ROUTES.filter((r) => r.function !== 'hub').map((r) => `${r.method} ${r.path}`));
    const client = createClient({ baseUrl: 'http://127.0.0.1:1' }) as unknown as Record<string, Record<string, unknown>>;
    for (const [name, spec] of Object.entries(OPERATIONS)) {
      const [group, member] = name.split('.') as [string, string];
      expect(typeof client[group]?.[member], name).toBe('function');
      if ('page' in spec) expect(typeof client[group]?.[`${member}Pages`], name).toBe('function');
    }
  });

  it('client/README.md lists every method with its do or route', () => {
    const readme = readFileSync(join(ROOT, 'client/README.md'), 'utf8');
    for (const [name, spec] of Object.entries(OPERATIONS)) {
      const [group, member] = name.split('.') as [string, string];
      const line = readme.split('\n').find((l) => l.startsWith(`- **${group}**: `));
      const what = spec.kind === 'hub' ? `\`do=${spec.do}\`` : `\`${spec.method} ${spec.path}\``;
      expect(line, name).toContain(`\`${member}\``);
      expect(line, name).toContain(what);
    }
  });

  it('retries only what is safe to repeat: GET routes and the hub operations that read', () => {
    for (const [name, spec] of Object.entries(OPERATIONS)) {
      if (spec.kind === 'route') expect(spec.idempotent, name).toBe(spec.method === 'GET');
      else expect(spec.idempotent, name).toBe(HUB_OPERATION_LIST.some((o) => o.name === spec.do && 'scope' in o && o.scope === 'hub:read'));
    }
    expect(OPERATIONS['comments.post'].idempotent).toBe(false);
    expect(OPERATIONS['feed.next'].idempotent).toBe(true);
  });
});
