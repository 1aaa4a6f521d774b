import { clock } from '../../lib/platform/clock.js';
import { inParallel } from '../../lib/platform/db/batch.js';
import { createKey } from '../../lib/features/keys/key-service.js';
import { printTable } from '../format.js';
import { bearer, invoke } from '../invoke.js';
import { costOf, recordDb } from '../recorder.js';

/**
 * The per-key rate limit's accuracy (docs/api-keys.md, "Per-key rate limit"): `calls` key-authenticated calls (GET /me, authorizer
 * and function) fired 50 at a time at a key whose limit is `limit`, all within one UTC minute, through
 * the same handlers as deployed against DynamoDB Local. Every call is its own conditional update of
 * the key's hash guard (lib/features/keys/key-use.ts), as calls from many Lambda instances are: how many are
 * admitted is what DynamoDB's condition on the guard's minute count decides, not a per-instance memory. Also the DynamoDB requests and write units of
 * the burst, per admitted and per refused call, and the fixed window's edge (a full minute's worth
 * just before and just after a minute boundary).
 */
export interface KeyLimitCase {
  name: string;
  limit: number;
  calls: number;
  admitted: number;
  refused: number;
  other: number;
  exact: boolean;
  requestsPerCall: number;
  wcuPerCall: number;
  refusedWrites: number;
  wallMs: number;
}

export interface KeyLimitResult {
  cases: KeyLimitCase[];
  /** Admitted within 2 seconds across a minute boundary (limit per minute, fixed windows): 2 x limit. */
  boundary: { limit: number; admittedAcross: number; withinMs: number };
}

const MINUTE = 60_000;
/** Calls in flight at once: as many as the DynamoDB client's sockets (50), so none waits for a socket past the function timeout. */
const IN_FLIGHT = 50;

/** `calls` invocations of `call`, IN_FLIGHT at a time, answers in order. */
async function fire<T>(calls: number, call: () => Promise<T>): Promise<T[]> {
  const answers: T[] = new Array<T>(calls);
  await inParallel(
    Array.from({ length: calls }, (_, i) => i),
    IN_FLIGHT,
    async (i) => (answers[i] = await call()),
  );
  return answers;
}

async function burst(name: string, limit: number, calls: number, atMs: number): Promise<KeyLimitCase> {
  const { api_key } = await createKey('bench-limit', { name: `limit ${limit}`, rate_limit_per_minute: limit });
  clock.set(atMs);
  const t0 = performance.now();
  const { result: answers, requests } = await recordDb(() => fire(calls, () => invoke({ method: 'GET', path: '/api/v1/me', headers: bearer(api_key) })));
  const wallMs = Math.round(performance.now() - t0);
  const admitted = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status === 429).length;
  const figures = costOf(requests);
  return {
    name,
    limit,
    calls,
    admitted,
    refused,
    other: calls - admitted - refused,
    exact: admitted === Math.min(limit, calls),
    requestsPerCall: Math.round((figures.requests / calls) * 100) / 100,
    wcuPerCall: Math.round((figures.wcu / calls) * 100) / 100,
    refusedWrites: requests.filter((r) => r.failed === 'ConditionalCheckFailedException').length,
    wallMs,
  };
}

export async function keyLimitSection(options: { quick: boolean }): Promise<KeyLimitResult> {
  const base = Date.UTC(2031, 0, 1, 0, 0, 0);
  const plan = options.quick
    ? [
        [10, 30],
        [100, 150],
      ]
    : [
        [10, 30],
        [100, 150],
        [600, 800],
      ];
  const cases: KeyLimitCase[] = [];
  try {
    let minute = 0;
    for (const [limit, calls] of plan) {
      cases.push(await burst(`${calls} calls, 50 at a time, limit ${limit}`, limit!, calls!, base + minute++ * MINUTE + 5_000));
    }
    // The fixed window's edge: a full limit at 00:00:59, another at 00:01:00.
    const edgeLimit = 50;
    const { api_key } = await createKey('bench-limit', { name: 'edge', rate_limit_per_minute: edgeLimit });
    const call = () => invoke({ method: 'GET', path: '/api/v1/me', headers: bearer(api_key) });
    const edge = base + (minute + 1) * MINUTE;
    clock.set(edge - 1_000);
    const before = await fire(edgeLimit * 2, call);
    clock.set(edge);
    const after = await fire(edgeLimit * 2, call);
    const admittedAcross = [...before, ...after].filter((a) => a.status === 200).length;

    printTable(
      'Per-key rate limit: calls fired 50 at a time at one key within one minute (GET /me with the key)',
      ['case', 'limit', 'calls', 'admitted', '429', 'other', 'exact', 'requests/call', 'WCU/call', 'refused writes', 'ms'],
      cases.map((c) => [c.name, c.limit, c.calls, c.admitted, c.refused, c.other, c.exact ? 'yes' : 'NO', c.requestsPerCall, c.wcuPerCall, c.refusedWrites, c.wallMs]),
    );
    console.log(`fixed window edge: limit ${edgeLimit}/min, ${admittedAcross} admitted within 1 s across the minute boundary (2 x limit)`);
    return { cases, boundary: { limit: edgeLimit, admittedAcross, withinMs: 1_000 } };
  } finally {
    clock.reset();
  }
}
