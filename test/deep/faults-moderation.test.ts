import { afterEach, describe, expect, it } from 'vitest';
import { postComment } from '../../lib/entities/comments/post-comment.js';
import { commentKeys, findComment } from '../../lib/entities/comments/comments.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { fileReport, reportKeys, type StoredCase } from '../../lib/features/report/reports.js';
import { moderationKeys } from '../../lib/features/moderation/actions.js';
import { retryAfterLostAnswer, sweepFaults, type FaultSweep } from '../support/fault-sweep.js';
import { clearFaults } from '../support/faults.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { heldCommentsOf, heldKeys, holdComment } from '../../lib/features/filter/held-items.js';
import { notBlockedByCheck } from '../../lib/entities/social/block-items.js';

/**
 * comment_delete, report and each moderation action under DynamoDB faults (test/support/fault-sweep.ts:
 * every request fails once; a 503 leaves the store exactly as it was; the retry does it once).
 */
const api = useTestStack();
afterEach(clearFaults);

interface Case {
  author: TestAccount;
  reporter: TestAccount;
  moderator: TestAccount;
  vid: string;
  cid: string;
}

/** An author's video and comment, a reporter, a moderator; `reported`: the comment reported once. */
async function fixtures(reported: 'comment' | 'video' | 'none' = 'none'): Promise<Case> {
  const [author, reporter] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
  const [moderator] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
  const { vid } = await putTestVideo(author.openid, { tags: ['expo', 'robots'] });
  const { comment } = await postComment({ openid: author.openid, vid, content: 'buy cheap watches' });
  if (reported !== 'none') await fileReport({ reporter: reporter.openid, target: { type: reported, id: reported === 'video' ? vid : comment.cid }, reason: 'spam', text: '' });
  return { author, reporter, moderator, vid, cid: comment.cid };
}

const caseOf = (type: 'comment' | 'video' | 'user', id: string) => getHubItem<StoredCase>(reportKeys.case(type, id));

describe('comment_delete under faults', () => {
  const sweep: FaultSweep<Case> = {
    setup: () => fixtures(),
    call: ({ author, vid, cid }) => hub(api, 'comment_delete', { openid: author.openid, token: author.token, vid, cid }),
    async once({ cid }) {
      const comment = await findComment(cid);
      expect(comment).toMatchObject({ openid: '', content: '', removed_by: 'author' });
    },
  };
  it('503 with the comment as it was; the retry makes one tombstone', async () => {
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'UpdateItemCommand']);
  });
  it('whose answer is lost: the retry answers the same', async () => {
    await retryAfterLostAnswer(sweep);
  });
});

describe("comment_delete of the author's held comment (its withdrawal) under faults", () => {
  type Held = Case & { heldCid: string };
  const sweep: FaultSweep<Held> = {
    async setup() {
      const c = await fixtures();
      const item = await holdComment({ openid: c.author.openid, vid: c.vid, content: 'cheap spam' }, notBlockedByCheck(c.author.openid, c.author.openid));
      return { ...c, heldCid: item.target_id };
    },
    call: ({ author, vid, heldCid }) => hub(api, 'comment_delete', { openid: author.openid, token: author.token, vid, cid: heldCid }),
    async once({ author, vid, heldCid }, res) {
      expect(res.data).toMatchObject({ comment: { cid: heldCid, vid, content: '' }, deleted: true });
      expect(await heldCommentsOf(author.openid, vid)).toEqual([]);
      expect(await getHubItem(heldKeys.withdrawnComment(author.openid, heldCid))).toMatchObject({ cid: heldCid, vid });
    },
  };
  it('503 with the held comment as it was; the retry withdraws it once', async () => {
    // The session, the lookup by cid (none), the author's held comments on the video, then the held item's removal with the marker in one transaction.
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);
  });
  it('whose answer is lost: the retry answers the same', async () => {
    await retryAfterLostAnswer(sweep);
  });
});

