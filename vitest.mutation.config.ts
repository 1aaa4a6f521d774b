import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests `npm run mutate` (stryker.config.json) runs against each mutant: those that exercise
 * lib/auth, lib/keys, lib/http and the hub's parameters and paging. The feed, the CLI, the page in
 * Chromium and the infra tests never reach a mutated line, or only through these, and would only
 * make each mutant slower.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // Replaces the base list (mergeConfig would append to it).
    include: [
      'test/unit/key-material.test.ts',
      'test/unit/error-mapper.test.ts',
      'test/unit/text.test.ts',
      'test/api/key-store.test.ts',
      'test/e2e/api-keys.test.ts',
      'test/e2e/jwt-claims.test.ts',
      'test/e2e/scope-gate.test.ts',
      'test/e2e/protected-admin.test.ts',
      'test/e2e/protected-export.test.ts',
      'test/api/hub-social.test.ts',
      'test/e2e/hub-profile.test.ts',
      'test/e2e/hub-page-edges.test.ts',
      'test/e2e/hub-signup.test.ts',
      'test/e2e/hub-sms-limits.test.ts',
      'test/e2e/transport.test.ts',
    ],
  },
});
