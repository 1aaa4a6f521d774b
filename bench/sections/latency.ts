import { BatchGetCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { sessionKeys, sessionStatusRead } from '../../lib/entities/accounts/sessions.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { keyUseUpdate } from '../../lib/features/keys/key-use.js';
import { printTable } from '../format.js';
import { BARE_GET_ITEM, BARE_KEY_UPDATE, BARE_SESSION_READ } from '../reference-rows.js';
import { callScenario, UnexpectedStatus } from '../run-scenario.js';
import { SCENARIOS } from '../scenarios.js';
import { round, summarize } from '../stats.js';
import { world } from '../world.js';

export interface LatencyRow {
  operation: string;
  group: string;
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  error?: string;
}

/**
 * Warm in-process latency: the handler (and the authorizer where the route has one) invoked with a
 * payload 2.0 event against DynamoDB Local, after a warm-up. Unmeasured per-call preparation (e.g.
 * creating the key a revoke call revokes) stays outside the timed span.
 */
export async function latencySection(options: { quick: boolean }): Promise<{ warmup: number; iterations: number; rows: LatencyRow[] }> {
  const warmup = options.quick ? 5 : 20;
  const iterations = options.quick ? 30 : 200;
  const w = await world();
  const rows: LatencyRow[] = [];
  for (const scenario of SCENARIOS) {
    if (!scenario.available()) continue;
    try {
      const next = await scenario.setup(w, warmup + iterations);
      const samples: number[] = [];
      for (let i = 0; i < warmup + iterations; i++) {
        const request = await next(i);
        const started = performance.now();
        const result = await callScenario(scenario, request);
        const elapsed = performance.now() - started;
        if (result.status !== scenario.expect) throw new UnexpectedStatus(scenario, result.status, result.body);
        if (i >= warmup) samples.push(elapsed);
      }
      const s = summarize(samples);
      rows.push({ operation: scenario.name, group: scenario.group, n: s.n, p50: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max) });
    } catch (error) {
      rows.push({ operation: scenario.name, group: scenario.group, n: 0, p50: NaN, p90: NaN, p99: NaN, max: NaN, error: (error as Error).message });
    }
  }
  rows.push(await bareGetItem(warmup, iterations));
  rows.push(await bareKeyUpdate(warmup, iterations));
  rows.push(await bareSessionRead(warmup, iterations));
  printTable(
    `Warm in-process latency, ms (${iterations} calls after ${warmup} warm-up calls, DynamoDB Local)`,
    ['operation', 'p50', 'p90', 'p99', 'max', 'n'],
    rows.map((r) => [r.operation, r.error ? 'ERROR' : r.p50, r.p90, r.p99, r.max, r.error ? r.error.slice(0, 80) : r.n]),
  );
  return { warmup, iterations, rows };
}

/**
 * One request sent bare `warmup + iterations` times with the functions' client, timed like the
 * scenarios (`make` builds each request outside the timed span and returns its sending): a reference row.
 */
async function timeBare(operation: string, warmup: number, iterations: number, make: () => () => Promise<unknown>): Promise<LatencyRow> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const send = make();
    const started = performance.now();
    await send();
    const elapsed = performance.now() - started;
    if (i >= warmup) samples.push(elapsed);
  }
  const s = summarize(samples);
  return { operation, group: 'reference', n: s.n, p50: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max) };
}

/**
 * What an authorizer that makes one read cannot beat: the same client (lib/platform/db/client.ts) making one
 * consistent GetItem of a small item, timed like the scenarios (docs/performance.md, "Latency").
 */
async function bareGetItem(warmup: number, iterations: number): Promise<LatencyRow> {
  const Key = { pk: 'BENCH#reference', sk: 'ITEM' };
  await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...Key, entity: 'bench_reference', n: 1 } }));
  return timeBare(BARE_GET_ITEM, warmup, iterations, () => {
    const command = new GetCommand({ TableName: tableNames.hub, Key, ConsistentRead: true });
    return () => db.send(command);
  });
}

/**
 * The request a key's authentication cannot avoid: the same client sending the conditional
 * UpdateItem of one key use (lib/features/keys/key-use.ts keyUseUpdate) to a hash guard of its own, with a
 * limit no run reaches, timed like the scenarios: the authorizer's ratio to it is its own cost
 * (docs/performance.md, "Latency").
 */
async function bareKeyUpdate(warmup: number, iterations: number): Promise<LatencyRow> {
  const hash = 'bench-reference'.padEnd(64, '0');
  const guard = { ...keyRecordKeys.hashGuard(hash), entity: 'api_key_hash', id: 0, user_id: 'bench-reference', scopes: [], expires_at: null, is_active: true, last_used_at: null, rate_limit_per_minute: 100_000 };
  await db.send(new PutCommand({ TableName: tableNames.apiKeys, Item: guard }));
  return timeBare(BARE_KEY_UPDATE, warmup, iterations, () => {
    const command = new UpdateCommand(keyUseUpdate(hash, Date.now(), 100_000));
    return () => db.send(command);
  });
}

/**
 * The request a JWT's authentication cannot avoid: the same client sending the session check's
 * BatchGetItem (lib/entities/accounts/sessions.ts sessionStatusRead) of an account that exists and a session
 * that was not ended, timed like the scenarios: the JWT path's ratio to it is its own cost
 * (docs/performance.md, "Latency").
 */
async function bareSessionRead(warmup: number, iterations: number): Promise<LatencyRow> {
  const account = accountKeys.account('bench-reference');
  await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...account, entity: 'bench_reference', roles: [] } }));
  const input = sessionStatusRead([sessionKeys.ended('bench-reference-session'), account]);
  return timeBare(BARE_SESSION_READ, warmup, iterations, () => {
    const command = new BatchGetCommand(input);
    return () => db.send(command);
  });
}
