import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import { FILTER_CACHE_MS, seedFilterTerms } from '../../lib/features/filter/terms.js';
import type { ReportView } from '../../lib/features/report/reports.js';
import { hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { useWebStack } from '../support/web-browser.js';
import { storeLoginAndReload } from '../support/web-session.js';

/** The page's moderation view (web/src/moderation-view.ts) in Debian's Chromium, against the local server (docs/web.md, "Moderation"). */
const web = useWebStack();

async function openSignedIn(who: TestAccount): Promise<Page> {
  const page = await web.openPage({ viewport: { width: 1200, height: 900 } });
  await storeLoginAndReload(page, who.openid, who.token);
  await page.getByRole('heading', { level: 2, name: 'Activity' }).waitFor();
  return page;
}

describe('the moderation view', () => {
  it('shows a moderator the reported comment and removes it; the reporter sees the outcome', async () => {
    const [moderator] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
    const [author, reporter] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const { vid } = await putTestVideo(author.openid);
    const posted = await hub<{ comment: CommentView }>(web.api(), 'comment_set', { openid: author.openid, token: author.token, vid, content: 'buy cheap watches' });
    const cid = posted.data.comment.cid;
    expect((await hub(web.api(), 'report', { openid: reporter.openid, token: reporter.token, target: 'comment', id: cid, reason: 'spam' })).status).toBe(200);

    const page = await openSignedIn(moderator);
    const row = page.locator(`section.moderation tr[data-target="comment:${cid}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('buy cheap watches');
    expect(await row.innerText()).toContain('spam 1');
    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => row.count()).toBe(0);

    const mine = await hub<{ list: ReportView[] }>(web.api(), 'my_reports', { openid: reporter.openid, token: reporter.token });
    expect(mine.data.list[0]).toMatchObject({ state: 'actioned', outcome: 'content_removed' });
  });

  it('shows a held comment among the cases and approves it: the comment is published for everyone', async () => {
    const [moderator] = (await putTestAccounts(1, ['moderator'])) as [TestAccount];
    const [author, reader] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
    const { vid } = await putTestVideo(reader.openid);
    // A hold term, read afresh once the filter's cache bound has passed (docs/moderation.md, "Filter").
    expect(await seedFilterTerms([{ term: 'casino', action: 'hold' }])).toBe(true);
    clock.advance(FILTER_CACHE_MS);
    try {
      const held = await hub<{ comment: CommentView; held?: true }>(web.api(), 'comment_set', { openid: author.openid, token: author.token, vid, content: 'best casino deals' });
      expect(held.data.held).toBe(true);

      const page = await openSignedIn(moderator);
      const row = page.locator('section.moderation tr[data-held]', { hasText: 'best casino deals' });
      await row.waitFor();
      expect(await row.innerText()).toContain('held by the filter: content');
      expect(await row.getByRole('button', { name: 'Dismiss' }).count()).toBe(0);
      await row.getByRole('button', { name: 'Approve' }).click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.innerText()).toContain('Publishes the comment');
      await dialog.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => row.count()).toBe(0);

      const seen = await hub<{ list: CommentView[]; total: number }>(web.api(), 'comment_get', { openid: reader.openid, token: reader.token, vid, page: 1, d: '' });
      expect(seen.data.total).toBe(1);
      expect(seen.data.list.map((c) => c.content)).toEqual(['best casino deals']);
    } finally {
      clock.reset();
    }
  });

  it("shows a moderator's own held nickname without buttons: another moderator decides it", async () => {
    const [moderator, colleague] = (await putTestAccounts(2, ['moderator'])) as [TestAccount, TestAccount];
    // The list the test above seeds, or seeded here when this test runs alone (a seed writes only into an empty store).
    await seedFilterTerms([{ term: 'casino', action: 'hold' }]);
    clock.advance(FILTER_CACHE_MS);
    try {
      expect((await hub(web.api(), 'change_nickname', { openid: moderator.openid, token: moderator.token, nickname: 'casino boss' })).data).toMatchObject({ held: true });
      const own = await openSignedIn(moderator);
      const row = own.locator('section.moderation tr[data-held]', { hasText: 'casino boss' });
      await row.waitFor();
      expect(await row.innerText()).toContain('Yours: another moderator decides');
      expect(await row.getByRole('button').count()).toBe(0);
      const theirs = await openSignedIn(colleague);
      const colleagueRow = theirs.locator('section.moderation tr[data-held]', { hasText: 'casino boss' });
      await colleagueRow.waitFor();
      expect(await colleagueRow.getByRole('button', { name: 'Approve' }).count()).toBe(1);
    } finally {
      clock.reset();
    }
  });

  it('is not shown to an account without the role', async () => {
    const [plain] = (await putTestAccounts(1)) as [TestAccount];
    const page = await openSignedIn(plain);
    // The role check has answered once Activity shows; give the view no chance to appear late.
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('heading', { name: 'Moderation' }).count()).toBe(0);
  });
});
