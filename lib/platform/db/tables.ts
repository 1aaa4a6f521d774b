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
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  /** INCLUDE: the attributes besides the keys that the index holds. */
  nonKeyAttributes?: string[];
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
  /** The table's change stream, if it has one (read by lib/features/streams/: derived counters). */
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
    // A key by its id, whoever owns it (administration: POST /api/v1/admin/api-keys/{id}/revoke):
    // the record and its hash guard both carry `id`; KEYS_ONLY gives the record's partition (the
    // owner), and the record is then read consistently by its key.
    { indexName: 'key_id-index', partitionKey: { name: 'id', type: 'N' }, projection: 'KEYS_ONLY' },
  ],
  // The keys' minute counters (rate limit and usage, KEYUSE#<id>) expire 32 days after their minute.
  ttlAttribute: 'ttl',
};

/** What the feed ranks a video by (lib/features/recommend/sources.ts), on video items and tag ranking items. */
const RANKING_ATTRIBUTES = ['vid', 'author_openid', 'tags', 'created_at'];
/** A comment as exports show it (lib/entities/comments/comments.ts, StoredComment): written once, never updated. */
const COMMENT_ATTRIBUTES = ['cid', 'seq', 'openid', 'nickname', 'content'];
/** gsi1: VIDEOS#k (ranking), COMMENTS#openid (comments), FOLLOWING#/FOLLOWERS# (the relation); ACCOUNTS#k, LIKES#, HISTORY#, COMMENTED# use the keys. */
const GSI1_ATTRIBUTES = [...RANKING_ATTRIBUTES, ...COMMENT_ATTRIBUTES, 'followee', 'follower'];
/** gsi2: AUTHOR# (ranking), COMMENTS#k (comments); LIKERS# uses the keys. */
const GSI2_ATTRIBUTES = [...RANKING_ATTRIBUTES, ...COMMENT_ATTRIBUTES];

export const HUB_TABLE: TableDefinition = {
  id: 'hub',
  envVar: 'HUB_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  // Each index holds the keys and what its readers use, none of the counters (`like_count`,
  // `comment_count`, `liked_count`, `follow_count`, ...): an update that changes only attributes an
  // index does not hold writes nothing to it, so a like or a comment no longer rewrites the video's
  // and the accounts' index entries. Readers that need more read the items after the Query.
  // docs/data-model.md, "Index projections", lists every reader and what it takes.
  globalIndexes: [
    { indexName: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' }, projection: 'INCLUDE', nonKeyAttributes: GSI1_ATTRIBUTES },
    { indexName: 'gsi2', partitionKey: { name: 'gsi2pk', type: 'S' }, sortKey: { name: 'gsi2sk', type: 'S' }, projection: 'INCLUDE', nonKeyAttributes: GSI2_ATTRIBUTES },
    // Ranked by a numeric score (the feed's trending and per-tag lists): see lib/entities/catalog/trend.ts.
    { indexName: 'gsi3', partitionKey: { name: 'gsi3pk', type: 'S' }, sortKey: { name: 'gsi3sk', type: 'N' }, projection: 'INCLUDE', nonKeyAttributes: RANKING_ATTRIBUTES },
  ],
  ttlAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
};

export const TABLES = [API_KEYS_TABLE, HUB_TABLE] as const;
