import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COST_DOC, DAILY_MIX, dynamoUsd, estimate, httpApiUsd, lambdaUsd, LEVELS, MONTH_DAYS, renderCostDoc, SMS_COUNTRIES, usd, type Level } from '../../bench/cost-report.js';
import { ITEM_MODEL } from '../../lib/features/recommend/neighbours.js';
import { PRICES } from '../../bench/prices.js';
import { readResults, type BenchResults } from '../../bench/report.js';

/**
 * docs/reports/cost.md is what npm run cost:report renders from the committed bench/results.json and
 * bench/prices.ts: a bench run or a price change committed without the page fails here.
 */
const results = readResults();
const doc = readFileSync(COST_DOC, 'utf8');
const [small] = LEVELS;
const lineOf = (e: ReturnType<typeof estimate>, service: string, item: string) => {
  const line = e.lines.find((l) => l.service === service && l.item === item);
  expect(line, `${service} ${item}`).toBeDefined();
  return line!.usd;
};

describe('docs/reports/cost.md', () => {
  it('is what npm run cost:report renders from the committed results and prices', () => {
    expect(doc).toContain('## The month');
    expect(doc).toBe(renderCostDoc(results));
  });

  it('prints totals that are the sum of the lines printed above them, at every level', () => {
    const table = doc.slice(doc.indexOf('## The month'), doc.indexOf('## What each line counts'));
    const cells = table
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| service') && !l.startsWith('| per 1,000'))
      .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
    const total = cells.find((c) => c[0] === '**total**')!;
    const lines = cells.filter((c) => c !== total);
    expect(lines.length).toBeGreaterThan(30);
    const amount = (cell: string) => Number(cell.replace(/[*,]/g, ''));
    LEVELS.forEach((_, i) => {
      const sum = lines.reduce((s, c) => s + amount(c[2 + i]!), 0);
      // Each printed line is rounded to the cent.
      expect(Math.abs(sum - amount(total[2 + i]!))).toBeLessThanOrEqual(0.005 * lines.length);
    });
  });
});

describe('the estimate', () => {
  it('totals its lines exactly, at every level', () => {
    for (const level of LEVELS) {
      const e = estimate(results, level);
      expect(e.total).toBe(e.lines.reduce((s, l) => s + l.usd, 0));
      expect(e.total).toBeGreaterThan(0);
    }
  });

  it('prices Lambda, the HTTP API and DynamoDB units as computed by hand', () => {
    // 1M invocations of 100 ms at 512 MB: 50,000 GB-s at arm64's price, plus 1M requests.
    expect(lambdaUsd(1e6, 100, 512)).toBeCloseTo(50_000 * 0.0000133334 + 0.2, 10);
    // Billed per whole millisecond: 99.2 ms is 100.
    expect(lambdaUsd(1e6, 99.2, 512)).toBe(lambdaUsd(1e6, 100, 512));
    expect(lambdaUsd(1e6, 100, 512, 'x86_64')).toBeCloseTo(50_000 * 0.0000166667 + 0.2, 10);
    // 400M HTTP API requests: 300M at the first tier, 100M beyond.
    expect(httpApiUsd(400e6)).toBeCloseTo(300 * 1 + 100 * 0.9, 10);
    expect(httpApiUsd(300e6)).toBeCloseTo(300, 10);
    expect(dynamoUsd(2e6, 1e6)).toBeCloseTo(2 * 0.125 + 0.625, 10);
  });

  it('prices the sign-in SMS per country from the mix: one code per returning sign-in (every 30 days) and per new account', () => {
    const e = estimate(results, small);
    // 1,000 DAU, 30 days: 1/30 of them sign in again a day and 0.5 % are new; 90 % of codes to CN at its price.
    const codes = 1000 * 30 * (1 / 30 + 0.005);
    expect(lineOf(e, 'SNS SMS', 'sign-in codes to CN')).toBeCloseTo(codes * 0.9 * PRICES.smsPerMessage.CN!, 6);
    expect(lineOf(e, 'SNS SMS', 'sign-in codes to US')).toBeCloseTo(codes * 0.02 * PRICES.smsPerMessage.US!, 6);
    expect(Object.values(SMS_COUNTRIES).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 10);
  });

  it("follows the bench: one more write unit on a like costs the month's likes one more unit each", () => {
    const more: BenchResults = structuredClone(results);
    more.cost!.rows.find((r) => r.operation === 'like (first like)')!.wcu += 1;
    const likesPerMonth = DAILY_MIX.find((m) => m.row === 'like (first like)')!.perDauPerDay * small.dau * MONTH_DAYS;
    const delta = lineOf(estimate(more, small), 'DynamoDB', 'writes, request path') - lineOf(estimate(results, small), 'DynamoDB', 'writes, request path');
    expect(delta).toBeCloseTo((likesPerMonth / 1e6) * PRICES.dynamoWritePerMillionWru, 10);
  });

  it('prices the model refresh: reads grow with the whole catalog, writes and training stop at the model\'s cap, training as the fitted c n^3 of the solve and the validation\'s solves', () => {
    const cap = ITEM_MODEL.maxVideos;
    const at = (videos: number, c = results.training!.fit.c) => {
      const r: BenchResults = structuredClone(results);
      r.training!.fit.c = c;
      return estimate(r, { dau: small.dau, videos } as unknown as Level);
    };
    const near = (a: number, b: number) => expect(Math.abs(a - b) / Math.abs(b)).toBeLessThan(1e-4);

    // DynamoDB: a v + b min(v, cap): reads for every video, a rewritten list for each video in the model.
    const store = (videos: number) => lineOf(at(videos), 'DynamoDB', 'model refresh');
    const perVideoRead = (store(3 * cap) - store(2 * cap)) / cap;
    near(store(4 * cap) - store(3 * cap), perVideoRead * cap);
    const perModelWrite = (store(cap) - store(cap / 2)) / (cap / 2) - perVideoRead;
    expect(perModelWrite).toBeGreaterThan(0);
    near(store(cap / 2), ((perVideoRead + perModelWrite) * cap) / 2);

    // Lambda: the training's share, isolated by doubling the fitted constant, is c (n^3 + k min(n, validation)^3), n = min(videos, cap).
    const c = results.training!.fit.c;
    const refresh = (videos: number, k = c) => lineOf(at(videos, k), 'Lambda', 'model refresh, hourly');
    const training = (videos: number) => refresh(videos, 2 * c) - refresh(videos, c);
    const solves = (n: number) => n ** 3 + ITEM_MODEL.lambdaShares.length * Math.min(n, ITEM_MODEL.validationVideos) ** 3;
    expect(training(cap)).toBeGreaterThan(0);
    near(training(cap / 4) / training(cap), solves(cap / 4) / solves(cap));
    near(training(3 * cap), training(cap));
    near(refresh(cap, 3 * c) - refresh(cap, c), 2 * training(cap));
  });

  it('refuses a mix entry whose bench row is missing, naming it', () => {
    const fewer: BenchResults = structuredClone(results);
    fewer.cost!.rows = fewer.cost!.rows.filter((r) => r.operation !== 'gen_code');
    expect(() => estimate(fewer, small)).toThrow(/no cost row "gen_code"/);
  });

  it('prints USD to the cent with thousands separators', () => {
    expect(usd(31657.5)).toBe('31,657.50');
    expect(usd(0.004)).toBe('0.00');
  });
});
