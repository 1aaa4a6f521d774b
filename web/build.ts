/**
 * Builds the key-management page into a folder of static files: index.html plus content-hashed,
 * minified assets/app-<hash>.js and assets/app-<hash>.css. The local server serves the folder at `/`;
 * the stack uploads it to S3 behind CloudFront (index.html must not be cached, assets/* may be
 * cached for good). Run it directly with `npm run build:web`.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const WEB_DIR = import.meta.dirname;
export const DEFAULT_WEB_OUT_DIR = join(WEB_DIR, 'dist');

/** Builds the page into `outDir` (default web/dist) and returns its absolute path. */
export async function buildWeb(outDir: string = DEFAULT_WEB_OUT_DIR): Promise<string> {
  const out = resolve(outDir);
  const assetsDir = join(out, 'assets');
  // Only what this function writes is removed, so a mistaken outDir never loses other files.
  await rm(assetsDir, { recursive: true, force: true });
  await rm(join(out, 'index.html'), { force: true });
  await mkdir(assetsDir, { recursive: true });

  const result = await build({
    entryPoints: { app: join(WEB_DIR, 'src/main.ts') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15.4'],
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  });
  const css = await build({
    entryPoints: { app: join(WEB_DIR, 'styles.css') },
    bundle: true,
    minify: true,
    target: ['chrome100', 'firefox100', 'safari15.4'],
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'silent',
  });
  const outputName = (metafile: NonNullable<typeof result.metafile>, ext: string) => {
    const file = Object.keys(metafile.outputs).find((f) => f.endsWith(ext));
    if (!file) throw new Error(`esbuild produced no ${ext} file`);
    // From the root: the same index.html is served at the page's deep links too (web/src/page-paths.ts).
    return `/assets/${basename(file)}`;
  };

  const template = await readFile(join(WEB_DIR, 'index.html'), 'utf8');
  const html = template.replace('href="assets/app.css"', `href="${outputName(css.metafile, '.css')}"`).replace('src="assets/app.js"', `src="${outputName(result.metafile, '.js')}"`);
  if (html.includes('assets/app.css') || html.includes('assets/app.js')) throw new Error('web/index.html no longer references assets/app.css and assets/app.js');
  await writeFile(join(out, 'index.html'), html);
  return out;
}

/** Byte sizes of the built files (raw and gzip), for the build log and the docs. */
export async function webAssetSizes(outDir: string): Promise<{ file: string; bytes: number; gzipBytes: number }[]> {
  const html = await readFile(join(outDir, 'index.html'), 'utf8');
  const files = ['index.html', ...[...html.matchAll(/(?:href|src)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!)];
  return Promise.all(
    files.map(async (file) => {
      const content = await readFile(join(outDir, file));
      return { file, bytes: (await stat(join(outDir, file))).size, gzipBytes: gzipSync(content).length };
    }),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildWeb(process.argv[2]);
  console.log(`web page built into ${relative(process.cwd(), out) || '.'}`);
  for (const { file, bytes, gzipBytes } of await webAssetSizes(out)) console.log(`  ${file}  ${bytes} B (${gzipBytes} B gzip)`);
}
