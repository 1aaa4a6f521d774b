import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests `npm run mutate` (stryker.config.json) runs against each mutant: those that exercise
 * lib/features/auth, lib/features/keys, lib/transport/http, lib/platform/secrets and the hub's parameters and paging (docs/testing.md,
 * "Mutation testing"). The feed, the CLI, the page in Chromium and the infra tests never reach a
 * mutated line, or only through these, and would only make each mutant slower. One project, with the
 * database tiers' setup (vitest.config.ts).
 */
const { projects: _tiers, ...shared } = base.test ?? {};
void _tiers;

export default defineConfig({
  ...base,
  test: {
    ...shared,
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup-env.ts', 'test/support/setup-db.ts'],
    include: [
      'test/unit/key-material.test.ts',
      'test/unit/error-mapper.test.ts',
      'test/unit/text.test.ts',
      'test/unit/route-access.test.ts',
      'test/unit/effective-roles.test.ts',
      'test/api/key-store.test.ts',
      'test/api/api-keys.test.ts',
      'test/api/jwt-claims.test.ts',
      'test/api/scope-gate.test.ts',
      'test/api/protected-admin.test.ts',
      'test/api/protected-export.test.ts',
      'test/api/route-declarations.test.ts',
      'test/api/hub-social.test.ts',
      'test/api/hub-profile.test.ts',
      'test/api/hub-page-edges.test.ts',
      'test/api/hub-signup.test.ts',
      'test/api/hub-sms-limits.test.ts',
      'test/e2e/transport.test.ts',
    ],
  },
});
