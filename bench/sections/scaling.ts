import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTables } from '../../infra/local/create-tables.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface ScalingRow {
  label: string;
  requests: number;
  requestsMax: number;
  rcu: number;
  wcu: number;
  p50: number;
  p99: number;
  commands?: string;
  error?: string;
  skipped?: string;
}

export interface ScalingResult {
  sizes?: Record<string, number[]>;
  seedSeconds?: Record<string, number>;
  feed?: ScalingRow[];
  commentPages?: ScalingRow[];
  followerOffsets?: ScalingRow[];
  verifyKeys?: ScalingRow[];
}

/**
 * The scaling tables run in a child process on tables of their own (fresh config, no data from the
 * other sections), in the bench's DynamoDB Local. The child prints its tables and hands back JSON.
 */
export async function scalingSection(options: { quick: boolean; settings: Record<string, string> }): Promise<ScalingResult> {
  const tables = await createTables(options.settings.DYNAMODB_ENDPOINT!, 'scale_');
  const dir = mkdtempSync(join(tmpdir(), 'expohub-scaling-'));
  const resultFile = join(dir, 'scaling.json');
  try {
    const code = await new Promise<number | null>((done, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'bench/scaling-child.ts')], {
        cwd: ROOT,
        env: { ...process.env, ...options.settings, ...tables, BENCH_RESULT_FILE: resultFile, BENCH_QUICK: options.quick ? '1' : '' },
        stdio: 'inherit',
      });
      child.once('error', reject);
      child.once('exit', done);
    });
    if (code !== 0) throw new Error(`scaling child exited with ${code}`);
    return JSON.parse(readFileSync(resultFile, 'utf8')) as ScalingResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
