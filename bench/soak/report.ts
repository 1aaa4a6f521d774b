import { formatTable } from '../format.js';
import { round, summarize } from '../stats.js';
import type { FailureKind, SoakRecorder } from './client.js';
import type { Mismatch } from './ledger.js';

export interface OpRow {
  op: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
  retried: number;
}

/** One row per operation, busiest first: latency of every answer (retries included), statuses, 429/503 retried. */
export function opRows(recorder: SoakRecorder): OpRow[] {
  return [...recorder.ops]
    .map(([op, s]) => {
      const { p50, p99, max } = summarize(s.latencies);
      const statuses = Object.fromEntries([...s.statuses].sort((a, b) => a[0] - b[0]).map(([status, n]) => [String(status), n]));
      return { op, requests: s.latencies.length, p50: round(p50, 1), p99: round(p99, 1), max: round(max, 1), statuses, retried: s.retried };
    })
    .sort((a, b) => b.requests - a.requests || a.op.localeCompare(b.op));
}

const statusText = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');

export function opTable(rows: OpRow[]): string {
  return formatTable(
    ['operation', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'statuses', '429/503 retried'],
    rows.map((r) => [r.op, r.requests, r.p50, r.p99, r.max, statusText(r.statuses), r.retried]),
  );
}

export const FAILURE_KINDS: FailureKind[] = ['status 500', 'envelope', 'unexpected status', 'contract', 'gave up retrying', 'transport'];

/** Status totals of a phase and its failures by kind, in one line. */
export function phaseLine(name: string, recorder: SoakRecorder): string {
  const statuses = new Map<number, number>();
  for (const s of recorder.ops.values()) for (const [status, n] of s.statuses) statuses.set(status, (statuses.get(status) ?? 0) + n);
  const failures = FAILURE_KINDS.map((kind) => `${kind} ${recorder.count(kind)}`).join(', ');
  return `${name}: ${recorder.requests} requests (${statusText(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}); failures: ${failures}`;
}

export function mismatchLines(mismatches: Mismatch[], most = 100): string[] {
  const lines = mismatches.slice(0, most).map((m) => `  ${m.entity} ${m.id} ${m.field}: ledger ${m.expected}, store ${m.seen}`);
  if (mismatches.length > most) lines.push(`  (+${mismatches.length - most} more)`);
  return lines;
}
