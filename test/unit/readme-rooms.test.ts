import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * README.md's picture of lib/ (section "Architecture") names exactly the folders `ls lib/*\/` shows:
 * every room and every folder in it, nothing else. And its dependency tables name exactly the
 * packages of package.json. A folder added, moved or removed without the README fails here.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

const foldersIn = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);

/** The folders under `lib/` in the README's first code block that starts with `lib/`, as `room/` and `room/folder/`. */
export function pictureOfLib(readme: string): string[] {
  const block = [...readme.matchAll(/^```\w*\n([\s\S]*?)^```/gm)].map((m) => m[1]!).find((b) => b.startsWith('lib/\n'));
  if (!block) throw new Error('README.md has no picture of lib/ (a code block starting with "lib/")');
  const named: string[] = [];
  let room = '';
  for (const line of block.split('\n').slice(1)) {
    const entry = /^( +)([\w.-]+)\//.exec(line);
    if (!entry) {
      if (/^\S/.test(line)) break; // the next top-level folder (functions/, ...): lib/ is over
      continue;
    }
    const depth = entry[1]!.length;
    if (depth === 2) {
      room = entry[2]!;
      named.push(`${room}/`);
    } else if (depth === 4) named.push(`${room}/${entry[2]}/`);
  }
  return named;
}

describe("README.md's picture of the rooms", () => {
  it('names every room of lib/ and every folder in it, and nothing else', () => {
    const actual = foldersIn('lib').flatMap((room) => [`${room}/`, ...foldersIn(`lib/${room}`).map((f) => `${room}/${f}/`)]);
    // Not vacuous: the four rooms and the folders below them.
    expect(actual).toEqual(expect.arrayContaining(['platform/', 'entities/', 'features/', 'transport/', 'platform/db/']));
    expect(pictureOfLib(README).sort()).toEqual(actual.sort());
  });

  it('reads the picture by indentation: rooms at two spaces, their folders at four', () => {
    const readme = '# x\n\n```sh\nnpm start\n```\n\n```\nlib/\n  a/        room\n    b/      folder\n      c/    deeper: not a folder of a room\n  d/\nweb/       not lib\n  e/\n```\n';
    expect(pictureOfLib(readme)).toEqual(['a/', 'a/b/', 'd/']);
    expect(() => pictureOfLib('no picture')).toThrow(/no picture of lib/);
  });
});

describe("README.md's dependency tables", () => {
  it('name every package of package.json, and only those', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const section = README.slice(README.indexOf('## Dependencies'), README.indexOf('\n## ', README.indexOf('## Dependencies') + 1));
    const named = section
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    expect(named.sort()).toEqual([...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].sort());
  });
});
