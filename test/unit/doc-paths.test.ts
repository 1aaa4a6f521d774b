import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documentation stays true to the tree: every repository path README.md, docs/*.md and the
 * comments of the code name exists, every relative Markdown link leads to a file and an anchor that exist, and every citation
 * of a section (`docs/hub-api.md, "The share page"`), in the docs or in a code comment, names a
 * heading (or a bold lead-in, or an `<a id>`) of that file. A file that moves or a section that is
 * renamed fails here, naming the line that still points at it.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Docs left out of the checks (none). */
const NOT_YET_CHECKED = new Set<string>();

/** The folders a path in the docs may start with. */
const TOP = ['lib', 'functions', 'infra', 'local', 'scripts', 'web', 'cli', 'test', 'bench', 'docs', '.ci'];
/** The code whose comments may cite a section of the docs. */
const CODE = ['lib', 'functions', 'infra', 'local', 'scripts', 'web/src', 'cli/src', 'test', 'bench'];

/** Git-ignored paths without wildcards (web/dist, cdk.out, ...): built or written by a run, never committed, so never required. */
const IGNORED = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim().replace(/\/$/, ''))
  .filter((l) => l && !l.startsWith('#') && !l.includes('*'));
const isIgnored = (path: string) => IGNORED.some((i) => path === i || path.startsWith(`${i}/`));

/** Every file and folder below `dir` (relative to the root, `/` separators), ignored ones left out. */
function walk(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .map((f) => `${dir}/${f.split(sep).join('/')}`)
    .filter((f) => !isIgnored(f) && !f.includes('/node_modules/'));
}

const TREE = TOP.flatMap((dir) => [dir, ...walk(dir)]);
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].filter((f) => !NOT_YET_CHECKED.has(f));
const CODE_FILES = CODE.flatMap(walk).filter((f) => /\.(ts|mjs)$/.test(f) && !f.startsWith('lib/transport/openapi/generated/'));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/**
 * The comments of a source file, line for line (so line numbers stay those of the file): a line's
 * `//` comment, and every line inside a block comment; code and strings become blank.
 */
