import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup-env.ts'],
    pool: 'forks',
    // Work-bounded limits, not speed checks (speed is npm run bench): a fault sweep replays an
    // operation once per request it makes and waits for the stream processor after each, and a
    // seeding hook writes a thousand videos; with two files at a time on 2 cores either can take
    // a few times what it takes alone.
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // Each file has its own DynamoDB Local (test/support/dynamo.ts); two cores, so two files at a time.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
