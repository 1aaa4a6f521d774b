import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, LAMBDA_BUNDLE } from '../../infra/constructs/lambda-bundle.js';
import { FUNCTIONS } from '../../infra/routes.js';
import { printTable } from '../format.js';
import { median, percentile, round } from '../stats.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Import time of one bundle: the median of `runs` fresh Node processes, each timing `await import(bundle)`. */
export interface ImportTimes {
  bytes: number;
  msMedian: number;
  msP90: number;
  /** CPU time (user + system) of the same imports: less sensitive than wall time to other load on the machine. */
  cpuMsMedian: number;
}

export interface ColdStartRow {
  function: string;
  entry: string;
  /** The bundle as the stack deploys it (infra/constructs/lambda-bundle.ts): the AWS SDK bundled in. */
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  importMsMedian: number;
  importMsP90: number;
  importCpuMsMedian: number;
  /** The alternative: the same bundle with `@aws-sdk/*` left to the nodejs22.x runtime (loaded from node_modules here). */
  runtimeSdk: ImportTimes;
  /** The reference (bench/reference/get-item.ts) imported alternately with this function: its median, and this function's median over it. */
  referenceMsMedian: number;
  ratioToReference: number;
  /** Minified bytes in the deployed bundle by origin, largest first. */
  composition: { origin: string; bytes: number }[];
}

export interface ColdStartResult {
  runs: number;
  nodeForImport: string;
  /** NODE_OPTIONS of every import, as the stack sets it on the functions. */
  nodeOptions: string;
  /** The reference bundle (bench/reference/get-item.ts: one GetItem, the same SDK packages, built the same way), over every alternation. */
  reference: ImportTimes & { entry: string };
  rows: ColdStartRow[];
}

/** A handler that only makes one GetItem: what every function's import is measured against. */
export const REFERENCE_ENTRY = 'bench/reference/get-item.ts';

// Measures the import only: the clock starts after the process is up.
const IMPORT_PROBE = [
  'const c0 = process.cpuUsage(); const t0 = performance.now();',
  'await import(process.argv[1]);',
  'const ms = performance.now() - t0; const c = process.cpuUsage(c0);',
  'process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000 }));',
].join(' ');

function importOnce(bundle: string, env: NodeJS.ProcessEnv): { ms: number; cpuMs: number } {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_PROBE, pathToFileURL(bundle).href], { env, encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0) throw new Error(`importing ${bundle} failed: ${out.stderr.slice(0, 500)}`);
  return JSON.parse(out.stdout) as { ms: number; cpuMs: number };
}

const summary = (bundle: string, samples: { ms: number; cpuMs: number }[]): ImportTimes => ({
  bytes: statSync(bundle).size,
  msMedian: round(median(samples.map((s) => s.ms)), 1),
  msP90: round(percentile(samples.map((s) => s.ms), 90), 1),
  cpuMsMedian: round(median(samples.map((s) => s.cpuMs)), 1),
});

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

/**
 * Cold-start proxy per deployed function: the bundle exactly as the stack builds it, and the time to
 * import it in a fresh Node process (median of 10), with the functions' NODE_OPTIONS. Beside it, the
 * same bundle with the AWS SDK left to the runtime, imported the same way, so that the choice between
 * the two rests on figures.
 */
