import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ITEM_MODEL } from '../../lib/features/recommend/neighbours.js';
import { printTable } from '../format.js';
import { trainingTables, type TrainingResult, type TrainingRow } from '../training-tables.js';
import type { SizeResult, SolveResult, TrainingJob } from '../training-child.js';
import {
  fitCubic,
  LAMBDA_MAX_MB,
  LAMBDA_TIMEOUT_SECONDS,
  putWriteUnits,
  refreshCost,
  refreshIoSeconds,
  videosWithinMemory,
  videosWithinSeconds,
} from '../training-cost.js';
import type { TrainingWorldSpec } from '../training-world.js';
import { FUNCTIONS } from '../../infra/routes.js';

/**
 * What training the feed's model costs (docs/feed.md, "Training cost"): `trainItemModel`
 * (lib/features/recommend/neighbours.ts) on seeded worlds of 10k, 100k and 1M interactions
 * (bench/training-world.ts), each in a process of its own (bench/training-child.ts): its CPU time
 * split into phases by the sampling profiler, its peak RSS; the lists an hour's 1 % more actions
 * rewrites (10k and 100k; the 1M row takes the 100k row's share); the DynamoDB items the refresh reads,
 * sized into request units. Then the dense solve alone at a few catalog sizes, fitted to t = c n^3,
 * and the catalog sizes at which one refresh passes Lambda's 15 minutes and 10,240 MB. Each row
 * priced as one refresh of the deployed function (infra/routes.ts `refreshModel`: arm64, its memory)
 * and as a month of hourly refreshes.
 */
const SIZES: { label: string; spec: TrainingWorldSpec; onePercent: boolean }[] = [
  { label: '10k', spec: { interactions: 10_000, videos: 1_000, people: 500, seed: 3710 }, onePercent: true },
  { label: '100k', spec: { interactions: 100_000, videos: 3_000, people: 5_000, seed: 37100 }, onePercent: true },
  { label: '1M', spec: { interactions: 1_000_000, videos: ITEM_MODEL.maxVideos, people: 50_000, seed: 371000 }, onePercent: false },
];
const SOLVE_SIZES = [1_000, 2_000, 3_000, 4_000];
const QUICK_SOLVE_SIZES = [250, 500, 1_000];

async function runJob<T>(job: TrainingJob): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'expohub-training-'));
  const resultFile = join(dir, 'result.json');
  try {
    const code = await new Promise<number | null>((done, reject) => {
      const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=6144', '--import', 'tsx', resolve(import.meta.dirname, '../training-child.ts')], {
        env: { ...process.env, BENCH_TRAINING_JOB: JSON.stringify(job), BENCH_RESULT_FILE: resultFile },
        stdio: 'inherit',
      });
      child.once('error', reject);
      child.once('exit', done);
    });
    if (code !== 0) throw new Error(`bench/training-child.ts (${job.kind}) exited with ${code}`);
    return JSON.parse(readFileSync(resultFile, 'utf8')) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const r = (x: number, digits = 2) => Number(x.toFixed(digits));
const sum = (reads: SizeResult['reads']) => reads.catalog + reads.likers + reads.histories + reads.states + reads.previousLists;

export async function trainingSection({ quick }: { quick: boolean }): Promise<TrainingResult> {
  const memoryMb = FUNCTIONS.refreshModel.memoryMb;
  const measured: (SizeResult & { label: string })[] = [];
  for (const size of quick ? SIZES.slice(0, 1) : SIZES) {
    console.log(`  training at ${size.label} interactions (${size.spec.videos} videos, ${size.spec.people} people)`);
    measured.push({ label: size.label, ...(await runJob<SizeResult>({ kind: 'size', spec: size.spec, onePercent: size.onePercent })) });
  }
  const { points: solve } = await runJob<SolveResult>({ kind: 'solve', sizes: quick ? QUICK_SOLVE_SIZES : SOLVE_SIZES, seed: 37 });
  const fit = fitCubic(solve);

  // The share of lists an hour's 1 % more actions rewrites, from the largest row that measured it.
  const reference = [...measured].reverse().find((m) => m.update)!;
  const referenceShare = (reference.update!.rewritten + reference.update!.deleted) / Math.max(1, reference.model.lists);
  const rows: TrainingRow[] = measured.map((m) => {
    const rewrittenShare = m.update ? (m.update.rewritten + m.update.deleted) / Math.max(1, m.model.lists) : referenceShare;
    const writeUnits = m.update ? m.update.writeUnits : Math.round(rewrittenShare * m.model.lists) * putWriteUnits(m.listBytes);
    const ioSeconds = refreshIoSeconds({ videos: m.videos, people: m.model.people, writes: Math.round(rewrittenShare * m.model.lists) });
    const refreshSeconds = m.trainSeconds + ioSeconds;
    return { ...m, writeUnits, rewrittenShare: r(rewrittenShare, 3), ioSeconds: r(ioSeconds, 1), refreshSeconds: r(refreshSeconds, 1), cost: refreshCost({ seconds: refreshSeconds, memoryMb, readUnits: sum(m.reads), writeUnits }) };
  });

  // The limits, from the fit and the largest row (and the growth between the two largest).
  const top = rows.at(-1)!;
  const below = rows.at(-2);
  const otherSeconds = top.refreshSeconds - top.phases.solve;
  const otherMb = top.peakRssMb - top.matrixMb;
  const perInteraction = (a: number, b: number) => (below ? (a - b) / (top.interactions - below.interactions) : a / top.interactions);
  const secondsPerInteraction = perInteraction(otherSeconds, below ? below.refreshSeconds - below.phases.solve : 0);
  const mbPerInteraction = perInteraction(otherMb, below ? below.peakRssMb - below.matrixMb : 0);
  const solveAtCap = fit.c * ITEM_MODEL.maxVideos ** 3;
  const interactionsWhere = (budget: number, used: number, slope: number) => (slope > 0 ? Math.floor(top.interactions + (budget - used) / slope) : Infinity);
  const limits: TrainingResult['limits'] = {
    videosIn15Minutes: videosWithinSeconds(fit.c, LAMBDA_TIMEOUT_SECONDS),
    videosIn15MinutesWithRefresh: videosWithinSeconds(fit.c, LAMBDA_TIMEOUT_SECONDS - otherSeconds),
    videosIn10Gb: videosWithinMemory(LAMBDA_MAX_MB, otherMb),
    videosInFunctionMemory: videosWithinMemory(memoryMb, otherMb),
    interactionsIn15Minutes: interactionsWhere(LAMBDA_TIMEOUT_SECONDS, solveAtCap + otherSeconds, secondsPerInteraction),
    interactionsInFunctionMemory: interactionsWhere(memoryMb, top.peakRssMb, mbPerInteraction),
    interactionsIn10Gb: interactionsWhere(LAMBDA_MAX_MB, top.peakRssMb, mbPerInteraction),
  };

  const result: TrainingResult = { memoryMb, rows, solve, fit: { c: Number(fit.c.toPrecision(4)), exponent: r(fit.exponent) }, limits };
  for (const table of trainingTables(result)) printTable(table.title, table.headers, table.rows);
  return result;
}
