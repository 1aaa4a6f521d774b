import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { commentKeys, type CommentView } from '../../lib/entities/comments/comments.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { settleStreams, useTestStack } from '../support/stack.js';

/**
 * comment_delete (docs/moderation.md, "Deleting a comment"): the author's comment becomes a tombstone
 * in place; numbering, comment_count and every page stay; a repeat answers the same; a stranger is
 * 403; a vid that does not match is 404.
 */
const api = useTestStack({ http: false });

type Page = { list: CommentView[]; total: number; has_more: boolean };
let author: TestAccount;
let other: TestAccount;
let vid: string;
let mine: CommentView[];

const post = async (who: TestAccount, content: string) => {
  const res = await hub<{ comment: CommentView }>(api, 'comment_set', { openid: who.openid, token: who.token, vid, content });
  expect(res.status).toBe(200);
  return res.data.comment;
};
const del = (who: TestAccount, cid: string, onVid = vid) => hub<{ comment: CommentView; deleted: boolean }>(api, 'comment_delete', { openid: who.openid, token: who.token, vid: onVid, cid });
const page = async (n: number) => (await hub<Page>(api, 'comment_get', { openid: other.openid, token: other.token, vid, page: n, d: '' })).data;

beforeAll(async () => {
  [author, other] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
  vid = (await putTestVideo(other.openid)).vid;
  // 25 comments: two pages of comment_get; the author's are the first 5.
  mine = [];
  for (let i = 0; i < 5; i++) mine.push(await post(author, `mine ${i}`));
  for (let i = 0; i < 20; i++) await post(i % 2 ? other : (await putTestAccounts(1))[0]!, `theirs ${i}`);
  await settleStreams();
});

describe('comment_delete', () => {
  it('turns the author\'s comment into a tombstone: numbering, count and pages stay', async () => {
    const [before1, before2] = [await page(1), await page(2)];
    const target = mine[2]!;
    const res = await del(author, target.cid);
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ comment: { cid: target.cid, vid, openid: '', nickname: '', content: '', created_at: target.created_at }, deleted: true });
    await settleStreams();
    const [after1, after2] = [await page(1), await page(2)];
    expect(after1).toEqual(before1);
    expect(after2.total).toBe(before2.total);
    expect(after2.list.map((c) => c.cid)).toEqual(before2.list.map((c) => c.cid));
    expect(after2.list.find((c) => c.cid === target.cid)).toEqual(res.data.comment);
    // Every other comment unchanged.
    expect(after2.list.filter((c) => c.cid !== target.cid)).toEqual(before2.list.filter((c) => c.cid !== target.cid));
    expect((await getHubItem<{ comment_count: number }>(videoKeys.video(vid)))?.comment_count).toBe(25);
    // Out of the author's comment index (exports, the erasure).
    const own = await db.send(new QueryCommand({ TableName: tableNames.hub, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': commentKeys.commentsByAuthorIndex(author.openid, '', '').gsi1pk } }));
    expect((own.Items ?? []).map((c) => c.cid)).not.toContain(target.cid);
    expect(own.Items).toHaveLength(4);
  });

  it('is idempotent: deleting a deleted comment answers the same 200', async () => {
    const target = mine[3]!;
    const first = await del(author, target.cid);
    const again = await del(author, target.cid);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
  });

  it("refuses someone else's live comment (403) and changes nothing", async () => {
    const target = mine[4]!;
    const res = await del(other, target.cid);
    expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    const shown = (await page(2)).list.find((c) => c.cid === target.cid);
    expect(shown?.content).toBe('mine 4');
  });

  it('answers 404 for a vid that does not match and for an unknown cid', async () => {
    const elsewhere = (await putTestVideo(other.openid)).vid;
    const wrongVid = await del(author, mine[0]!.cid, elsewhere);
    expect([wrongVid.status, wrongVid.body.code]).toEqual([404, 'NOT_FOUND']);
    const unknown = await del(author, 'c_nosuchcomment00');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await page(2)).list.find((c) => c.cid === mine[0]!.cid)?.content).toBe('mine 0');
  });

  it('names a missing parameter (400) and deletes nothing', async () => {
    const res = await hub(api, 'comment_delete', { openid: author.openid, token: author.token, vid });
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((res.body as { error: string }).error).toContain('cid');
  });
});
