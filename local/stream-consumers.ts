import type { ChangeRecord } from '../lib/features/streams/facts.js';

/**
 * The local stand-in for the hub table's two stream consumers (deployed: two event source mappings,
 * infra/constructs/stream-counters.ts and infra/constructs/erasure.ts): the derived counters, then
 * the erasure of deleted accounts, over the same records. A failure of either is reported from the
 * earlier failed record: both consumers are idempotent, so handing the rest over again to both
 * repeats nothing.
 */
export async function applyStreamConsumers(records: ChangeRecord[]): Promise<{ failedFrom?: string; error?: unknown }> {
  const [{ applyChangeRecords }, { applyErasureRecords }] = await Promise.all([import('../lib/features/streams/counters.js'), import('../lib/features/deletion/erasure.js')]);
  const outcomes = [await applyChangeRecords(records), await applyErasureRecords(records)];
  const position = (sequence: string | undefined) => records.findIndex((r) => r.dynamodb?.SequenceNumber === sequence);
  const failed = outcomes.filter((o) => o.failedFrom !== undefined).sort((a, b) => position(a.failedFrom) - position(b.failedFrom));
  return failed[0] ?? {};
}
