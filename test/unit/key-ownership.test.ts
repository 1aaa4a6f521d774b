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

/**
 * Each entity owns its items too (docs/data-model.md, "Access patterns"): its module builds the
 * items and the writes of its attributes (Put, Update, Delete, their transaction items) and use cases
 * compose them (e.g. accountCounterUpdate of lib/entities/accounts/accounts.ts in a like's
 * transaction). An entity's module is the file that exports its key object, plus the files listed in
 * ENTITY_MODULE_FILES (the same entity, split by size).
 */
const ENTITY_MODULE_FILES: Record<string, string[]> = {
  // The video store (putVideo), the bulk import of the demo catalog, and the items they build.
  'lib/entities/catalog/video-items.ts': ['lib/entities/catalog/videos.ts', 'lib/entities/catalog/import.ts'],
  // A comment's writes (post, delete) and its page read.
  'lib/entities/comments/comments.ts': ['lib/entities/comments/post-comment.ts', 'lib/entities/comments/delete-comment.ts'],
  // The block list's items and the block and unblock operations.
  'lib/entities/social/block-items.ts': ['lib/entities/social/blocks.ts'],
  // A key's records and its hash guard's use (rate limit, last use) and suspension marks.
  'lib/features/keys/key-records.ts': ['lib/features/keys/key-use.ts', 'lib/features/keys/suspension-marks.ts'],
  // The deletion record, requested and then erased step by step.
  'lib/features/deletion/deletion.ts': ['lib/features/deletion/erasure.ts'],
  // The feed state, changed by the feed and by a like or a dislike (its taste and disliked set).
  'lib/features/recommend/feed-state.ts': ['lib/features/recommend/reactions.ts'],
};

/** Which module file owns each key object (`accountKeys` -> lib/entities/accounts/accounts.ts). */
const keyObjectOwner = new Map<string, string>();
for (const file of files) for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/export const (\w+Keys) = \{/g)) keyObjectOwner.set(m[1]!, file);
const moduleFiles = (owner: string) => [owner, ...(ENTITY_MODULE_FILES[owner] ?? [])];

/**
 * Attributes of one entity, named in a write only by its module: the counters and the stamps no
 * other item carries (`like_count` is both an account's and a video's).
 */
const OWNED_ATTRIBUTES: Record<string, string[]> = {
  follow_count: ['lib/entities/accounts/accounts.ts'],
  follower_count: ['lib/entities/accounts/accounts.ts'],
  liked_count: ['lib/entities/accounts/accounts.ts'],
  video_count: ['lib/entities/accounts/accounts.ts'],
  follow_seq: ['lib/entities/accounts/accounts.ts'],
  follower_seq: ['lib/entities/accounts/accounts.ts'],
  roles_removed_at: ['lib/entities/accounts/accounts.ts'],
  terms_version: ['lib/entities/accounts/accounts.ts'],
  terms_accepted_at: ['lib/entities/accounts/accounts.ts'],
  suspended_at: ['lib/entities/accounts/accounts.ts'],
  suspended_by: ['lib/entities/accounts/accounts.ts'],
  like_count: ['lib/entities/accounts/accounts.ts', ...moduleFiles('lib/entities/catalog/video-items.ts')],
  comment_count: moduleFiles('lib/entities/catalog/video-items.ts'),
  share_count: moduleFiles('lib/entities/catalog/video-items.ts'),
  trend_key_at: moduleFiles('lib/entities/catalog/video-items.ts'),
};

const UPDATE_BUILDER_METHODS = new Set(['setValue', 'setIfMissing', 'appendToList', 'addNumber', 'addToSet', 'deleteFromSet', 'removeAttribute']);
const WRITE_PROPERTIES = new Set(['Put', 'Update', 'Delete']);
const propertyName = (p: ts.ObjectLiteralElementLike) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined);
const stringsIn = (node: ts.Node): string[] => {
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    if (ts.isTemplateExpression(n)) out.push(n.head.text, ...n.templateSpans.map((s) => s.literal.text));
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
};

