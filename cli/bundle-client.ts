/**
 * Writes cli/src/vendor/client.mjs: @expohub/client (client/src/index.ts) bundled into one plain ES
 * module, so the CLI's tarball carries the client inside it and installs offline with no dependency
 * (test/e2e/cli-package.test.ts). The copy is committed, as the CLI has no build step;
 * test/unit/cli-client-bundle.test.ts fails when it differs from a fresh bundle. Run it with
 * `npx tsx cli/bundle-client.ts` after changing client/src/.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
export const CLIENT_BUNDLE = join(ROOT, 'cli/src/vendor/client.mjs');

const BANNER = `/* eslint-disable */
// @ts-nocheck
// @expohub/client (client/src/index.ts in the repository), bundled for the CLI by cli/bundle-client.ts.
// Do not edit: regenerate it. Typed through client/src/index.ts (cli/src/http.mjs).`;

/** The bundle's text: ESM for Node 20, not minified (a reader of the installed package can follow it). */
export async function bundleClient(): Promise<string> {
  const result = await build({
    entryPoints: [join(ROOT, 'client/src/index.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'node20',
    legalComments: 'none',
    banner: { js: BANNER },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export async function committedBundle(): Promise<string> {
  return readFile(CLIENT_BUNDLE, 'utf8');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeFile(CLIENT_BUNDLE, await bundleClient());
  console.log(`wrote ${CLIENT_BUNDLE.slice(ROOT.length + 1)}`);
}
