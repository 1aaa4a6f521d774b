/**
 * `HUB_TABLE=<name> API_KEYS_TABLE=<name> npm run migrate:shards`: moves the items indexed under the
 * partitions that were single values before they were sharded into their shards (lib/db/shard-migration.ts).
 * Run once after deploying the sharded keys, with the deployment's AWS credentials (or
 * DYNAMODB_ENDPOINT for DynamoDB Local). Safe to run again.
 */
import { migrateShardedPartitions } from '../lib/db/shard-migration.js';

const report = await migrateShardedPartitions();
console.log(`scanned ${report.scanned} items, moved ${report.moved} index entries to their shards`);