/** A write of an item (a Put, Update or Delete: a command's input or a transaction item). */
function isWrite(o: ts.ObjectLiteralExpression): boolean {
  if (o.properties.some((p) => propertyName(p) === 'UpdateExpression')) return true;
  const parent = o.parent;
  if (ts.isPropertyAssignment(parent) && WRITE_PROPERTIES.has(propertyName(parent) ?? '')) return true;
  return ts.isNewExpression(parent) && ts.isIdentifier(parent.expression) && /^(Put|Update|Delete)Command$/.test(parent.expression.text);
}

interface Writes {
  /** `xKeys.member` of the Key or Item of each write, with its line. */
  keys: { keyOf: string; line: number }[];
  /** Attribute names written: in an UpdateExpression, the ExpressionAttributeNames, an UpdateBuilder clause, a counter delta's `attribute`, an item literal. */
  attributes: { name: string; line: number }[];
}

function writesOf(file: string): Writes {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const line = (n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart()).line + 1;
  const writes: Writes = { keys: [], attributes: [] };
  const words = (texts: string[], at: ts.Node) => {
    for (const text of texts) for (const m of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) writes.attributes.push({ name: m[0], line: line(at) });
  };
  const visit = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node) && isWrite(node)) {
      for (const p of node.properties) {
        if (!ts.isPropertyAssignment(p)) continue;
        const name = propertyName(p);
        if (name === 'Key' || name === 'Item') {
          const seen = (n: ts.Node) => {
            if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && keyObjectOwner.has(n.expression.text)) writes.keys.push({ keyOf: `${n.expression.text}.${n.name.text}`, line: line(n) });
            ts.forEachChild(n, seen);
          };
          seen(p.initializer);
        }
        if (name === 'Item' && ts.isObjectLiteralExpression(p.initializer)) for (const q of p.initializer.properties) if (propertyName(q)) writes.attributes.push({ name: propertyName(q)!, line: line(q) });
        if (name === 'UpdateExpression') words(stringsIn(p.initializer), p);
        if (name === 'ExpressionAttributeNames' && ts.isObjectLiteralExpression(p.initializer)) {
          for (const q of p.initializer.properties) if (ts.isPropertyAssignment(q)) words(stringsIn(q.initializer), q);
        }
      }
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && UPDATE_BUILDER_METHODS.has(node.expression.name.text) && node.arguments[0]) {
      words(stringsIn(node.arguments[0]), node);
    }
    if (ts.isPropertyAssignment(node) && propertyName(node) === 'attribute' && (ts.isStringLiteral(node.initializer) || ts.isNoSubstitutionTemplateLiteral(node.initializer))) {
      words([node.initializer.text], node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return writes;
}

const writes = new Map(files.map((f) => [f, writesOf(f)] as const));

describe('item ownership in lib/', () => {
  it('finds the writes (known ones in their modules): a parsing mistake would pass the checks below vacuously', () => {
    const account = writes.get('lib/entities/accounts/accounts.ts')!;
    expect(account.keys.map((k) => k.keyOf)).toContain('accountKeys.account');
    expect(account.attributes.map((a) => a.name)).toEqual(expect.arrayContaining(['roles_removed_at', 'suspended_at', 'terms_version', 'deletion_id']));
    expect(writes.get('lib/features/recommend/reactions.ts')!.attributes.map((a) => a.name)).toEqual(expect.arrayContaining(['disliked', 'lr']));
    expect([...writes.values()].reduce((n, w) => n + w.keys.length, 0)).toBeGreaterThan(50);
  });

  it("writes an entity's items only in its module: use cases compose the transaction items it exports", () => {
    const foreign = [...writes].flatMap(([file, w]) =>
      w.keys.filter((k) => !moduleFiles(keyObjectOwner.get(k.keyOf.split('.')[0]!)!).includes(file)).map((k) => `${file}:${k.line} writes an item keyed by ${k.keyOf}`),
    );
    expect(foreign).toEqual([]);
  });

  it("names an entity's own attributes in a write only in its module (counters, stamps)", () => {
    const foreign = [...writes].flatMap(([file, w]) =>
      w.attributes.filter((a) => OWNED_ATTRIBUTES[a.name] && !OWNED_ATTRIBUTES[a.name]!.includes(file)).map((a) => `${file}:${a.line} writes ${a.name}`),
    );
    expect(foreign).toEqual([]);
  });
});
