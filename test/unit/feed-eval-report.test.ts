import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FEED_EVAL_REPORT, GENERATIONS, renderMarkdown, renderReportPage, type Generation } from '../../bench/feed-eval/report.js';
import type { EvalResult } from '../../bench/feed-eval/targets.js';

/**
 * docs/reports/feed-eval.md is what npm run eval:feed writes from the saved figures
 * (bench/feed-eval.json, beside the earlier generations'): a page edited by hand, or figures committed
 * without their page, fail here.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const saved = (file: string) => JSON.parse(readFileSync(resolve(ROOT, 'bench', file), 'utf8')) as EvalResult;

describe('docs/reports/feed-eval.md', () => {
  it('is what npm run eval:feed renders from bench/feed-eval.json', () => {
    // As run.ts does: the generations whose figures are on disk, except the one the saved run measured.
    const result = saved('feed-eval.json');
    const earlier: Generation[] = GENERATIONS.filter(([label]) => label !== result.meta.label && existsSync(resolve(ROOT, 'bench', `feed-eval-${label}.json`))).map(([label, name]) => ({ label, name, result: saved(`feed-eval-${label}.json`) }));
    const markdown = renderMarkdown(result, earlier);
    expect(markdown).toContain('#### Targets');
    expect(readFileSync(resolve(ROOT, FEED_EVAL_REPORT), 'utf8')).toBe(renderReportPage(markdown));
  });
});