function commentsOf(source: string): string {
  let inBlock = false;
  return source
    .split('\n')
    .map((line) => {
      if (inBlock) {
        const end = line.indexOf('*/');
        if (end >= 0) inBlock = false;
        return end >= 0 ? line.slice(0, end) : line;
      }
      const block = line.search(/(?<!\S)\/\*/);
      const slash = line.search(/(?<![:'"`\w])\/\/(?!\/)/);
      if (block >= 0 && (slash < 0 || block < slash)) {
        const end = line.indexOf('*/', block + 2);
        if (end < 0) inBlock = true;
        return line.slice(block + 2, end < 0 ? undefined : end);
      }
      return slash >= 0 ? line.slice(slash + 2) : '';
    })
    .join('\n');
}

interface Found {
  file: string;
  line: number;
  text: string;
}

/** Every match of `pattern` in a file, with its line number (group 1, or the whole match, as `text`). */
function matches(file: string, source: string, pattern: RegExp): (Found & { groups: string[] })[] {
  return source.split('\n').flatMap((lineText, i) =>
    [...lineText.matchAll(pattern)].map((m) => ({ file, line: i + 1, text: m[1] ?? m[0], groups: m.slice(1) as string[] })),
  );
}

/** Paths of the repository named in a text: `lib/...`, `test/...`, `docs/...` and so on, globs included. */
const PATH = new RegExp(String.raw`(?<![\w./-])((?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})\/[A-Za-z0-9_.\/{},*<>-]*[A-Za-z0-9_*}>\/])`, 'g');

/** A glob of the docs (`lib/<room>/<area>/*-api.ts`, `test/deep/faults-*.test.ts`, `lib/transport/hub/{like,dislike}.ts`, `lib/features/auth/**`) as a regular expression. */
function globPattern(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '{') out += '(?:';
    else if (c === '}') out += ')';
    else if (c === ',' && out.lastIndexOf('(?:') > out.lastIndexOf(')')) out += '|';
    else if (c === '<') {
      out += '[^/]+';
      // An unclosed `<` takes the rest of the name: indexOf's -1 would restart the loop for ever.
      const close = glob.indexOf('>', i);
      i = close === -1 ? glob.length : close;
    } else out += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out.replace(/\/$/, '')}$`);
}

/** Whether a named path (or glob) is in the tree; an ignored (built) path always is. */
function pathExists(path: string, tree: string[]): boolean {
  if (isIgnored(path)) return true;
  if (/[*{<]/.test(path)) {
    const pattern = globPattern(path);
    return tree.some((p) => pattern.test(p));
  }
  return tree.includes(path.replace(/\/$/, ''));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** What a citation may name in a Markdown file: its headings, its bold lead-ins and its `<a id>` anchors. */
function sectionsOf(markdown: string): { titles: string[]; anchors: Set<string> } {
  const headings = markdown.split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => l.replace(/^#+ /, ''));
  const bold = [...markdown.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]!);
  const ids = [...markdown.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!);
  return { titles: [...headings, ...bold], anchors: new Set([...headings.map(slug), ...ids]) };
}

/** A citation of a section: a file of docs/ (or README.md), a comma or not, the section in double quotes. */
const CITATION = /(?<![\w/-])((?:docs\/[\w-]+|README)\.md),? "([^"]+)"/g;

/** Whether `section` names one of the file's sections: case aside, a part of a heading or a bold lead-in. */
const names = (titles: string[], section: string) => titles.some((t) => t.toLowerCase().includes(section.toLowerCase()));

const SECTIONS = new Map([...DOCS, ...NOT_YET_CHECKED].map((f) => [f, sectionsOf(read(f))]));

describe('paths, links and section citations of the docs', () => {
  it('finds what it checks', () => {
    // If a pattern found nothing, the checks below would pass vacuously.
    const paths = DOCS.flatMap((f) => matches(f, read(f), PATH)).map((p) => p.text);
    expect(paths).toEqual(expect.arrayContaining(['lib/features/streams/counters.ts', 'infra/routes.ts']));
    const cited = CODE_FILES.flatMap((f) => matches(f, read(f), CITATION)).map((c) => c.groups.join(' '));
    expect(cited).toEqual(expect.arrayContaining(['docs/data-model.md Counters']));
    expect(TREE).toContain('lib/features/streams/counters.ts');
    const commented = CODE_FILES.flatMap((f) => matches(f, commentsOf(read(f)), PATH)).map((p) => p.text);
    expect(commented).toEqual(expect.arrayContaining(['lib/features/deletion/erasure.ts', 'infra/routes.ts']));
  });

  it('reads globs and sections as GitHub and a shell do', () => {
    expect(pathExists('lib/<room>/<area>/*-api.ts', ['lib/transport/hub/hub-api.ts'])).toBe(true);
    expect(pathExists('lib/transport/hub/{like,dislike}.ts', ['lib/transport/hub/dislike.ts'])).toBe(true);
    expect(pathExists('lib/transport/hub/{like,dislike}.ts', ['lib/transport/hub/likes.ts'])).toBe(false);
    expect(pathExists('lib/features/auth/**', ['lib/features/auth/jwt/x.ts'])).toBe(true);
    expect(pathExists('test/deep/faults-*.test.ts', ['test/deep/faults/hub.test.ts'])).toBe(false);
    // An unclosed `<` matches the rest of its name instead of looping for ever.
    expect(pathExists('lib/x/<name in kebab-case.ts', ['lib/x/anything'])).toBe(true);
    expect(pathExists('lib/transport/hub/accounts.ts', ['lib/entities/accounts/accounts.ts'])).toBe(false);
    // Comments only: a `/*` or `//` inside a string is code.
    expect(commentsOf("const g = 'lib/features/auth/**', u = 'http://x';\n// see lib/x.ts\n/* a\n lib/y.ts */ code('lib/z.ts')")).toBe('\n see lib/x.ts\n a\n lib/y.ts ');
    expect(slug('`GET /api/v1/audit?cursor=&limit=` — the account\'s audit trail (JWT)')).toBe('get-apiv1auditcursorlimit--the-accounts-audit-trail-jwt');
    const { titles, anchors } = sectionsOf('# A\n\n## The share page: `GET /s/{shareid}`\n\n<a id="waf"></a>**WAF.** text\n');
    expect(names(titles, 'the share page')).toBe(true);
    expect(names(titles, 'WAF')).toBe(true);
    expect(names(titles, 'Request budget')).toBe(false);
    expect(anchors).toEqual(new Set(['a', 'the-share-page-get-sshareid', 'waf']));
  });

  it('names only repository paths that exist in README.md and docs/*.md', () => {
    const missing = DOCS.flatMap((f) => matches(f, read(f), PATH)).filter((p) => !pathExists(p.text, TREE));
    expect(missing.map((p) => `${p.file}:${p.line} ${p.text}`)).toEqual([]);
  });

  it('names only repository paths that exist in the comments of the code', () => {
    const missing = CODE_FILES.flatMap((f) => matches(f, commentsOf(read(f)), PATH)).filter((p) => !pathExists(p.text, TREE));
    expect(missing.map((p) => `${p.file}:${p.line} ${p.text}`)).toEqual([]);
  });

  it('links to files and anchors that exist', () => {
    const broken = DOCS.flatMap((f) => matches(f, read(f), /\]\(([^)\s]+)\)/g))
      .filter((l) => !/^[a-z]+:/.test(l.text))
      .filter((l) => {
        const [path, anchor] = l.text.split('#');
        const target = path ? normalize(join(dirname(l.file), path)).split(sep).join('/') : l.file;
        if (!existsSync(join(ROOT, target))) return true;
        return anchor !== undefined && SECTIONS.has(target) && !SECTIONS.get(target)!.anchors.has(anchor);
      });
    expect(broken.map((l) => `${l.file}:${l.line} ${l.text}`)).toEqual([]);
  });

  it('cites sections that exist, from the docs and from the code', () => {
    const citations = [...DOCS, ...CODE_FILES].flatMap((f) => matches(f, read(f), CITATION));
    const wrong = citations.filter(({ groups: [file, section] }) => !SECTIONS.has(file!) || !names(SECTIONS.get(file!)!.titles, section!));
    expect(wrong.map((c) => `${c.file}:${c.line} ${c.groups[0]}, "${c.groups[1]}"`)).toEqual([]);
  });
});
