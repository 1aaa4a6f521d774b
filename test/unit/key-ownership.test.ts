import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Each entity spells its own keys, in its module, next to its item shape (docs/data-model.md, "Access
 * patterns"): a module that spells a key token (`LIKE#`, `COMMENT#`, ...) exports the entity's key
 * object (`reactionKeys`, `commentKeys`, ...), and each token belongs to one module. The exceptions
 * are the partitions other entities' items live in: an account's (`ACCOUNT#`, its likes, follows,
 * comment guards, feed state, audit events...), a video's (`VIDEO#`, its comments) and a phone's
 * (`PHONE#`, its account link and codes).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED_PARTITIONS = new Set(['ACCOUNT#', 'VIDEO#', 'PHONE#']);

const files = (readdirSync(join(ROOT, 'lib'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts') && !f.split(sep).includes('generated'))
  .map((f) => `lib/${f.split(sep).join('/')}`);

/** The key tokens (`WORD#`) at the start of a string or template part of a file, comments excluded. */
function keyTokens(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found = new Set<string>();
  const visit = (node: ts.Node) => {
    const texts: string[] = [];
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts.push(node.text);
    if (ts.isTemplateExpression(node)) texts.push(node.head.text, ...node.templateSpans.map((s) => s.literal.text));
    for (const text of texts) for (const m of text.matchAll(/(?:^|[^A-Za-z0-9_])([A-Z][A-Z_!]*#)/g)) found.add(m[1]!);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const spelled = new Map(files.map((f) => [f, keyTokens(f)] as const));
const owners = new Map<string, string[]>();
for (const [file, tokens] of spelled) for (const t of tokens) owners.set(t, [...(owners.get(t) ?? []), file]);

describe('key ownership in lib/', () => {
  it('finds the keys (a known token in its module): a parsing mistake would pass the checks below vacuously', () => {
    expect(owners.get('LIKE#')).toEqual(['lib/entities/catalog/reaction-items.ts']);
    expect(owners.size).toBeGreaterThan(30);
  });

  it('spells keys only in entity modules, which export their key object', () => {
    const loose = [...spelled].filter(([file, tokens]) => tokens.size > 0 && !/export const \w+Keys = \{/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(loose.map(([file, tokens]) => `${file}: ${[...tokens].join(' ')}`)).toEqual([]);
  });

  it('spells each key token in one module (but the shared partitions)', () => {
    const shared = [...owners].filter(([token, inFiles]) => inFiles.length > 1 && !SHARED_PARTITIONS.has(token));
    expect(shared.map(([token, inFiles]) => `${token} in ${inFiles.map((f) => relative(ROOT, join(ROOT, f))).join(', ')}`)).toEqual([]);
  });
});
