import { describe, expect, it } from 'vitest';
import { formatTable } from '../../bench/format.js';
import { median, mode, percentile, round, summarize } from '../../bench/stats.js';

describe('bench statistics', () => {
  it('takes nearest-rank percentiles of unsorted samples', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([1, 2, 3, 4, 1000], 99)).toBe(1000);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2);
  });

  it('does not reorder the caller\'s samples and rejects nonsense', () => {
    const samples = [3, 1, 2];
    percentile(samples, 50);
    expect(samples).toEqual([3, 1, 2]);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });

  it('summarizes, finds the mode and rounds', () => {
    expect(summarize([5, 1, 3])).toEqual({ n: 3, min: 1, p50: 3, p90: 5, p99: 5, max: 5, mean: 3 });
    expect(mode([2, 3, 3, 2, 2])).toBe(2);
    expect(mode([3, 2])).toBe(2);
    expect(round(1.23456)).toBe(1.23);
    expect(round(1.5, 0)).toBe(2);
  });

  it('formats aligned tables', () => {
    expect(formatTable(['op', 'n'], [['like', 3], ['get_fav', undefined]])).toBe(
      ['| op      | n |', '|---------|---|', '| like    | 3 |', '| get_fav |   |'].join('\n'),
    );
  });
});
