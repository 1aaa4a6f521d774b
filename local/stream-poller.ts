import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { COUNTER_BATCHING } from '../lib/features/streams/batching.js';
import type { ChangeRecord } from '../lib/features/streams/facts.js';

/**
 * The local stand-in for the stream's event source mapping: reads the hub table's stream from
 * DynamoDB Local (DynamoDB Streams API, same endpoint) and hands each shard's records to the same
 * code the deployed stream Lambdas run (local/stream-consumers.ts: the derived counters and
 * the erasure of deleted accounts). A batch that fails is handed
 * over again from its first failed record after a pause, as Lambda retries; past MAX_ATTEMPTS the
 * records are logged and skipped, as Lambda sends them to the on-failure queue.
 *
 * Reading starts at the stream's oldest record (TRIM_HORIZON): records already applied in an earlier
 * run find their markers and change nothing.
 */
export interface StreamPoller {
  /** Resolves once every record written before the call has been handed over (and applied or given up). */
  settle(): Promise<void>;
  /** Holds records back until resume() (the hotspots model hands them over itself); resolves once the round in progress is done. */
  pause(): Promise<void>;
  resume(): void;
  stop(): Promise<void>;
}

type Apply = (records: ChangeRecord[]) => Promise<{ failedFrom?: string; error?: unknown }>;

/** Pause of the background loop after a round that found nothing (settle() does not wait for it). */
const IDLE_MS = 100;
/** Shards are listed again at most this often (or when one has closed): DescribeStream is not free on DynamoDB Local. */
const DISCOVER_MS = 1000;
const RETRY_MS = 200;
const MAX_ATTEMPTS = 10;
/**
 * Records handed to the consumers at a time: the deployed counters' batch size
 * (infra/constructs/stream-counters.ts). A stop waits for the batch being applied, no more.
 */
const BATCH = COUNTER_BATCHING.batchSize;
/** How long stop() waits for the batch being applied before it lets go (records are applied again next run: markers keep it exact). */
const STOP_GRACE_MS = 2_000;

interface Shard {
  id: string;
  iterator?: string;
  /** Records fetched and not yet applied (a failed batch's rest, retried). */
  held: ChangeRecord[];
  attempts: number;
  closed: boolean;
}

export async function startStreamPoller(options: {
  endpoint: string;
  table: string;
  apply: Apply;
  log?: (message: string) => void;
  /** false: no background loop, records are applied only by settle() (tests: deterministic, and no polling). */
  background?: boolean;
}): Promise<StreamPoller> {
  const config = { endpoint: options.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const tables = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const { Table } = await tables.send(new DescribeTableCommand({ TableName: options.table }));
  tables.destroy();
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.table} has no stream: derived counters cannot be applied`);
  const log = options.log ?? ((message: string) => console.error(message));

  const shards = new Map<string, Shard>();
  let stopped = false;
  let paused = false;
  let discoveredAt = -Infinity;
  async function discover() {
    if (performance.now() - discoveredAt < DISCOVER_MS) return;
    discoveredAt = performance.now();
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const s of StreamDescription?.Shards ?? []) {
      if (!s.ShardId || shards.has(s.ShardId)) continue;
      const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: s.ShardId, ShardIteratorType: 'TRIM_HORIZON' }));
      shards.set(s.ShardId, { id: s.ShardId, iterator: ShardIterator, held: [], attempts: 0, closed: false });
    }
  }

  /** One round over every shard: fetch what is new, apply what is held. Returns how many records it handled. */
  async function round(): Promise<number> {
    if (paused) return 0;
    await discover();
    let handled = 0;
    for (const shard of shards.values()) {
      if (stopped) break;
      if (shard.held.length === 0 && shard.iterator && !shard.closed) {
        try {
          const out = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 1000 }));
          shard.held = (out.Records ?? []) as ChangeRecord[];
          shard.iterator = out.NextShardIterator;
          if (!shard.iterator) {
            shard.closed = true;
            discoveredAt = -Infinity; // its successor is listed on the next round
          }
        } catch (error) {
          if (!(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException)) throw error;
          shards.delete(shard.id); // read again from the oldest record: markers keep it exact
          handled++; // not caught up yet
          continue;
        }
      }
      if (shard.held.length === 0) continue;
      const batch = shard.held.slice(0, BATCH);
      handled += batch.length;
      const outcome = await options.apply(batch);
      if (outcome.failedFrom === undefined) {
        shard.held = shard.held.slice(batch.length);
        shard.attempts = 0;
        continue;
      }
      const from = Math.max(0, batch.findIndex((r) => r.dynamodb?.SequenceNumber === outcome.failedFrom));
      shard.held = shard.held.slice(from);
      if (++shard.attempts >= MAX_ATTEMPTS) {
        log(`stream counters: giving up on ${batch.length - from} records of ${shard.id} after ${MAX_ATTEMPTS} attempts (${(outcome.error as Error)?.name})`);
        shard.held = shard.held.slice(batch.length - from);
        shard.attempts = 0;
      } else {
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    return handled;
  }

  // One round at a time: the background loop and settle() take turns.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = (): Promise<number> => {
    const run = turn.then(round);
    turn = run.catch(() => undefined);
    return run;
  };

  let running = options.background !== false;
  const loop = (async () => {
    while (running) {
      const handled = await inTurn().catch((error: Error) => {
        if (running) log(`stream counters: ${error.name}: ${error.message}`);
        return 0;
      });
      if (handled === 0 && running) await new Promise((r) => setTimeout(r, IDLE_MS));
    }
  })();

  return {
    async settle() {
      // Records written before this call are in the stream now: rounds until one finds nothing, the
      // first of them listing the shards again.
      discoveredAt = -Infinity;
      for (let failures = 0; ; ) {
        try {
          if ((await inTurn()) === 0) return;
        } catch (error) {
          if (++failures >= MAX_ATTEMPTS) throw error;
          await new Promise((r) => setTimeout(r, RETRY_MS));
        }
      }
    },
    async pause() {
      paused = true;
      await turn;
    },
    resume() {
      paused = false;
    },
    async stop() {
      running = false;
      stopped = true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loop, new Promise((r) => (timer = setTimeout(r, STOP_GRACE_MS)))]);
      clearTimeout(timer);
      streams.destroy();
    },
  };
}
