import { afterEach, describe, expect, it } from 'vitest';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { heldIdOf, heldKeys, holdProfileField } from '../../lib/features/filter/held-items.js';
import { FILTER_CACHE_MS, filterTermKeys, seedFilterTerms } from '../../lib/features/filter/terms.js';
import { retryAfterLostAnswer, sweepFaults, type FaultSweep } from '../support/fault-sweep.js';
import { clearFaults } from '../support/faults.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, storedAuditEvents, type TestAccount } from '../support/hub-fixtures.js';
import { clock } from '../../lib/platform/clock.js';
import { useTestStack } from '../support/stack.js';

/**
 * The filter's writes under DynamoDB faults (test/support/fault-sweep.ts: the plan of faults and
 * what each case checks): the admin term routes, and a held item's approval and discard through the
 * moderation action route (docs/moderation.md, "Filter" and "Moderation").
 */
const api = useTestStack();
afterEach(clearFaults);

const typesOf = async (openid: string) => (await storedAuditEvents(openid)).map((e) => e.type);

interface AdminCase {
  admin: string;
  token: string;
}
const adminCase = async (seed: boolean): Promise<AdminCase> => {
  const [admin] = await putTestAccounts(1, ['admin']);
  if (seed) expect(await seedFilterTerms([{ term: 'spam', action: 'hold' }, { term: 'junk', action: 'reject' }])).toBe(true);
  return { admin: admin!.openid, token: admin!.token };
};
const storedList = () => getHubItem<{ version: number; terms: { term: string; action: string }[] }>(filterTermKeys.list());

