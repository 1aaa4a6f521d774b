import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIGURES_END, FIGURES_START, figuresRegion, PERFORMANCE_DOC, withFigures } from '../../bench/figures.js';
import { readResults, renderReport } from '../../bench/report.js';

/**
 * The figures of docs/performance.md are bench/results.json's (npm run bench:report writes them):
 * a run whose results are committed without its tables, or a table edited by hand, fails here.
 */
const doc = readFileSync(PERFORMANCE_DOC, 'utf8');
const rendered = renderReport(readResults());

describe('the figures of docs/performance.md', () => {
  it('are what npm run bench:report renders from the committed bench/results.json', () => {
    // Not vacuous: the region holds the tables of every section the results have.
    expect(rendered).toContain('### Targets');
    expect(rendered).toContain('### DynamoDB requests and capacity per call');
    expect(figuresRegion(doc).figures).toBe(`${rendered.trimEnd()}\n`);
  });

  it('are rewritten in place: only the text between the markers changes', () => {
    const page = `# Title\n\n${FIGURES_START}\n\nold table\n\n${FIGURES_END}\n\nAfter.\n`;
    const updated = withFigures(page, '### New\n\n| a |\n|---|\n| 1 |\n');
    expect(updated).toBe(`# Title\n\n${FIGURES_START}\n\n### New\n\n| a |\n|---|\n| 1 |\n\n${FIGURES_END}\n\nAfter.\n`);
    expect(figuresRegion(updated).figures).toBe('### New\n\n| a |\n|---|\n| 1 |\n');
    expect(withFigures(updated, '### New\n\n| a |\n|---|\n| 1 |\n')).toBe(updated);
  });

  it('need both markers, in order', () => {
    expect(() => withFigures('# Title\n\nno markers\n', 'x')).toThrow(/figures:start/);
    expect(() => withFigures(`${FIGURES_END}\n${FIGURES_START}\n`, 'x')).toThrow(/figures:end/);
  });
});
