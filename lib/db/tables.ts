/**
 * The table definitions, read by both the CDK stack and the local runtime so the two cannot drift.
 * Physical names are never fixed: CloudFormation names the tables and passes the names to functions
 * through the environment variables named here.
 */
export type AttributeType = 'S' | 'N';

export interface IndexDefinition {
  indexName: string;
  partitionKey: { name: string; type: AttributeType };
  sortKey?: { name: string; type: AttributeType };
  projection: 'ALL' | 'KEYS_ONLY';
}

export interface TableDefinition {
  /** Logical id in the stack and base name locally. */
  id: string;
  envVar: 'API_KEYS_TABLE' | 'HUB_TABLE';
  partitionKey: { name: string; type: AttributeType };
  sortKey: { name: string; type: AttributeType };
  globalIndexes: IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry (DynamoDB TTL), if the table uses one. */
  ttlAttribute?: string;
  /** The table's change stream, if it has one (read by lib/streams/: derived counters). */
  stream?: 'NEW_AND_OLD_IMAGES';
}

export const API_KEYS_TABLE: TableDefinition = {
  id: 'api_keys',
  envVar: 'API_KEYS_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalIndexes: [
    // Sparse: only key records carry key_hash. Not read on any request path: verification reads the
    // hash guard (KEYHASH#<hash>) strongly consistent, which the index could not be. It stays for
    // lookups that may lag, e.g. an administrator finding the owner of a leaked key's hash; KEYS_ONLY,
    // as such a lookup reads the record by its key afterwards.
    { indexName: 'key_hash-index', partitionKey: { name: 'key_hash', type: 'S' }, projection: 'KEYS_ONLY' },
  ],
};

export const HUB_TABLE: TableDefinition = {
  id: 'hub',
  envVar: 'HUB_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalIndexes: [
    { indexName: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' }, projection: 'ALL' },
    { indexName: 'gsi2', partitionKey: { name: 'gsi2pk', type: 'S' }, sortKey: { name: 'gsi2sk', type: 'S' }, projection: 'ALL' },
    // Ranked by a numeric score (the feed's trending and per-tag lists): see lib/catalog/trend.ts.
    { indexName: 'gsi3', partitionKey: { name: 'gsi3pk', type: 'S' }, sortKey: { name: 'gsi3sk', type: 'N' }, projection: 'ALL' },
  ],
  ttlAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
};

export const TABLES = [API_KEYS_TABLE, HUB_TABLE] as const;