describe('the term list under DynamoDB faults', () => {
  const add: FaultSweep<AdminCase> = {
    setup: () => adminCase(false),
    call: ({ token }) => api.post('/api/v1/admin/filter-terms', { token, body: { terms: [{ term: 'SPAM', action: 'hold' }] } }),
    async once({ admin }, res) {
      expect(res.data).toMatchObject({ version: 1, terms: [{ term: 'spam', action: 'hold' }] });
      expect(await storedList()).toMatchObject({ version: 1, terms: [{ term: 'spam', action: 'hold' }] });
      expect(await typesOf(admin)).toEqual(['filter.terms_changed']);
    },
  };

  it('add terms: 503 with nothing stored; the retry stores the list and one event', async () => {
    // Session, the list (consistent read), then the list and its event in one transaction.
    expect((await sweepFaults(add)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('add terms whose answer is lost after the transaction: the retry changes nothing twice', async () => {
    await retryAfterLostAnswer(add);
  });

  const remove: FaultSweep<AdminCase> = {
    setup: () => adminCase(true),
    call: ({ token }) => api.delete(`/api/v1/admin/filter-terms/${encodeURIComponent('J-U-N-K')}`, { token }),
    async once({ admin }, res) {
      expect(res.data).toMatchObject({ version: 2, terms: [{ term: 'spam', action: 'hold' }] });
      expect(await storedList()).toMatchObject({ version: 2, terms: [{ term: 'spam', action: 'hold' }] });
      expect(await typesOf(admin)).toEqual(['filter.terms_changed']);
    },
  };

  it('remove a term: 503 with the list as it was; the retry removes it with one event', async () => {
    expect((await sweepFaults(remove)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('remove a term whose answer is lost: the retry changes nothing twice', async () => {
    await retryAfterLostAnswer(remove);
  });
});

interface HeldCase {
  author: string;
  moderator: TestAccount;
  heldId: string;
}
const heldCase = async (): Promise<HeldCase> => {
  const [author] = await putTestAccounts(1);
  const [moderator] = await putTestAccounts(1, ['moderator']);
  const item = await holdProfileField(author!.openid, 'nickname', 'spam king');
  return { author: author!.openid, moderator: moderator!, heldId: heldIdOf(item) };
};
const actOnHeld = ({ moderator, heldId }: HeldCase, action: 'approve' | 'remove') =>
  api.post('/api/v1/moderation/actions', { token: moderator.token, body: { target: { type: 'held', id: heldId }, action } });

interface HoldCase {
  author: TestAccount;
  vid: string;
}
/** An author, a video and a list holding "spam", read afresh by the case (the cache is per function: docs/moderation.md, "Filter"). */
const holdCase = async (): Promise<HoldCase> => {
  const [author] = await putTestAccounts(1);
  const video = await putTestVideo(author!.openid);
  expect(await seedFilterTerms([{ term: 'spam', action: 'hold' }])).toBe(true);
  clock.advance(FILTER_CACHE_MS);
  return { author: author!, vid: video.vid };
};

describe('holding content under DynamoDB faults', () => {
  it('hold a comment: 503 with nothing stored and no window slot taken; the retry holds it once', async () => {
    const report = await sweepFaults<HoldCase>({
      setup: holdCase,
      call: ({ author, vid }) => hub(api, 'comment_set', { openid: author.openid, token: author.token, vid, content: 'cheap spam' }),
      async once({ author, vid }, res) {
        expect(res.data).toMatchObject({ held: true, comment: { content: 'cheap spam', held: true } });
        const page = await hub<{ list: { content: string; held?: true }[]; total: number }>(api, 'comment_get', { openid: author.openid, token: author.token, vid, page: 1, d: '' });
        expect(page.data).toMatchObject({ total: 0, list: [{ content: 'cheap spam', held: true }] });
        expect(page.data.list).toHaveLength(1);
      },
    });
    expect(report.requests).toContain('TransactWriteItemsCommand');
  });

  it('hold a nickname: 503 with nothing stored; the retry holds it', async () => {
    await sweepFaults<HoldCase>({
      setup: holdCase,
      call: ({ author }) => hub(api, 'change_nickname', { openid: author.openid, token: author.token, nickname: 'spam king' }),
      async once({ author }, res) {
        expect(res.data).toMatchObject({ held: true, pending: { nickname: 'spam king' } });
        expect(await getHubItem(heldKeys.profileField(author.openid, 'nickname'))).toMatchObject({ text: { nickname: 'spam king' } });
        expect((await getHubItem<{ nickname: string }>(accountKeys.account(author.openid)))?.nickname).toBe(author.nickname);
      },
    });
  });
});

describe('held content under DynamoDB faults', () => {
  const approve: FaultSweep<HeldCase> = {
    setup: heldCase,
    call: (c) => actOnHeld(c, 'approve'),
    async once({ author }, res) {
      expect(res.data).toMatchObject({ action: 'approve', outcome: 'content_approved', content: { type: 'user', id: author } });
      expect((await getHubItem<{ nickname: string }>(accountKeys.account(author)))?.nickname).toBe('spam king');
      expect(await getHubItem(heldKeys.profileField(author, 'nickname'))).toBeUndefined();
      expect(await typesOf(author)).toEqual(['filter.held_approved']);
    },
  };

  it('approve a held nickname: 503 with nothing changed; the retry applies it with one event, in one transaction', async () => {
    // The session, the held item and its author's account, then the account's field, the item's removal and the event in one transaction.
    expect((await sweepFaults(approve)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  const discard: FaultSweep<HeldCase> = {
    setup: heldCase,
    call: (c) => actOnHeld(c, 'remove'),
    async once({ author }, res) {
      expect(res.data).toMatchObject({ action: 'remove', outcome: 'content_removed', content: { type: 'user', id: author } });
      expect((await getHubItem<{ nickname: string }>(accountKeys.account(author)))?.nickname).not.toBe('spam king');
      expect(await getHubItem(heldKeys.profileField(author, 'nickname'))).toBeUndefined();
      expect(await typesOf(author)).toEqual(['filter.held_discarded']);
    },
  };

  it('discard a held nickname: 503 with the item kept; the retry removes it with one event', async () => {
    expect((await sweepFaults(discard)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });
});
