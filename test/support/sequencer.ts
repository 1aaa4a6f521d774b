import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in (vitest.config.ts, `sequence.sequencer`): the longest first, whatever
 * their tier. Vitest's own order runs the projects one after the other (api, e2e, infra, unit by
 * name), longest first within each, so the infra tier's synths started when the api and e2e files
 * were done and one worker ran them alone at the end while the other had nothing left. Two files
 * run at a time (two cores); starting the longest first leaves the short ones to fill the end.
 *
 * How long a file took comes from vitest's results cache (its last run here); a file never run
 * here (a fresh clone) is taken as long as its size says, larger first, as vitest does.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const key = (spec: TestSpecification) => `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
    const known = (spec: TestSpecification) => cache.getFileTestResults(key(spec));
    return [...files].sort((a, b) => {
      const groupOrder = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (groupOrder !== 0) return groupOrder;
      const aState = known(a);
      const bState = known(b);
      if (aState && bState) {
        if (aState.failed !== bState.failed) return aState.failed ? -1 : 1;
        return bState.duration - aState.duration;
      }
      // A file with no result yet runs first (its length is unknown), then by size.
      if (aState || bState) return aState ? 1 : -1;
      return (cache.getFileStats(key(b))?.size ?? 0) - (cache.getFileStats(key(a))?.size ?? 0);
    });
  }
}
