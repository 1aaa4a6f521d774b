import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The facts of the hub table's change stream that derived counters follow, read from a stream
 * record (the Lambda event's and the local poller's records have the same shape).
 */

/** A change record of the hub table (NEW_AND_OLD_IMAGES), as Lambda and the Streams API give it. */
export interface ChangeRecord {
  eventID?: string;
  eventName?: string;
  dynamodb?: {
    NewImage?: Record<string, unknown>;
    OldImage?: Record<string, unknown>;
    SequenceNumber?: string;
  };
}

/** Entities whose appearance (INSERT) or removal (REMOVE) moves a derived counter. */
export const FACT_ENTITIES = {
  inserted: ['like', 'comment', 'comment_gap'],
  removed: ['like', 'comment'],
} as const;

/** A like as stored: what its stream record carries for the counters. */
export interface LikeImage {
  openid: string;
  vid: string;
  /** The trend this like added to its video (lib/entities/catalog/trend.ts); a removal takes exactly this back. */
  trend_add?: number;
  /** The video's author, tags and creation time when liked: whose liked_count, which tag rankings. */
  author_openid: string;
  tags: string[];
  video_created_at: string;
}

export interface CommentImage {
  vid: string;
  seq: number;
}

export type Fact =
  | { kind: 'like'; sign: 1 | -1; like: LikeImage }
  | { kind: 'comment'; sign: 1 | -1; comment: CommentImage }
  | { kind: 'comment_gap'; comment: CommentImage };

type Raw = Record<string, unknown>;

/**
 * An attribute value as the Streams API client may hand it: an empty map or list comes back as `{}`
 * (no type at all), which unmarshall refuses; read as null (every reader here defaults it).
 */
function repaired(value: unknown): unknown {
  const v = value as Raw;
  if (Object.keys(v).length === 0) return { NULL: true };
  if (v.M) return { M: Object.fromEntries(Object.entries(v.M as Raw).map(([k, x]) => [k, repaired(x)])) };
  if (v.L) return { L: (v.L as unknown[]).map(repaired) };
  return v;
}

const image = (raw: Raw | undefined) =>
  raw ? unmarshall(Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, repaired(v)])) as Record<string, AttributeValue>) : undefined;

/** The fact a record stands for, or undefined for any other change (counters, markers, profiles...). */
export function factOf(record: ChangeRecord): Fact | undefined {
  const inserted = record.eventName === 'INSERT';
  if (!inserted && record.eventName !== 'REMOVE') return undefined;
  const raw = inserted ? record.dynamodb?.NewImage : record.dynamodb?.OldImage;
  const entity = (raw?.entity as { S?: string } | undefined)?.S;
  if (entity !== 'like' && entity !== 'comment' && entity !== 'comment_gap') return undefined;
  const item = image(raw);
  const sign = inserted ? 1 : -1;
  if (entity === 'like') return { kind: 'like', sign, like: item as LikeImage };
  if (entity === 'comment') return { kind: 'comment', sign, comment: item as CommentImage };
  if (entity === 'comment_gap' && inserted) return { kind: 'comment_gap', comment: item as CommentImage };
  return undefined;
}
