/**
 * `npm run eval:feed [-- --quick | --tune | --seeds a,b,c] [-- --kinds k1,k2] [-- --label gen4] [-- --out file.json] [-- --no-docs]`:
 * the feed's offline evaluation (docs/feed.md, "Offline evaluation"). The default run builds every
 * world kind at its REPORT seeds (bench/feed-eval/worlds.ts, `WORLD_KINDS`) and writes
 * bench/feed-eval.json and docs/reports/feed-eval.md (whole); `--tune` runs the TUNING seeds,
 * `--seeds` any seeds (each kind at each), `--quick` three small worlds, `--kinds` only the named
 * kinds: those write to the temporary directory, never to the docs. `--label genN` measures a
 * generation of the feed on the report worlds and writes bench/feed-eval-gen<N>.json, which later
 * runs show beside theirs; `--render` scores and reports the saved figures of that file again
 * (targets, tables) without measuring. Each world runs in a child process on its own in-memory
 * DynamoDB Local (one shared by the worlds made every write of a later world scan the stream records
 * of the earlier ones: test/support/dynamo.ts). Exits 1 when the metric code fails its check
 * against the random baseline's analytic expectation; missed targets are reported, not hidden.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTables } from '../../local/create-tables.js';
import { startDynamoDbLocal } from '../../local/dynamodb-local.js';
import { benchSettings } from '../environment.js';
import { FEED_EVAL_REPORT, GENERATIONS, renderMarkdown, renderReportPage, type Generation } from './report.js';
import { checkRandom, evaluateTargets, type ControlledResult, type EvalResult, type WorldResult } from './targets.js';
import { generateWorld, QUICK_WORLDS, WORLD_KINDS, worldsOf } from './worlds.js';

const ROOT = resolve(import.meta.dirname, '../..');

function parseArgs(argv: string[]) {
  let quick = false;
  let tune = false;
  let seeds: number[] | undefined;
  let kinds: string[] = [];
  let docs = true;
  let out: string | undefined;
  let label: string | undefined;
  let render = false;
  const value = (arg: string, i: number, name: string) => (arg.startsWith(`${name}=`) ? arg.slice(name.length + 1) : argv[i + 1]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const takes = (name: string) => arg === name || arg.startsWith(`${name}=`);
    const next = (name: string) => {
      const v = value(arg, i, name);
      if (!arg.includes('=')) i++;
      if (v === undefined) throw new Error(`${name} takes a value`);
      return v;
    };
    if (arg === '--quick') quick = true;
    else if (arg === '--tune') tune = true;
    else if (arg === '--no-docs') docs = false;
    else if (takes('--seeds')) seeds = next('--seeds').split(',').map(Number);
    else if (takes('--kinds')) kinds = next('--kinds').split(',').map((k) => k.trim()).filter(Boolean);
    else if (takes('--out')) out = next('--out');
    else if (arg === '--render') render = true;
    else if (takes('--label')) label = next('--label');
    else if (arg === '--help' || arg === '-h') {
      console.log('usage: npm run eval:feed -- [--quick | --tune | --seeds a,b,c] [--kinds k1,k2] [--label gen4] [--out file.json] [--render] [--no-docs]');
      console.log(`kinds: ${WORLD_KINDS.map((k) => `${k.kind} (tune ${k.tune.join(',')}; report ${k.report.join(',')})`).join(', ')}`);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg} (try --help)`);
  }
  if (seeds && !seeds.every((n) => Number.isInteger(n) && n >= 0)) throw new Error('--seeds takes non-negative integers, comma-separated');
  if ([quick, tune, seeds !== undefined].filter(Boolean).length > 1) throw new Error('--quick, --tune and --seeds exclude each other');
  if (label !== undefined && !/^gen[0-9]+$/.test(label)) throw new Error('--label takes genN (a generation of the feed)');
  const seedSet = quick ? ('quick' as const) : tune ? ('tune' as const) : seeds ? ('custom' as const) : ('report' as const);
  // Only the report worlds, whole, write the committed figures: tuning, custom seeds, chosen kinds and quick runs go elsewhere.
  const defaultOut = seedSet === 'report' && kinds.length === 0 && out === undefined;
  out ??= defaultOut ? join(ROOT, 'bench', label ? `feed-eval-${label}.json` : 'feed-eval.json') : join(tmpdir(), `expohub-feed-eval-${seedSet}.json`);
  // The page shows bench/feed-eval.json (test/unit/feed-eval-report.test.ts): a labelled run does not write it.
  return { quick, seedSet, seeds, kinds, out: resolve(out), label, render, docs: docs && defaultOut && !label };
}

const { quick, seedSet, seeds, kinds, out, label, render, docs } = parseArgs(process.argv.slice(2));
const started = performance.now();
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const dir = mkdtempSync(join(tmpdir(), 'expohub-feed-eval-'));

async function child(name: string, world: string): Promise<unknown> {
  const dynamo = await startDynamoDbLocal();
  try {
    return await runWorld(dynamo.endpoint, name, world);
  } finally {
    await dynamo.stop();
  }
}

async function runWorld(endpoint: string, name: string, world: string): Promise<unknown> {
  const tables = await createTables(endpoint, `eval_${name.replace(/[^a-z0-9]/gi, '')}_`);
  // Accounts act over a whole world's history (up to 60 days): tokens outlive it.
  const settings = { ...benchSettings(endpoint, tables, 'feed-evaluation-signing-secret-not-used-anywhere-else'), JWT_TTL_SECONDS: String(400 * 86_400) };
  const resultFile = join(dir, `${name}.json`);
  const t0 = performance.now();
  const code = await new Promise<number | null>((done, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'bench/feed-eval/world-child.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...settings, EVAL_WORLD: world, EVAL_RESULT_FILE: resultFile },
      stdio: 'inherit',
    });
    proc.once('error', reject);
    proc.once('exit', done);
  });
  if (code !== 0) throw new Error(`world ${name} exited with ${code}`);
  console.log(`  ${name}: ${Math.round((performance.now() - t0) / 1000)} s`);
  return JSON.parse(readFileSync(resultFile, 'utf8'));
}

/** The commit measured, marked when the work tree differs from it: figures must be traceable to code. */
function commitOf(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD') || 'unknown';
  return git('status', '--porcelain', '--', 'lib', 'bench/feed-eval') ? `${head}+changes` : head;
}

