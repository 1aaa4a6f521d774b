import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod.js';
import { getVideo } from '../catalog/videos.js';
import { db, tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import { NotFoundError } from '../errors.js';
import { COMMENT_PAGE_SIZE, commentViews, type StoredComment } from './comments.js';
import { defineOperation } from './operation.js';
import { boundedInt, identifier, presentText } from './params.js';

const query = z.object({
  openid: identifier(),
  vid: identifier(),
  page: boundedInt(999_999_999).check(z.refine((p) => p >= 1, 'must be 1 or more')),
  d: presentText(64),
});

/**
 * comment_get: newest first, 20 per page. Comments are numbered 1..comment_count, so page N is the
 * number range [count - 20N + 1, count - 20(N-1)]: one Query, whatever N.
 */
export const commentGet = defineOperation({
  auth: 'required',
  scope: 'hub:read',
  query,
  async run({ vid, page }) {
    const TableName = tableNames.hub;
    const video = await getVideo(vid, true);
    if (!video) throw new NotFoundError(`Video "${vid.slice(0, 64)}" does not exist`);
    const total = video.comment_count ?? 0;
    const highest = total - COMMENT_PAGE_SIZE * (page - 1);
    const lowest = Math.max(1, highest - COMMENT_PAGE_SIZE + 1);
    let comments: StoredComment[] = [];
    if (highest >= 1) {
      const out = await db.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
          ExpressionAttributeValues: { ':pk': hubItems.comment(vid, lowest).pk, ':low': hubItems.comment(vid, lowest).sk, ':high': hubItems.comment(vid, highest).sk },
          ScanIndexForward: false,
          ConsistentRead: true,
        }),
      );
      comments = (out.Items ?? []) as StoredComment[];
    }
    return { list: await commentViews(comments), page, page_size: COMMENT_PAGE_SIZE, total, has_more: highest > COMMENT_PAGE_SIZE };
  },
});
