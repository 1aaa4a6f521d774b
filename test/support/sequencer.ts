import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in (vitest.config.ts, `sequence.sequencer`): the longest first, whatever
 * their tier. Vitest's own order runs the projects one after the other (api, e2e, infra, unit by
 * name), longest first within each, so the infra tier's synths started when the api and e2e files
 * were done and one worker ran them alone at the end while the other had nothing left. Two files
 * run at a time (two cores); starting the longest first leaves the short ones to fill the end.
 *
 * How long a file takes comes from vitest's results cache (its last run on this machine, in
 * node_modules/.vite); where the cache has no result (a fresh clone, as in CI, where
 * `npm ci` starts node_modules afresh) from durations.json: seconds per `project:file` as this 2-core
 * machine's cache held them (2026-11-29). A stale figure only changes the order, never a result.
 * Without either (a new file) a file runs first, larger files before smaller, as in vitest's order.
 */
const committed = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
    const seconds = (spec: TestSpecification) => {
      const cached = cache.getFileTestResults(key(spec));
      return cached ? cached.duration / 1000 : committed[key(spec)];
    };
    const failed = (spec: TestSpecification) => cache.getFileTestResults(key(spec))?.failed === true;
    return [...files].sort((a, b) => {
      const groupOrder = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (groupOrder !== 0) return groupOrder;
      // A file that failed last time runs first, as in vitest's order.
      if (failed(a) !== failed(b)) return failed(a) ? -1 : 1;
      const [aSeconds, bSeconds] = [seconds(a), seconds(b)];
      if (aSeconds !== undefined && bSeconds !== undefined) return bSeconds - aSeconds;
      if (aSeconds !== undefined || bSeconds !== undefined) return aSeconds === undefined ? -1 : 1;
      return (cache.getFileStats(key(b))?.size ?? 0) - (cache.getFileStats(key(a))?.size ?? 0);
    });
  }
}
