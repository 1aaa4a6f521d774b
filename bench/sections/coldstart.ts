import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { LAMBDA_BUNDLE } from '../../infra/constructs/lambda-bundle.js';
import { FUNCTIONS } from '../../infra/routes.js';
import { printTable } from '../format.js';
import { median, percentile, round } from '../stats.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface ColdStartRow {
  function: string;
  entry: string;
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  /** Median time of `await import(bundle)` in a fresh Node process (`runs` times; with --enable-source-maps, half as many). */
  importMsMedian: number;
  importMsP90: number;
  importMsWithSourceMapsMedian: number;
  /** The same bundle with the AWS SDK bundled in (what the stack did before), for comparison. */
  bytesSdkBundled: number;
  /** Median import time of that SDK-bundled variant (half as many runs). */
  importMsSdkBundledMedian: number;
  /** Minified bytes in the bundle by origin, largest first. */
  composition: { origin: string; bytes: number }[];
}

export interface ColdStartResult {
  runs: number;
  nodeForImport: string;
  rows: ColdStartRow[];
}

function buildOptions(entry: string) {
  return {
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    // The construct's own settings (infra/constructs/lambda-bundle.ts).
    format: LAMBDA_BUNDLE.format,
    target: LAMBDA_BUNDLE.target,
    platform: LAMBDA_BUNDLE.platform,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: LAMBDA_BUNDLE.sourceMap,
    sourcesContent: false,
    logLevel: 'error' as const,
    external: [...LAMBDA_BUNDLE.externalModules],
  };
}

// Measures the import only: the clock starts after the process is up.
const IMPORT_PROBE = `const t0 = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t0));`;

function importTimes(bundle: string, runs: number, env: NodeJS.ProcessEnv, sourceMaps: boolean): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '--input-type=module', '-e', IMPORT_PROBE, pathToFileURL(bundle).href];
    const out = spawnSync(process.execPath, args, { env, encoding: 'utf8', timeout: 60_000 });
    if (out.status !== 0) throw new Error(`importing ${bundle} failed: ${out.stderr.slice(0, 500)}`);
    times.push(Number(out.stdout));
  }
  return times;
}

/** Which package a bundled input file comes from; the SDK's many packages count as one. */
function origin(path: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path.replaceAll('\\', '/'));
  if (!match) return 'project code';
  const pkg = match[1]!;
  if (/^@(aws-sdk|smithy|aws-crypto)\//.test(pkg) || pkg === 'fast-xml-parser' || pkg === 'strnum' || pkg === 'bowser') return 'AWS SDK v3';
  if (pkg.startsWith('@aws-lambda-powertools/')) return 'powertools';
  if (pkg.startsWith('@middy/')) return 'middy';
  return pkg;
}

function composition(metafile: Metafile, outfile: string): { origin: string; bytes: number }[] {
  const output = Object.entries(metafile.outputs).find(([path]) => resolve(path) === resolve(outfile))?.[1];
  const byOrigin = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) byOrigin.set(origin(path), (byOrigin.get(origin(path)) ?? 0) + input.bytesInOutput);
  return [...byOrigin].map(([o, bytes]) => ({ origin: o, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** Cold-start proxy per deployed function: bundle size as deployed and the time to import it. */
export async function coldStartSection(options: { quick: boolean }): Promise<ColdStartResult> {
  const runs = options.quick ? 3 : 10;
  // Inside node_modules (ignored by git), so the bundles resolve `@aws-sdk/*` from the project's
  // node_modules as the runtime's SDK resolves on Lambda: the import time includes loading the SDK.
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'expohub-bench-'));
  // What config.ts needs at import, as the stack passes it (a secret ARN, not the secret).
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    API_KEYS_TABLE: 'bench-api-keys',
    HUB_TABLE: 'bench-hub',
    JWT_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const rows: ColdStartRow[] = [];
  try {
    for (const [name, spec] of Object.entries(FUNCTIONS)) {
      const outfile = join(dir, name, 'index.mjs');
      const built = await build({ ...buildOptions(spec.entry), outfile, metafile: true });
      const sdkBundled = join(dir, name, 'sdk-bundled.mjs');
      await build({ ...buildOptions(spec.entry), outfile: sdkBundled, sourcemap: false, external: [] });
      const plain = importTimes(outfile, runs, env, false);
      const mapped = importTimes(outfile, Math.ceil(runs / 2), env, true);
      const bundledSdk = importTimes(sdkBundled, Math.ceil(runs / 2), env, false);
      rows.push({
        function: name,
        entry: spec.entry,
        bytes: statSync(outfile).size,
        gzipBytes: gzipSync(readFileSync(outfile)).length,
        mapBytes: statSync(`${outfile}.map`).size,
        importMsMedian: round(median(plain), 1),
        importMsP90: round(percentile(plain, 90), 1),
        importMsWithSourceMapsMedian: round(median(mapped), 1),
        bytesSdkBundled: statSync(sdkBundled).size,
        importMsSdkBundledMedian: round(median(bundledSdk), 1),
        composition: composition(built.metafile, outfile),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Cold-start proxy per function: esbuild bundle as the stack deploys it (SDK from the runtime); import time in a fresh Node ${process.version} process, SDK loaded from node_modules (median of ${runs})`,
    ['function', 'bundle KB', 'gzip KB', 'import ms', 'import ms p90', 'with --enable-source-maps', 'SDK bundled: KB', 'SDK bundled: import ms', 'largest parts (KB)'],
    rows.map((r) => [
      r.function,
      round(r.bytes / 1024, 1),
      round(r.gzipBytes / 1024, 1),
      r.importMsMedian,
      r.importMsP90,
      r.importMsWithSourceMapsMedian,
      round(r.bytesSdkBundled / 1024, 1),
      r.importMsSdkBundledMedian,
      r.composition
        .slice(0, 4)
        .map((c) => `${c.origin} ${Math.round(c.bytes / 1024)}`)
        .join(', '),
    ]),
  );
  return { runs, nodeForImport: process.version, rows };
}