export async function coldStartSection(options: { quick: boolean }): Promise<ColdStartResult> {
  const runs = options.quick ? 3 : 10;
  // Inside node_modules (ignored by git), so that the runtime-SDK variant resolves `@aws-sdk/*` from
  // the project's node_modules, as an ESM handler on nodejs22.x resolves the runtime's SDK: Node loads
  // the same CommonJS builds (`main`, one file per package) there and here. The runtime's SDK version
  // is whatever Lambda ships, not the locked one; the bundled variant needs no resolution at all.
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'expohub-bench-'));
  // What config.ts needs at import, as the stack passes it (a secret ARN, not the secret).
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_OPTIONS: LAMBDA_BUNDLE.nodeOptions,
    API_KEYS_TABLE: 'bench-api-keys',
    HUB_TABLE: 'bench-hub',
    JWT_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const rows: ColdStartRow[] = [];
  const reference = join(dir, 'reference', 'index.mjs');
  const referenceSamples: { ms: number; cpuMs: number }[] = [];
  let referenceTimes: ImportTimes | undefined;
  try {
    await build(esbuildOptions(join(ROOT, REFERENCE_ENTRY), reference));
    for (const [name, spec] of Object.entries(FUNCTIONS)) {
      const deployed = join(dir, name, 'index.mjs');
      const built = await build({ ...esbuildOptions(join(ROOT, spec.entry), deployed), metafile: true });
      const runtimeSdk = join(dir, name, 'runtime-sdk', 'index.mjs');
      await build({ ...esbuildOptions(join(ROOT, spec.entry), runtimeSdk), external: ['@aws-sdk/*'] });
      // Alternating, so that a change of load on the machine touches both variants alike.
      const samples: Record<'deployed' | 'runtimeSdk' | 'reference', { ms: number; cpuMs: number }[]> = { deployed: [], runtimeSdk: [], reference: [] };
      for (let i = 0; i < runs; i++) {
        samples.deployed.push(importOnce(deployed, env));
        samples.runtimeSdk.push(importOnce(runtimeSdk, env));
        samples.reference.push(importOnce(reference, env));
      }
      referenceSamples.push(...samples.reference);
      const asDeployed = summary(deployed, samples.deployed);
      const referenceMs = summary(reference, samples.reference).msMedian;
      rows.push({
        function: name,
        entry: spec.entry,
        bytes: asDeployed.bytes,
        gzipBytes: gzipSync(readFileSync(deployed)).length,
        mapBytes: statSync(`${deployed}.map`).size,
        importMsMedian: asDeployed.msMedian,
        importMsP90: asDeployed.msP90,
        importCpuMsMedian: asDeployed.cpuMsMedian,
        runtimeSdk: summary(runtimeSdk, samples.runtimeSdk),
        referenceMsMedian: referenceMs,
        ratioToReference: round(asDeployed.msMedian / referenceMs, 2),
        composition: composition(built.metafile!, deployed),
      });
    }
    referenceTimes = summary(reference, referenceSamples);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Cold-start proxy per function: esbuild bundle as the stack deploys it (AWS SDK bundled); import in a fresh Node ${process.version} process with NODE_OPTIONS=${LAMBDA_BUNDLE.nodeOptions} (median of ${runs})`,
    ['function', 'bundle KB', 'gzip KB', 'import ms', 'import ms p90', 'import CPU ms', 'x reference', 'largest parts (KB)'],
    rows.map((r) => [
      r.function,
      round(r.bytes / 1024, 1),
      round(r.gzipBytes / 1024, 1),
      r.importMsMedian,
      r.importMsP90,
      r.importCpuMsMedian,
      r.ratioToReference,
      r.composition
        .slice(0, 4)
        .map((c) => `${c.origin} ${Math.round(c.bytes / 1024)}`)
        .join(', '),
    ]),
  );
  printTable(
    `AWS SDK bundled (deployed) against the runtime's SDK (\`@aws-sdk/*\` external, loaded from node_modules), median of ${runs} imports each, alternated`,
    ['function', 'bundled: KB', 'bundled: import ms', 'bundled: CPU ms', 'runtime SDK: KB', 'runtime SDK: import ms', 'runtime SDK: CPU ms'],
    rows.map((r) => [
      r.function,
      round(r.bytes / 1024, 1),
      r.importMsMedian,
      r.importCpuMsMedian,
      round(r.runtimeSdk.bytes / 1024, 1),
      r.runtimeSdk.msMedian,
      r.runtimeSdk.cpuMsMedian,
    ]),
  );
  console.log(`reference (${REFERENCE_ENTRY}): ${round(referenceTimes!.bytes / 1024, 1)} KB, import ${referenceTimes!.msMedian} ms median (p90 ${referenceTimes!.msP90}, CPU ${referenceTimes!.cpuMsMedian}) over ${referenceSamples.length} imports`);
  return { runs, nodeForImport: process.version, nodeOptions: LAMBDA_BUNDLE.nodeOptions, reference: { ...referenceTimes!, entry: REFERENCE_ENTRY }, rows };
}
