import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTables } from '../infra/local/create-tables.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Runs a bench section's `script` in a child process on tables of its own (created under `prefix` in
 * the bench's DynamoDB Local): a fresh config, no data from the other sections. The child prints its
 * tables and writes its result as JSON to BENCH_RESULT_FILE, returned here.
 */
export async function runSectionChild<T>(script: string, prefix: string, options: { quick: boolean; settings: Record<string, string>; env?: Record<string, string> }): Promise<T> {
  const tables = await createTables(options.settings.DYNAMODB_ENDPOINT!, prefix);
  const dir = mkdtempSync(join(tmpdir(), `expohub-${prefix.replace(/_$/, '')}-`));
  const resultFile = join(dir, 'result.json');
  try {
    const code = await new Promise<number | null>((done, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, script)], {
        cwd: ROOT,
        env: { ...process.env, ...options.settings, ...tables, ...options.env, BENCH_RESULT_FILE: resultFile, BENCH_QUICK: options.quick ? '1' : '' },
        stdio: 'inherit',
      });
      child.once('error', reject);
      child.once('exit', done);
    });
    if (code !== 0) throw new Error(`${script} exited with ${code}`);
    return JSON.parse(readFileSync(resultFile, 'utf8')) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
