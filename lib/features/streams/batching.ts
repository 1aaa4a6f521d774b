/**
 * How the derived counters' event source mapping hands the hub table's stream to the processor
 * (infra/constructs/stream-counters.ts; docs/data-model.md, "Counters"): read here by the construct,
 * by the local poller (local/stream-poller.ts) and by the hotspots model
 * (bench/sections/hotspots.ts), so that the three cannot drift apart.
 */
export const COUNTER_BATCHING = {
  /** Records (likes and comments, after the mapping's filter) per invocation at most. */
  batchSize: 100,
  /**
   * How long the mapping gathers a shard's records before it invokes (unless the batch fills first):
   * a batch then holds a second of the shard's likes and comments, so a video or an author that
   * many of them move is updated once for all of them (lib/features/streams/counters.ts, groupOf).
   */
  windowSeconds: 1,
  /** Concurrent batches per stream shard. */
  parallelization: 1,
} as const;
