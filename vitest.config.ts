import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

/**
 * The test tiers (docs/testing.md), as vitest projects:
 * - unit: pure code, no I/O;
 * - infra: the CDK app's templates and cdk-nag;
 * - api: use cases, handlers and the authorizer in-process against DynamoDB Local;
 * - e2e: what needs real HTTP or a browser (the transport, the page, the share page, the CLI);
 * - deep: fault sweeps, property tests at full runs, hot items, search postings, sharded lists, the
 *   feed's cost at size, 5,000 refused comments.
 * `npm test` runs unit, infra, api and e2e (property tests at PROPERTY_RUNS 25); `npm run test:deep`
 * runs deep. The database tiers share a DynamoDB Local per worker (test/support/dynamo.ts).
 */
const database = { globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/setup-db.ts'] };

export default defineConfig({
  test: {
    setupFiles: ['test/support/setup-env.ts'],
    pool: 'forks',
    // Work-bounded limits, not speed checks (speed is npm run bench): a fault sweep replays an
    // operation once per request it makes, and a seeding hook writes a thousand videos; with two
    // files at a time on 2 cores either can take a few times what it takes alone.
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // expect.poll waits for a page or a process to catch up: a bound on waiting, not a measure of
    // speed, so as generous as the tests' own (its default, 1 s, failed test/e2e/web-moderation.test.ts
    // on a loaded machine).
    expect: { poll: { timeout: 60_000 } },
    // Two cores: two files at a time, the longest first whatever their tier (test/support/sequencer.ts).
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'threads', isolate: false } },
      // A synth bundles every function with esbuild: about 40 s for the stack alone, several times that
      // when the machine is loaded (the CI of db106cf, at a load average of 11 on 2 cores, passed 180 s
      // in a hook). A bound that stops a hung synth, not a measure of speed.
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 900_000, hookTimeout: 900_000 } },
      { extends: true, test: { name: 'api', include: ['test/api/**/*.test.ts'], env: { COMMENT_REFUSALS: '500' }, ...database } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], env: { PROPERTY_RUNS: '25' }, ...database } },
      {
        extends: true,
        test: {
          name: 'deep',
          include: ['test/deep/**/*.test.ts', 'test/e2e/properties.test.ts', 'test/api/hub-comment-numbers.test.ts'],
          env: { PROPERTY_RUNS: '200', COMMENT_REFUSALS: '5000' },
          ...database,
        },
      },
    ],
  },
});
