import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The compiler catches a wrong parameter and a misspelled method of @expohub/client: the fixture
 * (test/unit/client-types/fixture.ts) compiles under tsc --strict only when each line marked
 * `@ts-expect-error` is an error (an unused one fails the compile).
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

describe('@expohub/client types', () => {
  it('compile the right calls and refuse wrong parameters and misspelled methods under tsc --strict', async () => {
    // No Node types: the client compiles for a browser or React Native.
    const compilerOptions = { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: [], skipLibCheck: true };
    const dir = await mkdtemp(join(tmpdir(), 'expohub-client-types-'));
    try {
      await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [join(ROOT, 'test/unit/client-types/fixture.ts')] }));
      const out = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')]).then(
        () => '',
        (error: { stdout?: string; message: string }) => error.stdout || error.message,
      );
      expect(out).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
