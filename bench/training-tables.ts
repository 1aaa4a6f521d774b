import type { SizeResult, SolveResult } from './training-child.js';
import { LAMBDA_MAX_MB, matrixMb, REFRESHES_PER_MONTH, type CubicFit, type RefreshCost } from './training-cost.js';

/** The result of the training section (bench/sections/training.ts), as bench/results.json keeps it. */
export interface TrainingRow extends SizeResult {
  label: string;
  /** Write units of the lists one hourly refresh rewrites (measured at 1 % more actions, or the share of the largest row that measured it). */
  writeUnits: number;
  rewrittenShare: number;
  /** The refresh's time waiting on DynamoDB, modelled (bench/training-cost.ts refreshIoSeconds), and its whole: that plus the training's CPU time. */
  ioSeconds: number;
  refreshSeconds: number;
  cost: RefreshCost;
}

export interface TrainingResult {
  memoryMb: number;
  rows: TrainingRow[];
  solve: SolveResult['points'];
  fit: CubicFit;
  limits: {
    /** Videos whose solve alone ends within 15 minutes on one vCPU. */
    videosIn15Minutes: number;
    /** The same, leaving the largest row's other work (its phases but the solve, and its DynamoDB time) its share of the 15 minutes. */
    videosIn15MinutesWithRefresh: number;
    /** Videos whose matrix fits in 10,240 MB, and in the function's memory, beside the largest row's other memory. */
    videosIn10Gb: number;
    videosInFunctionMemory: number;
    /** With the catalog at maxVideos: the interactions at which the rest of the refresh (grouping, reading) brings it to 15 minutes, and its memory to the function's and to 10,240 MB (linear from the two largest rows). */
    interactionsIn15Minutes: number;
    interactionsInFunctionMemory: number;
    interactionsIn10Gb: number;
  };
}


const r = (x: number, digits = 2) => Number(x.toFixed(digits));
const sum = (reads: SizeResult['reads']) => reads.catalog + reads.likers + reads.histories + reads.states + reads.previousLists;

/** The training section's tables (bench/sections/training.ts), printed by its run and rendered into docs/reports/performance.md (bench/report.ts). */
export function trainingTables(t: TrainingResult): { title: string; headers: string[]; rows: (string | number)[][] }[] {
  const usd = (x: number) => x.toPrecision(2);
  return [
    {
      title: `The feed's model: training at 10k, 100k and 1M interactions (trainItemModel; CPU seconds of one vCPU, split by the profiler; refresh priced at ${t.memoryMb} MB arm64, hourly = ${REFRESHES_PER_MONTH} a month)`,
      headers: ['interactions', 'likes / views', 'videos', 'people', 'grouping s', 'validation s', 'gram s', 'solve s', 'lists s', 'GC s', 'train s (wall)', 'peak RSS MB', 'matrix MB', 'read units', 'lists rewritten / hour', 'write units', 'DynamoDB wait s (modelled)', 'GB-s', 'USD / refresh: Lambda', 'DynamoDB', 'total', 'USD / month'],
      rows: t.rows.map((m) => [
        m.interactions,
        `${m.likes} / ${m.views}`,
        m.model.videos,
        m.model.people,
        m.phases.grouping,
        m.phases.validation ?? 'n/a',
        m.phases.gram,
        m.phases.solve,
        m.phases.lists,
        m.phases.gc,
        `${m.trainSeconds} (${m.trainWallSeconds})`,
        m.peakRssMb,
        m.matrixMb,
        r(sum(m.reads), 0),
        `${Math.round(m.rewrittenShare * m.model.lists)} (${Math.round(m.rewrittenShare * 100)} %${m.update ? '' : ', share of the 100k row'})`,
        m.writeUnits,
        m.ioSeconds,
        r(m.cost.gbSeconds, 0),
        usd(m.cost.lambdaUsd),
        usd(m.cost.dynamoUsd),
        usd(m.cost.usd),
        m.cost.usdPerMonth.toFixed(2),
      ]),
    },
    {
      title: 'Read units of one refresh by what it reads (eventually consistent; the indexes keys-only where the refresh reads keys), and the requests',
      headers: ['interactions', 'catalog (gsi3)', "likers (gsi2, a Query a video)", 'histories (gsi1, a Query a person)', 'feed states (BatchGet)', 'previous lists (BatchGet)', 'requests', 'list bytes'],
      rows: t.rows.map((m) => [m.interactions, m.reads.catalog, m.reads.likers, m.reads.histories, m.reads.states, m.reads.previousLists, m.reads.requests, m.listBytes]),
    },
    {
      title: `The solve alone (easeWeights: n^3 / 2 multiply-adds), CPU seconds; fit t = c n^3: c = ${t.fit.c} s (free fit: exponent ${t.fit.exponent})`,
      headers: ['videos n', 'solve s', 'wall s', 'c n^3 s', 'matrix MB'],
      rows: t.solve.map((p) => [p.n, p.seconds, p.wallSeconds, r(t.fit.c * p.n ** 3), r(matrixMb(p.n), 0)]),
    },
    {
      title: "Where one refresh outgrows the function (one vCPU; Lambda's 15 minutes and 10,240 MB)",
      headers: ['limit', 'videos', 'interactions (catalog at maxVideos)'],
      rows: [
        ['15 minutes: the solve alone', t.limits.videosIn15Minutes, ''],
        ['15 minutes: the whole refresh (the 1M row\'s other work kept)', t.limits.videosIn15MinutesWithRefresh, t.limits.interactionsIn15Minutes],
        [`memory: the function's ${t.memoryMb} MB`, t.limits.videosInFunctionMemory, t.limits.interactionsInFunctionMemory],
        [`memory: ${LAMBDA_MAX_MB} MB`, t.limits.videosIn10Gb, t.limits.interactionsIn10Gb],
      ],
    },
  ];
}
