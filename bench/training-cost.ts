import { PRICES } from './prices.js';

/**
 * The arithmetic of the training benchmark (bench/sections/training.ts): the n^3 fit of the dense
 * solve, the catalog sizes at which it passes a time or memory limit, and a refresh's price from its
 * measured time and its counted DynamoDB items. Pure: test/unit/training-cost.test.ts drives it.
 */

/** Lambda gives a function one full vCPU at 1,769 MB (more memory, more vCPUs, up to 6 at 10,240 MB). */
export const ONE_VCPU_MB = 1769;
/** Lambda's limits: 15 minutes a run, 10,240 MB. */
export const LAMBDA_TIMEOUT_SECONDS = 900;
export const LAMBDA_MAX_MB = 10_240;
/** Hourly refreshes in a month (365 x 24 / 12). */
export const REFRESHES_PER_MONTH = 730;

/** DynamoDB's units: reads by 4 KB (an eventually consistent read costs half), writes by 1 KB; a Query's page holds at most 1 MB. */
const READ_UNIT_BYTES = 4096;
const WRITE_UNIT_BYTES = 1024;
const QUERY_PAGE_BYTES = 1024 * 1024;

export interface CubicFit {
  /** t = c n^3, c in seconds: the geometric mean of t / n^3 over the points (a least-squares fit of log t with the exponent fixed at 3). */
  c: number;
  /** The exponent of a free fit t = a n^p (least squares of log t on log n): how well n^3 holds over the points. */
  exponent: number;
}

export function fitCubic(points: readonly { n: number; seconds: number }[]): CubicFit {
  const usable = points.filter((p) => p.n > 1 && p.seconds > 0);
  if (usable.length === 0) throw new RangeError('fitCubic: no point with n > 1 and a positive time');
  const logs = usable.map((p) => ({ x: Math.log(p.n), y: Math.log(p.seconds) }));
  const c = Math.exp(logs.reduce((s, l) => s + l.y - 3 * l.x, 0) / logs.length);
  if (logs.length < 2) return { c, exponent: 3 };
  const mx = logs.reduce((s, l) => s + l.x, 0) / logs.length;
  const my = logs.reduce((s, l) => s + l.y, 0) / logs.length;
  const sxx = logs.reduce((s, l) => s + (l.x - mx) ** 2, 0);
  const exponent = sxx > 0 ? logs.reduce((s, l) => s + (l.x - mx) * (l.y - my), 0) / sxx : 3;
  return { c, exponent };
}

/** The largest catalog (videos) whose solve, c n^3, ends within `seconds`. */
export const videosWithinSeconds = (c: number, seconds: number): number => Math.floor(Math.cbrt(seconds / c));

/** The largest catalog whose dense matrix (8 n^2 bytes) fits in `megabytes` beside `otherMb` (the process and the input). */
export const videosWithinMemory = (megabytes: number, otherMb = 0): number => Math.floor(Math.sqrt((Math.max(0, megabytes - otherMb) * 2 ** 20) / 8));

/** The dense matrix of n videos, MB. */
export const matrixMb = (n: number): number => (8 * n * n) / 2 ** 20;

/**
 * Read request units of one Query returning items of these total bytes: each page (1 MB at most)
 * rounded up to 4 KB, at least one unit, halved (an index is read eventually consistent).
 */
export function queryReadUnits(bytes: number): number {
  let units = 0;
  let left = bytes;
  do {
    const page = Math.min(left, QUERY_PAGE_BYTES);
    units += Math.max(1, Math.ceil(page / READ_UNIT_BYTES));
    left -= page;
  } while (left > 0);
  return units / 2;
}

/** Read request units of one item read by BatchGetItem, eventually consistent: its size rounded up to 4 KB (a missing item costs one), halved. */
export const batchGetReadUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES)) / 2;

/** Write request units of one put: its size rounded up to 1 KB. */
export const putWriteUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));

export interface RefreshCost {
  gbSeconds: number;
  lambdaUsd: number;
  readUnits: number;
  writeUnits: number;
  dynamoUsd: number;
  usd: number;
  usdPerMonth: number;
}

/** One refresh's price: `seconds` on an arm64 function of `memoryMb`, and its DynamoDB request units (on demand). */
export function refreshCost({ seconds, memoryMb, readUnits, writeUnits }: { seconds: number; memoryMb: number; readUnits: number; writeUnits: number }): RefreshCost {
  const gbSeconds = (memoryMb / 1024) * seconds;
  const lambdaUsd = gbSeconds * PRICES.lambdaArmPerGbSecond + PRICES.lambdaPerMillionRequests / 1e6;
  const dynamoUsd = (readUnits * PRICES.dynamoReadPerMillionRru + writeUnits * PRICES.dynamoWritePerMillionWru) / 1e6;
  const usd = lambdaUsd + dynamoUsd;
  return { gbSeconds, lambdaUsd, readUnits, writeUnits, dynamoUsd, usd, usdPerMonth: usd * REFRESHES_PER_MONTH };
}

/**
 * The refresh's time waiting on DynamoDB, modelled (DynamoDB Local's times say nothing of the
 * service's): a Query of one small partition 10 ms, a BatchGet or BatchWrite 30 ms, as the refresh
 * sends them (lib/features/recommend/model-refresh.ts): the likers' Queries 16 at a time; then the
 * histories' Queries, 16 at a time, beside the feed states' BatchGets of 100, one after the other;
 * the previous lists' BatchGets of 100, one after the other; the writes 25 a batch, 8 at a time.
 */
export const REQUEST_SECONDS = { query: 0.01, batch: 0.03 };
export function refreshIoSeconds({ videos, people, writes }: { videos: number; people: number; writes: number }): number {
  const { query, batch } = REQUEST_SECONDS;
  const likers = Math.ceil(videos / 16) * query;
  const views = Math.max(Math.ceil(people / 16) * query, Math.ceil(people / 100) * batch);
  const previous = Math.ceil(videos / 100) * batch;
  const written = Math.ceil(Math.ceil(writes / 25) / 8) * batch;
  return query + likers + views + previous + written;
}
