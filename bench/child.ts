import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTables } from '../local/create-tables.js';
import { startDynamoDbLocal } from '../local/dynamodb-local.js';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Runs a bench section's `script` in a child process on tables of its own (created under `prefix` in
 * a DynamoDB Local of its own): a fresh config, no data from the other sections. On the bench's
 * DynamoDB Local, every write to a new table with a stream paid a scan of the stream records the
 * earlier sections had written (DynamoDB Local looks a stream's shard up that way: see
 * test/support/dynamo.ts): 41 s to seed 1,000 videos after the cost section. The child prints its
 * tables and writes its result as JSON to BENCH_RESULT_FILE, returned here.
 */
export async function runSectionChild<T>(script: string, prefix: string, options: { quick: boolean; settings: Record<string, string>; env?: Record<string, string> }): Promise<T> {
  const dynamo = await startDynamoDbLocal();
  try {
    return await runOn<T>(dynamo.endpoint, script, prefix, options);
  } finally {
    await dynamo.stop();
  }
}

async function runOn<T>(endpoint: string, script: string, prefix: string, options: { quick: boolean; settings: Record<string, string>; env?: Record<string, string> }): Promise<T> {
  const tables = await createTables(endpoint, prefix);
  const dir = mkdtempSync(join(tmpdir(), `expohub-${prefix.replace(/_$/, '')}-`));
  const resultFile = join(dir, 'result.json');
  try {
    const code = await new Promise<number | null>((done, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, script)], {
        cwd: ROOT,
        env: { ...process.env, ...options.settings, DYNAMODB_ENDPOINT: endpoint, ...tables, ...options.env, BENCH_RESULT_FILE: resultFile, BENCH_QUICK: options.quick ? '1' : '' },
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
