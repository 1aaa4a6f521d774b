import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HUB_OPERATION_LIST, HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { HUB_SAMPLES, PLACEHOLDER_WORLD } from '../support/hub-operations.js';

const ROOT = join(import.meta.dirname, '../..');
const names = HUB_OPERATION_LIST.map((operation) => operation.name);

describe('the list of hub operations (lib/transport/hub/operations.ts)', () => {
  it('names each do once, and is the dispatch table', () => {
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((name) => /^[a-z][a-z0-9_]*$/.test(name))).toBe(true);
    expect(Object.keys(HUB_OPERATIONS)).toEqual(names);
  });

  it('has an entry in test/support/hub-operations.ts for each do, and none left over', () => {
    expect(names.filter((name) => !Object.hasOwn(HUB_SAMPLES, name))).toEqual([]);
    expect(Object.keys(HUB_SAMPLES).filter((name) => !names.includes(name))).toEqual([]);
  });

  it.each(HUB_OPERATION_LIST.map((operation) => [operation.name, operation] as const))('do=%s: declared as the contract says (test/support/hub-operations.ts), and its sample parameters pass its validation', (name, operation) => {
    const sample = HUB_SAMPLES[name]!;
    const declared = operation.auth === 'none' ? 'none' : operation.loginTokenOnly ? 'login token only' : operation.scope;
    expect(declared).toBe(sample.access);
    expect(operation.query.safeParse({ openid: 'u_sample', ...sample.params(PLACEHOLDER_WORLD) }).error?.issues ?? []).toEqual([]);
  });
});

describe('the API reference', () => {
  // A section per do, `## <do>` or a heading naming several (`## get_follow / get_follower`).
  const headings = ['docs/hub-api.md', 'docs/hub-feed-api.md'].flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^## (.+)$/gm)].flatMap((m) => m[1]!.split('/').map((part) => part.trim())),
  );
  it.each(names)('has a section for do=%s in docs/hub-api.md or docs/hub-feed-api.md', (name) => {
    expect(headings).toContain(name);
  });
});
