import { randomBytes } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import { likeItem } from '../../lib/entities/catalog/reaction-items.js';
import type { ChangeRecord } from '../../lib/features/streams/facts.js';
import type { TestAccount, TestVideo } from './hub-fixtures.js';

/**
 * Stream records as the hub table's stream carries them (the item's image, a fresh eventID, an
 * increasing sequence number), for tests that hand batches to the stream processor directly.
 */
let sequence = 0;
export const changeRecord = (eventName: 'INSERT' | 'REMOVE', item: Record<string, unknown>): ChangeRecord => ({
  eventID: randomBytes(16).toString('hex'),
  eventName,
  dynamodb: {
    SequenceNumber: String(++sequence).padStart(21, '0'),
    ...(eventName === 'INSERT' ? { NewImage: marshall(item) as Record<string, unknown> } : { OldImage: marshall(item) as Record<string, unknown> }),
  },
});

/** A like's record (inserted), or its removal's, with the trend it added. */
export const likeRecord = (liker: TestAccount, video: TestVideo, trend = 2) => changeRecord('INSERT', likeItem(liker.openid, video, '2026-11-26T07:00:00.000Z', trend));
export const unlikeRecord = (liker: TestAccount, video: TestVideo, trend = 2) => changeRecord('REMOVE', likeItem(liker.openid, video, '2026-11-26T07:00:00.000Z', trend));
