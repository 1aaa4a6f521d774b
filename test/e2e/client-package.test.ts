import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPhone, putTestAccounts, putTestVideo } from '../support/hub-fixtures.js';
import { packAndInstall } from '../support/packed.js';
import { startTestStack } from '../support/stack.js';

/**
 * @expohub/client as a developer gets it: `npm pack` of client/ (its prepack compiles dist/),
 * installed from the tarball into an empty project offline (no dependencies), then a program of
 * fewer than 20 lines, compiled with tsc --strict against the installed types (a wrong parameter
 * must fail), that signs a person in and pages the feed on a local server.
 */
const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

const PROGRAM = `import { createClient } from '@expohub/client';
const [baseUrl, phone] = process.argv.slice(2) as [string, string];
const client = createClient({ baseUrl });
const nonce = 'app-install-nonce-1';
await client.auth.requestCode({ phonenumber: phone, nonce });
const outbox = await (await fetch(\`\${baseUrl}/_dev/sms?phone=\${encodeURIComponent(phone)}\`)).json();
const me = await client.auth.signIn({ openid: phone, token: nonce, code: outbox.data.messages[0].code });
const pages: string[][] = [];
for await (const page of client.feed.nextPages({ order: 'new', watch_count: 2 })) {
  pages.push(page.list.map((video) => video.title));
  if (pages.length === 2) break;
}
// @ts-expect-error the compiler catches a wrong parameter
if (pages.length > 2) await client.feed.next({ order: 'oldest' });
console.log(JSON.stringify({ openid: me.openid, pages }));
`;

let stack: Awaited<ReturnType<typeof startTestStack>>;
let work: string;
let app: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'expohub-client-package-'));
  ({ tarball, app } = await packAndInstall(join(ROOT, 'client'), work, { name: 'app', private: true, type: 'module' }));
  stack = await startTestStack();
  const [author] = await putTestAccounts(1);
  for (let i = 0; i < 4; i++) await putTestVideo(author!.openid, { title: `Packed ${i}` });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the @expohub/client tarball', () => {
  it('holds the compiled module, its types and the README, with no dependency', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(
      ['package/README.md', 'package/dist/generated.d.ts', 'package/dist/generated.js', 'package/dist/index.d.ts', 'package/dist/index.js', 'package/package.json'],
    );
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@expohub/client/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@expohub/client', type: 'module' });
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it('stays small enough for an app: under 5 KB minified and gzipped (client/README.md states the size)', async () => {
    const { build } = await import('esbuild');
    const out = await build({ entryPoints: [join(app, 'node_modules/@expohub/client/dist/index.js')], bundle: true, minify: true, format: 'esm', platform: 'neutral', write: false });
    const bytes = gzipSync(out.outputFiles[0]!.contents, { level: 9 }).length;
    expect(bytes).toBeLessThan(5_000);
  });

  it('signs a person in and pages the feed from a program of fewer than 20 lines, type-checked', async () => {
    expect(PROGRAM.trim().split('\n').length).toBeLessThan(20);
    writeFileSync(join(app, 'main.ts'), PROGRAM);
    const compilerOptions = { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], types: [], skipLibCheck: false, outDir: 'out' };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts', 'node.d.ts'] }));
    // The program's two Node globals (no @types/node in the empty project).
    writeFileSync(join(app, 'node.d.ts'), 'declare const process: { argv: string[] };\n');
    const compiled = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(app, 'tsconfig.json')]).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(compiled).toBe('');
    const phone = newPhone();
    const { stdout } = await run(process.execPath, [join(app, 'out/main.js'), stack.url, phone], { cwd: app });
    const result = JSON.parse(stdout) as { openid: string; pages: string[][] };
    expect(result.openid).toMatch(/\S/);
    expect(result.pages).toHaveLength(2);
    expect(result.pages.flat()).toHaveLength(4);
    expect(new Set(result.pages.flat()).size).toBe(4);
  });
});
