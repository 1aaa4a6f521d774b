import { describe, expect, it } from 'vitest';
import { PRICES } from '../../bench/prices.js';
import {
  batchGetReadUnits,
  fitCubic,
  matrixMb,
  putWriteUnits,
  queryReadUnits,
  refreshCost,
  refreshIoSeconds,
  REFRESHES_PER_MONTH,
  videosWithinMemory,
  videosWithinSeconds,
} from '../../bench/training-cost.js';

describe('the training benchmark: the n^3 fit and the limits (bench/training-cost.ts)', () => {
  it('finds c of points that lie on t = c n^3, and their exponent', () => {
    const c = 1e-9;
    const fit = fitCubic([1000, 2000, 4000].map((n) => ({ n, seconds: c * n ** 3 })));
    expect(fit.c).toBeCloseTo(c, 15);
    expect(fit.exponent).toBeCloseTo(3, 10);
  });

  it('takes the geometric mean of t / n^3 when the points are off the cubic, and reports their own exponent', () => {
    // t / n^3 = 1e-9 and 5e-10: their geometric mean; t grows as n^2 between them.
    const fit = fitCubic([
      { n: 1000, seconds: 1 },
      { n: 2000, seconds: 4 },
    ]);
    expect(fit.c).toBeCloseTo(Math.sqrt(1e-9 * 5e-10), 15);
    expect(fit.exponent).toBeCloseTo(2, 10);
    expect(fitCubic([{ n: 1000, seconds: 2 }]).exponent).toBe(3);
    expect(() => fitCubic([{ n: 1000, seconds: 0 }])).toThrow(RangeError);
  });

  it('gives the catalog sizes within a time and a memory, at the edge and one past it', () => {
    const c = 1e-9;
    expect(videosWithinSeconds(c, 900)).toBe(9654); // cbrt(9e11) = 9654.9
    expect(c * 9654 ** 3).toBeLessThanOrEqual(900);
    expect(c * 9655 ** 3).toBeGreaterThan(900);
    // 8 n^2 bytes: 10,240 MB holds n = 36,635 (sqrt(10240 * 2^20 / 8)), less beside 1,000 MB of other use.
    expect(videosWithinMemory(10_240)).toBe(36_635);
    expect(8 * 36_636 ** 2).toBeGreaterThan(10_240 * 2 ** 20);
    expect(videosWithinMemory(10_240, 1_000)).toBe(Math.floor(Math.sqrt((9_240 * 2 ** 20) / 8)));
    expect(videosWithinMemory(100, 200)).toBe(0);
    expect(matrixMb(6000)).toBeCloseTo(274.66, 2);
  });
});

describe('the training benchmark: request units and a refresh\'s price (bench/training-cost.ts)', () => {
  it('counts a Query by 4 KB pages, halved, one unit at least', () => {
    expect(queryReadUnits(0)).toBe(0.5);
    expect(queryReadUnits(4096)).toBe(0.5);
    expect(queryReadUnits(4097)).toBe(1);
    // Past 1 MB the Query takes a second page, rounded on its own.
    expect(queryReadUnits(1024 * 1024)).toBe(128);
    expect(queryReadUnits(1024 * 1024 + 1)).toBe(128.5);
  });

  it('counts a BatchGet item by 4 KB, halved, a missing item one unit; a put by 1 KB', () => {
    expect(batchGetReadUnits(0)).toBe(0.5);
    expect(batchGetReadUnits(4096)).toBe(0.5);
    expect(batchGetReadUnits(4459)).toBe(1);
    expect(putWriteUnits(1024)).toBe(1);
    expect(putWriteUnits(4459)).toBe(5);
    expect(putWriteUnits(10)).toBe(1);
  });

  it('prices a refresh: GB-seconds of arm64 at the memory, request units on demand, a month of hourly runs', () => {
    const cost = refreshCost({ seconds: 100, memoryMb: 2048, readUnits: 1e6, writeUnits: 2e6 });
    expect(cost.gbSeconds).toBe(200);
    expect(cost.lambdaUsd).toBeCloseTo(200 * PRICES.lambdaArmPerGbSecond + 2e-7, 12);
    expect(cost.dynamoUsd).toBeCloseTo(PRICES.dynamoReadPerMillionRru + 2 * PRICES.dynamoWritePerMillionWru, 12);
    expect(cost.usd).toBeCloseTo(cost.lambdaUsd + cost.dynamoUsd, 12);
    expect(cost.usdPerMonth).toBeCloseTo(cost.usd * 730, 10);
    expect(REFRESHES_PER_MONTH).toBe(730);
  });

  it('models the DynamoDB wait of a refresh from its requests', () => {
    // 1,600 likers' Queries 16 at a time (1 s); 16,000 histories 16 at a time (10 s) beside 160
    // BatchGets one after the other (4.8 s); 16 BatchGets of previous lists (0.48 s); 2,000 writes:
    // 80 BatchWrites 8 at a time (0.3 s); the catalog's Query (0.01 s).
    expect(refreshIoSeconds({ videos: 1600, people: 16_000, writes: 2000 })).toBeCloseTo(0.01 + 1 + 10 + 0.48 + 0.3, 10);
    // The histories' Queries (7 rounds of 16) outlast the one BatchGet of the states.
    expect(refreshIoSeconds({ videos: 0, people: 100, writes: 0 })).toBeCloseTo(0.01 + 0.07, 10);
  });
});
