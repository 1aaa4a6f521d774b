import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layering of lib/ (README "Architecture"): lib/ holds four rooms, in order
 * platform, entities, features, transport, and an import points to its own room or a lower one.
 * Each folder of a room (lib/entities/accounts, ...) is one node and each file directly in a room
 * (lib/platform/config.ts, ...) a node of its own; no two nodes import each other, directly or around
 * a longer loop. And no two files of the code import each other, in any folder.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LIB = join(ROOT, 'lib');

interface Edge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

/** Every .ts file below lib/, as a path relative to the repository root with `/` separators. */
function libFiles(): string[] {
  return (readdirSync(LIB, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `lib/${f.split(sep).join('/')}`)
    .sort();
}

/**
 * The relative specifiers of a file: static `import`/`export ... from` and dynamic `import('...')`,
 * read by TypeScript's own scanner, so comments and strings that merely look like imports are not
 * counted.
 */
function relativeImports(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** The path an import points to, relative to the repository root. */
const target = (file: string, specifier: string) => relative(ROOT, resolve(ROOT, dirname(file), specifier)).split(sep).join('/');

/** The rooms of lib/, lowest first. */
const ROOMS = ['platform', 'entities', 'features', 'transport'];

/**
 * lib/transport/hub/like.ts -> "transport/hub"; lib/platform/errors.ts -> "platform/errors.ts";
 * anything outside lib/ -> undefined.
 */
function nodeOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'lib' || parts.length < 3) return undefined;
  return parts.length === 3 ? `${parts[1]}/${parts[2]!.replace(/\.js$/, '.ts')}` : `${parts[1]}/${parts[2]}`;
}

/** The rank of a node's room: 0 for platform ... 3 for transport. */
const rankOf = (node: string) => ROOMS.indexOf(node.split('/')[0]!);

const files = libFiles();
const imports = files.flatMap((file) => relativeImports(file).map((specifier) => ({ file, specifier, path: target(file, specifier) })));
const edges: Edge[] = imports.flatMap(({ file, specifier, path }) => {
  const from = nodeOf(file)!;
  const to = nodeOf(path);
  return to && to !== from ? [{ from, to, file, specifier }] : [];
});

function graphOf(list: Edge[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const e of list) {
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    graph.get(e.from)!.add(e.to);
  }
  return graph;
}

/** One cycle per back edge of a depth-first search, each as its nodes in order, closing on the first. */
function findCycles(graph: Map<string, Set<string>>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** "hub -> recommend -> hub", then for each step one file import that makes it. */
function describeCycle(cycle: string[]): string {
  const steps = cycle.slice(1).map((to, i) => {
    const from = cycle[i]!;
    const e = edges.find((x) => x.from === from && x.to === to)!;
    return `  ${from} -> ${to}: ${e.file} imports '${e.specifier}'`;
  });
  return [cycle.join(' -> '), ...steps].join('\n');
}

/** Every .ts file of the code (lib/, bench/, infra/, local/, scripts/, functions/, web/src/, cli/src/), relative to the root. */
function codeFiles(): string[] {
  return ['lib', 'bench', 'infra', 'local', 'scripts', 'functions', 'web/src', 'cli/src'].flatMap((dir) =>
    (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => `${dir}/${f.split(sep).join('/')}`),
  );
}

/** file -> the files it imports (`.js` specifiers name their `.ts` source), type-only imports included. */
const fileGraph = new Map(
  codeFiles().map((file) => [file, new Set(relativeImports(file).map((specifier) => target(file, specifier).replace(/\.js$/, '.ts')))]),
);

describe('module layers of lib/', () => {
  it('reads the imports of every lib/ file', () => {
    expect(files.length).toBeGreaterThan(50);
    // A known downward edge: if parsing found nothing, the checks below would pass vacuously.
    expect(graphOf(edges).get('entities/comments')).toContain('platform/db');
  });

  it('holds the four rooms and nothing else directly in lib/', () => {
    expect(readdirSync(LIB).sort()).toEqual([...ROOMS].sort());
  });

  it('imports only from the same room or a lower one (platform < entities < features < transport)', () => {
    const upward = edges.filter((e) => rankOf(e.to) > rankOf(e.from));
    expect(upward.map((e) => `${e.file} (${e.from}) imports '${e.specifier}' (${e.to})`)).toEqual([]);
  });

  it('has no import cycle between lib/ folders', () => {
    const cycles = findCycles(graphOf(edges));
    expect(cycles.length, `Import cycles between lib/ folders:\n${cycles.map(describeCycle).join('\n')}`).toBe(0);
  });

  it('has no import cycle between files of the code (lib/, bench/, infra/, local/, scripts/, functions/, web/src/, cli/src/)', () => {
    expect(fileGraph.get('lib/entities/social/blocks.ts')).toContain('lib/entities/social/block-items.ts');
    const cycles = findCycles(fileGraph);
    expect(cycles.map((c) => c.join(' -> '))).toEqual([]);
  });

  it('keeps the files directly in lib/platform/ leaves: they import no folder', () => {
    const leaves = files.filter((f) => f.split('/').length === 3);
    expect(leaves).toEqual(expect.arrayContaining(['lib/platform/config.ts', 'lib/platform/clock.ts', 'lib/platform/logger.ts', 'lib/platform/errors.ts', 'lib/platform/error-mapper.ts', 'lib/platform/ids.ts']));
    const upward = imports.filter(({ file, path }) => leaves.includes(file) && path.startsWith('lib/') && path.split('/').length > 3);
    expect(upward.map(({ file, specifier }) => `${file} imports '${specifier}'`)).toEqual([]);
  });

  it('never imports functions/ (or anything else outside lib/) from lib/', () => {
    const outside = imports.filter(({ path }) => !path.startsWith('lib/'));
    expect(outside.map(({ file, specifier }) => `${file} imports '${specifier}'`)).toEqual([]);
  });
});
