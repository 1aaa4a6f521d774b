import { dynamoUsdPerMillionCalls } from '../prices.js';
import { dropSharedHeads } from '../../lib/entities/catalog/shared-heads.js';
import { costOf, recordDb, type DbRequest } from '../recorder.js';
import { callScenario, UnexpectedStatus } from '../run-scenario.js';
import { SCENARIOS } from '../scenarios.js';
import { mode, round } from '../stats.js';
import { printTable } from '../format.js';
import { world } from '../world.js';

export interface CostRow {
  operation: string;
  group: string;
  /** Requests of the usual call (the mode over the measured calls) and the range seen. */
  requests: number;
  requestsMin: number;
  requestsMax: number;
  authorizerRequests: number;
  functionRequests: number;
  commands: string;
  rcu: number;
  wcu: number;
  /** Requests for which DynamoDB Local reported no consumed capacity. */
  unreportedCapacity: number;
  usdPerMillionCalls: number;
  note?: string;
  error?: string;
}

export interface CostResult {
  calls: number;
  rows: CostRow[];
  missing: string[];
}

/**
 * DynamoDB requests and consumed capacity of one call of every scenario, measured on the shared
 * client: one unmeasured warm-up call, then `calls` measured ones.
 */
export async function costSection(options: { quick: boolean }): Promise<CostResult> {
  const calls = options.quick ? 3 : 5;
  const w = await world();
  const rows: CostRow[] = [];
  const missing: string[] = [];
  for (const scenario of SCENARIOS) {
    if (!scenario.available()) {
      missing.push(scenario.name);
      continue;
    }
    try {
      const next = await scenario.setup(w, calls + 1);
      const samples: DbRequest[][] = [];
      for (let i = 0; i <= calls; i++) {
        const request = await next(i);
        // A container's first call: the feed's shared heads read, not kept (docs/feed.md, "The shared
        // heads' cache"; the hotspots section counts what keeping them saves at scale).
        dropSharedHeads();
        const { result, requests } = await recordDb(() => callScenario(scenario, request));
        if (result.status !== scenario.expect) throw new UnexpectedStatus(scenario, result.status, result.body);
        if (i > 0) samples.push(requests);
      }
      const totals = samples.map((s) => s.length);
      const usual = mode(totals);
      const typical = samples.find((s) => s.length === usual)!;
      const figures = costOf(typical);
      rows.push({
        operation: scenario.name,
        group: scenario.group,
        requests: usual,
        requestsMin: Math.min(...totals),
        requestsMax: Math.max(...totals),
        authorizerRequests: typical.filter((r) => r.phase === 'authorizer').length,
        functionRequests: typical.filter((r) => r.phase !== 'authorizer').length,
        commands: figures.commands,
        rcu: round(figures.rcu, 1),
        wcu: round(figures.wcu, 1),
        unreportedCapacity: figures.unreported,
        usdPerMillionCalls: round(dynamoUsdPerMillionCalls(figures.rcu, figures.wcu), 3),
        note: scenario.note,
      });
    } catch (error) {
      rows.push({ operation: scenario.name, group: scenario.group, requests: NaN, requestsMin: NaN, requestsMax: NaN, authorizerRequests: NaN, functionRequests: NaN, commands: '', rcu: NaN, wcu: NaN, unreportedCapacity: NaN, usdPerMillionCalls: NaN, error: (error as Error).message });
    }
  }
  printTable(
    `DynamoDB cost per call (mode of ${calls} calls after a warm-up; ! = request failed its condition, as designed)`,
    ['operation', 'requests', 'range', 'authorizer', 'function', 'requests sent', 'RCU', 'WCU', 'no capacity reported', 'USD / 1M calls'],
    rows.map((r) => [
      r.operation,
      r.error ? 'ERROR' : r.requests,
      r.error || r.requestsMin === r.requestsMax ? '' : `${r.requestsMin}-${r.requestsMax}`,
      r.authorizerRequests,
      r.functionRequests,
      r.error ? r.error.slice(0, 80) : r.commands,
      r.rcu,
      r.wcu,
      r.unreportedCapacity || '',
      r.usdPerMillionCalls,
    ]),
  );
  if (missing.length > 0) console.log(`not in this checkout (skipped): ${missing.join(', ')}`);
  return { calls, rows, missing };
}
