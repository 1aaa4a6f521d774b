import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from './client.js';
import { hubItems, unshardedPartitions } from './hub-items.js';

/**
 * The one-off migration of the index partitions that were single values before they were sharded
 * (docs/data-model.md, "Sharded index partitions"): every item still indexed under `VIDEOS`,
 * `TRENDING`, `ACCOUNTS` or `COMMENTS` gets the partition of its shard, built by the same key
 * builders the writers use. Readers query only the shards (their request budgets leave no room to
 * read the old partitions too), so a store with items written before the change runs this once,
 * right after deploying it: `npm run migrate:shards`. Until then those items are missing from the
 * new and hot lists, rec's trending and exploration, and the admin exports.
 *
 * A Scan (it is no request path), page by page; each move is one Update conditioned on the item
 * still being in the old partition, so it can run again, or while the service runs: an item
 * rewritten meanwhile by its writer is already in its shard and is left alone.
 */
interface Move {
  partitionName: 'gsi1pk' | 'gsi2pk' | 'gsi3pk';
  from: string;
  /** The shard partition of an item found in `from`. */
  to: (item: Record<string, unknown>) => string;
}

const idAfterHash = (sortKey: unknown) => String(sortKey).slice(String(sortKey).lastIndexOf('#') + 1);

const MOVES: Move[] = [
  { partitionName: 'gsi1pk', from: unshardedPartitions.videos, to: (i) => hubItems.videosIndex('', idAfterHash(i.gsi1sk)).gsi1pk },
  { partitionName: 'gsi1pk', from: unshardedPartitions.accounts, to: (i) => hubItems.accountsIndex('', idAfterHash(i.gsi1sk)).gsi1pk },
  { partitionName: 'gsi2pk', from: unshardedPartitions.comments, to: (i) => hubItems.allCommentsIndex('', idAfterHash(i.gsi2sk)).gsi2pk },
  { partitionName: 'gsi3pk', from: unshardedPartitions.trending, to: (i) => hubItems.trendingIndex(String(i.vid), 0).gsi3pk },
];

export interface MigrationReport {
  scanned: number;
  moved: number;
}

export async function migrateShardedPartitions(): Promise<MigrationReport> {
  const report: MigrationReport = { scanned: 0, moved: 0 };
  const names = { '#g1': 'gsi1pk', '#g2': 'gsi2pk', '#g3': 'gsi3pk' };
  const values = { ':videos': unshardedPartitions.videos, ':accounts': unshardedPartitions.accounts, ':comments': unshardedPartitions.comments, ':trending': unshardedPartitions.trending };
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new ScanCommand({
        TableName: tableNames.hub,
        FilterExpression: '#g1 IN (:videos, :accounts) OR #g2 = :comments OR #g3 = :trending',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ExclusiveStartKey: start,
      }),
    );
    report.scanned += out.ScannedCount ?? 0;
    for (const item of out.Items ?? []) {
      for (const move of MOVES) {
        if (item[move.partitionName] !== move.from) continue;
        try {
          await db.send(
            new UpdateCommand({
              TableName: tableNames.hub,
              Key: { pk: item.pk, sk: item.sk },
              UpdateExpression: 'SET #p = :to',
              ConditionExpression: '#p = :from',
              ExpressionAttributeNames: { '#p': move.partitionName },
              ExpressionAttributeValues: { ':to': move.to(item), ':from': move.from },
            }),
          );
          report.moved++;
        } catch (error) {
          if (!isConditionalCheckFailed(error)) throw error;
        }
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return report;
}