describe('report under faults', () => {
  const sweep: FaultSweep<Case> = {
    setup: () => fixtures(),
    call: ({ reporter, cid }) => hub(api, 'report', { openid: reporter.openid, token: reporter.token, target: 'comment', id: cid, reason: 'abusive' }),
    async once({ reporter, cid }) {
      expect(await caseOf('comment', cid)).toMatchObject({ open_count: 1, r_abusive: 1, round: 1 });
      expect(await getHubItem(reportKeys.report('comment', cid, reporter.openid, 1))).toMatchObject({ reason: 'abusive' });
    },
  };
  it('503 with no report, no case and no window counted; the retry files one report', async () => {
    const report = await sweepFaults(sweep);
    expect(report.requests.at(-1)).toBe('TransactWriteItemsCommand');
  });
  it('whose answer is lost: the retry updates the same report, counted once', async () => {
    await retryAfterLostAnswer(sweep);
  });
});

const act = (c: Case, type: 'comment' | 'video' | 'user', id: string, action: string) =>
  api.post('/api/v1/moderation/actions', { token: c.moderator.token, body: { target: { type, id }, action } });

describe('moderation actions under faults', () => {
  const removeComment: FaultSweep<Case> = {
    setup: () => fixtures('comment'),
    call: (c) => act(c, 'comment', c.cid, 'remove'),
    async once(c) {
      expect(await findComment(c.cid)).toMatchObject({ openid: '', content: '', removed_by: 'moderator' });
      const decided = await caseOf('comment', c.cid);
      expect(decided).toMatchObject({ round: 2, open_count: 0, decisions: { '1': { action: 'remove', outcome: 'content_removed', reports: 1 } } });
      expect(decided?.oldest_open_at).toBeUndefined();
    },
  };
  it('remove a comment: 503 with the comment and the case as they were; the retry decides once', async () => {
    expect((await sweepFaults(removeComment)).requests.at(-1)).toBe('TransactWriteItemsCommand');
  });
  it('remove a comment whose answer is lost: the retry answers the same decision', async () => {
    await retryAfterLostAnswer(removeComment);
  });

  const removeVideo: FaultSweep<Case> = {
    setup: () => fixtures('video'),
    call: (c) => act(c, 'video', c.vid, 'remove'),
    async once(c) {
      expect(await getHubItem(videoKeys.video(c.vid))).toBeUndefined();
      expect(await getHubItem(videoKeys.videoTag(c.vid, 'robots'))).toBeUndefined();
      expect(await getHubItem(moderationKeys.removedVideo(c.vid))).toMatchObject({ vid: c.vid, removed_by: c.moderator.openid });
      expect(await caseOf('video', c.vid)).toMatchObject({ round: 2, open_count: 0 });
    },
  };
  it('remove a video: 503 with the video in the catalog; the retry removes it once', async () => {
    expect((await sweepFaults(removeVideo)).requests.at(-1)).toBe('TransactWriteItemsCommand');
  });

  const dismiss: FaultSweep<Case> = {
    setup: () => fixtures('comment'),
    call: (c) => act(c, 'comment', c.cid, 'dismiss'),
    async once(c) {
      expect(await findComment(c.cid)).toMatchObject({ content: 'buy cheap watches' });
      expect(await caseOf('comment', c.cid)).toMatchObject({ round: 2, open_count: 0, decisions: { '1': { action: 'dismiss', state: 'dismissed' } } });
    },
  };
  it('dismiss: 503 with the case open; the retry dismisses once', async () => {
    await sweepFaults(dismiss);
  });

  const suspend: FaultSweep<Case> = {
    setup: () => fixtures('comment'),
    call: (c) => act(c, 'comment', c.cid, 'suspend'),
    async once(c) {
      expect(await getHubItem(accountKeys.account(c.author.openid))).toMatchObject({ suspended_by: c.moderator.openid });
      expect(await caseOf('comment', c.cid)).toMatchObject({ round: 2, open_count: 0, decisions: { '1': { action: 'suspend', outcome: 'author_suspended' } } });
      expect(await getHubItem(commentKeys.commentById(c.cid))).toBeDefined();
    },
  };
  it('suspend the author: 503 with the account and the case as they were; the retry suspends once', async () => {
    await sweepFaults(suspend);
  });
  it('suspend whose answer is lost: the retry answers the same decision', async () => {
    await retryAfterLostAnswer(suspend);
  });
});
