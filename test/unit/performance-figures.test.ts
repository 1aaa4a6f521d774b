import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PERFORMANCE_REPORT, renderPerformanceReport } from '../../bench/figures.js';
import { readResults, renderReport } from '../../bench/report.js';

/**
 * docs/reports/performance.md is bench/results.json's figures (npm run bench:report writes it whole):
 * a run whose results are committed without its page, or a table edited by hand, fails here.
 */
const doc = readFileSync(PERFORMANCE_REPORT, 'utf8');
const results = readResults();

describe('docs/reports/performance.md', () => {
  it('is what npm run bench:report renders from the committed bench/results.json', () => {
    // Not vacuous: the page holds the tables of every section the results have.
    const rendered = renderReport(results);
    expect(rendered).toContain('### Targets');
    expect(rendered).toContain('### DynamoDB requests and capacity per call');
    expect(doc).toContain(rendered.trimEnd());
    expect(doc).toBe(renderPerformanceReport(results));
  });
});
