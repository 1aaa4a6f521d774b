import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
} from '@aws-sdk/client-dynamodb';
import { TABLES, type IndexDefinition, type TableDefinition } from '../lib/platform/db/tables.js';

function attributeDefinitions(def: TableDefinition): AttributeDefinition[] {
  const all = [def.partitionKey, def.sortKey, ...def.globalIndexes.flatMap((i) => [i.partitionKey, ...(i.sortKey ? [i.sortKey] : [])])];
  const unique = new Map(all.map((a) => [a.name, a.type]));
  return [...unique].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
}

function indexSpec(i: IndexDefinition) {
  return {
    IndexName: i.indexName,
    KeySchema: [{ AttributeName: i.partitionKey.name, KeyType: 'HASH' as const }, ...(i.sortKey ? [{ AttributeName: i.sortKey.name, KeyType: 'RANGE' as const }] : [])],
    Projection: { ProjectionType: i.projection, ...(i.nonKeyAttributes ? { NonKeyAttributes: i.nonKeyAttributes } : {}) },
  };
}

/**
 * Creates the tables of lib/platform/db/tables.ts (the definitions the CDK stack uses) under `prefix` when
 * they do not exist yet. Returns the physical names by environment variable.
 */
export async function createTables(endpoint: string, prefix = ''): Promise<Record<TableDefinition['envVar'], string>> {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const names = {} as Record<TableDefinition['envVar'], string>;
  try {
    for (const def of TABLES) {
      const TableName = `${prefix}${def.id}`;
      names[def.envVar] = TableName;
      try {
        await client.send(
          new CreateTableCommand({
            TableName,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: attributeDefinitions(def),
            KeySchema: [
              { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
              { AttributeName: def.sortKey.name, KeyType: 'RANGE' },
            ],
            GlobalSecondaryIndexes: def.globalIndexes.map(indexSpec),
            ...(def.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } } : {}),
          }),
        );
        if (def.ttlAttribute) {
          await client.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true } }));
        }
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error;
        // A table kept from a run before it had a stream (npm start keeps .data): turn the stream on.
        const { Table } = await client.send(new DescribeTableCommand({ TableName }));
        if (def.stream && !Table?.StreamSpecification?.StreamEnabled) {
          await client.send(new UpdateTableCommand({ TableName, StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } }));
        }
        // An index added since (e.g. key_id-index): created on the kept table, one per update.
        for (const index of def.globalIndexes) {
          if (Table?.GlobalSecondaryIndexes?.some((i) => i.IndexName === index.indexName)) continue;
          await client.send(
            new UpdateTableCommand({ TableName, AttributeDefinitions: attributeDefinitions(def), GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }] }),
          );
        }
        // A table kept from a run before it had a TTL (the api_keys table before its minute counters): turn it on.
        if (def.ttlAttribute) {
          const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName }));
          const status = TimeToLiveDescription?.TimeToLiveStatus;
          if (status === undefined || status === 'DISABLED') {
            await client.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true } }));
          }
        }
      }
      for (;;) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName }));
        if (Table?.TableStatus === 'ACTIVE') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    client.destroy();
  }
  return names;
}
