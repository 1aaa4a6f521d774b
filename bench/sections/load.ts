import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';
import { accessKeyFor, bearer } from '../fixtures.js';
import { printTable } from '../format.js';
import { hubRequest } from '../invoke.js';
import { round } from '../stats.js';
import { world } from '../world.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface LoadRow {
  target: string;
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface LoadTarget {
  name: string;
  path: string;
  headers?: Record<string, string>;
}

async function startServer(settings: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'bench/serve.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...settings },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    lines.once('line', (line) => resolveUrl((JSON.parse(line) as { url: string }).url));
  });
  return { url, child };
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/**
 * Requests per second and latency through the local HTTP server (the API Gateway stand-in, in its own
 * process) under autocannon, at 1 and 16 connections, only against 127.0.0.1.
 */
export async function loadSection(options: { quick: boolean; settings: Record<string, string> }): Promise<{ rows: LoadRow[]; missing: string[] }> {
  const seconds = options.quick ? 1 : 5;
  const w = await world();
  const { api_key } = await accessKeyFor(w.alice.openid);
  const targets: LoadTarget[] = [
    { name: 'verify', path: `/api/v1/api-keys/verify?key=${api_key}` },
    { name: 'GET /me (access key)', path: '/api/v1/me', headers: bearer(api_key) },
  ];
  const missing: string[] = [];
  if (Object.hasOwn(HUB_OPERATIONS, 'get_next_list')) {
    targets.push({ name: 'get_next_list (signed in)', path: hubRequest('get_next_list', { openid: w.alice.openid, token: w.alice.token }).path });
  } else missing.push('get_next_list');
  if (Object.hasOwn(HUB_OPERATIONS, 'like')) {
    targets.push({ name: 'like (same video again: idempotent)', path: hubRequest('like', { openid: w.alice.openid, token: w.alice.token, vid: w.vids[0]! }).path });
  } else missing.push('like');

  const { url, child } = await startServer(options.settings);
  const rows: LoadRow[] = [];
  try {
    for (const target of targets) {
      // Warm-up: the first requests import the handler modules in the server process.
      await autocannon({ url: url + target.path, headers: target.headers, connections: 4, amount: 200 });
      for (const connections of [1, 16]) {
        const r = await autocannon({ url: url + target.path, headers: target.headers, connections, duration: seconds, title: target.name });
        rows.push({
          target: target.name,
          connections,
          seconds: r.duration,
          requests: r.requests.total,
          rps: round(r.requests.total / r.duration, 0),
          p50: r.latency.p50,
          p99: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors,
        });
      }
    }
  } finally {
    await stopServer(child);
  }
  printTable(
    `Through the local HTTP server under autocannon (${seconds} s per row, 127.0.0.1; server, autocannon and DynamoDB Local share the machine)`,
    ['target', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors'],
    rows.map((r) => [r.target, r.connections, r.rps, r.p50, r.p99, r.requests, r.non2xx, r.errors]),
  );
  if (missing.length) console.log(`not in this checkout (skipped): ${missing.join(', ')}`);
  return { rows, missing };
}