let failed = false;
/** Builds and asks every world (and the controlled case), two at a time. */
async function measure(): Promise<EvalResult> {
  const specs = quick ? QUICK_WORLDS.filter((w) => kinds.length === 0 || kinds.includes(w.kind!)) : worldsOf(seedSet === 'custom' ? seeds! : seedSet === 'tune' ? 'tune' : 'report', kinds);
  if (specs.length === 0) throw new Error('no world to run');
  // Worlds are independent (own process, own tables): two at a time on this 2-core machine, the
  // longest (most events) first so that neither process idles at the end.
  const bySize = specs.map((s) => ({ s, events: generateWorld(s).events.length })).sort((a, b) => b.events - a.events);
  const jobs: [string, string][] = [...bySize.map(({ s }): [string, string] => [s.name, JSON.stringify(s)]), ['controlled', 'controlled']];
  const results = new Map<string, unknown>();
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < jobs.length) {
        const [name, world] = jobs[next++]!;
        console.log(`world ${name}: started`);
        results.set(name, await child(name, world));
      }
    }),
  );
  const worlds = specs.map((s) => results.get(s.name) as WorldResult);
  const controlled = results.get('controlled') as ControlledResult;
  const result: EvalResult = {
    meta: {
      date: new Date().toISOString(),
      commit: commitOf(),
      ...(label ? { label } : {}),
      quick,
      seedSet,
      seeds: WORLD_KINDS.filter((k) => specs.some((s) => s.kind === k.kind)).map((k) => ({ kind: k.kind, report: k.report, tune: k.tune })),
      seconds: 0,
    },
    worlds,
    controlled,
    randomCheck: checkRandom(worlds),
    targets: [],
  };
  result.targets = evaluateTargets(result);
  result.meta.seconds = Math.round((performance.now() - started) / 1000);
  return result;
}

/** `--render`: the saved figures of `out` checked and scored again by this code, without measuring. */
function rescore(): EvalResult {
  const result = JSON.parse(readFileSync(out, 'utf8')) as EvalResult;
  result.randomCheck = checkRandom(result.worlds);
  result.targets = evaluateTargets(result);
  result.meta.rescored = { date: new Date().toISOString(), commit: commitOf() };
  return result;
}

try {
  const result = render ? rescore() : await measure();
  // Earlier generations, newest first, except the one this run measures.
  const earlier: Generation[] = GENERATIONS.flatMap(([gen, name]) => {
    const file = join(ROOT, 'bench', `feed-eval-${gen}.json`);
    return existsSync(file) && resolve(file) !== out && gen !== label ? [{ label: gen, name, result: JSON.parse(readFileSync(file, 'utf8')) as EvalResult }] : [];
  });
  const markdown = renderMarkdown(result, earlier);
  console.log(`\n${markdown}`);
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`results written to ${out}`);
  if (docs) {
    const path = join(ROOT, FEED_EVAL_REPORT);
    writeFileSync(path, renderReportPage(markdown));
    console.log(`tables written to ${path}`);
  }
  if (!result.randomCheck.ok) {
    failed = true;
    console.error('the metric code disagrees with the random baseline\'s analytic expectation: see randomCheck');
  }
} catch (error) {
  failed = true;
  console.error('evaluation failed:', error);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
