import { describe, expect, it } from 'vitest';
import { bundleClient, committedBundle } from '../../cli/bundle-client.js';
import { OPERATIONS } from '../../client/src/index.js';

/**
 * The CLI runs on @expohub/client through a committed bundle of it (cli/src/vendor/client.mjs), so its
 * tarball installs offline with no dependency. A change to client/src/ must be re-bundled:
 * `npx tsx cli/bundle-client.ts`.
 */
describe("the CLI's copy of @expohub/client", () => {
  it('is the bundle of client/src/ as it is now', async () => {
    expect(await committedBundle()).toBe(await bundleClient());
  });

  it('runs on its own: no import, the same operations as the client', async () => {
    const text = await committedBundle();
    expect(text).not.toMatch(/^\s*import\s/m);
    const file = '../../cli/src/vendor/client.mjs'; // plain JavaScript without declarations
    const bundled = (await import(file)) as { OPERATIONS: unknown; createClient: unknown };
    expect(bundled.OPERATIONS).toEqual(OPERATIONS);
    expect(typeof bundled.createClient).toBe('function');
  });
});
