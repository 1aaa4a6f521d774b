import { beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import { reportKeys, type ReportView, type StoredCase } from '../../lib/features/report/reports.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { HOUR_MS, pinInsideWindow } from '../support/clock-windows.js';

/**
 * do=report and do=my_reports (docs/moderation.md, "Reports"): one open report per reporter and
 * target (a repeat updates it), never on oneself (400), unknown targets 404, rate limited per
 * account, and the case's counts follow.
 */
const HOURLY = 30;
const api = useTestStack({ http: false, env: { RATE_REPORTS_PER_HOUR: String(HOURLY) } });

type Filed = { report: ReportView; message: string };
let reporter: TestAccount;
let author: TestAccount;
let vid: string;
let comment: CommentView;

const report = (who: TestAccount, params: Record<string, string>) => hub<Filed>(api, 'report', { openid: who.openid, token: who.token, ...params });
const mine = (who: TestAccount, cursor = '') => hub<{ list: ReportView[]; cursor: string }>(api, 'my_reports', { openid: who.openid, token: who.token, cursor });
const caseOf = (type: 'video' | 'comment' | 'user', id: string) => getHubItem<StoredCase>(reportKeys.case(type, id));

beforeAll(async () => {
  [reporter, author] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
  vid = (await putTestVideo(author.openid)).vid;
  const posted = await hub<{ comment: CommentView }>(api, 'comment_set', { openid: author.openid, token: author.token, vid, content: 'buy cheap watches' });
  comment = posted.data.comment;
});

describe('report', () => {
  it('files a report and says it was received; a repeat updates it and keeps one report', async () => {
    const first = await report(reporter, { target: 'comment', id: comment.cid, reason: 'spam', text: 'an advert' });
    expect(first.status).toBe(200);
    expect(first.data.report).toMatchObject({ target: { type: 'comment', id: comment.cid }, reason: 'spam', text: 'an advert', state: 'open', outcome: null, decided_at: null });
    expect(first.data.report.id).toMatch(/^r_/);
    expect(first.data.message).toContain('received');
    const again = await report(reporter, { target: 'comment', id: comment.cid, reason: 'abusive' });
    expect(again.data.report).toMatchObject({ id: first.data.report.id, reason: 'abusive', text: '', created_at: first.data.report.created_at });
    const listed = await mine(reporter);
    expect(listed.data.list.filter((r) => r.target.id === comment.cid)).toEqual([again.data.report]);
    const c = await caseOf('comment', comment.cid);
    expect(c).toMatchObject({ open_count: 1, r_spam: 0, r_abusive: 1, preview: 'buy cheap watches', owner: author.openid });
    expect(c?.oldest_open_at).toBe(first.data.report.created_at);
  });

  it('counts each reporter once in the case, with reasons', async () => {
    const others = await putTestAccounts(2);
    for (const other of others) expect((await report(other, { target: 'video', id: vid, reason: 'violent' })).status).toBe(200);
    await report(reporter, { target: 'video', id: vid, reason: 'illegal' });
    expect(await caseOf('video', vid)).toMatchObject({ open_count: 3, r_violent: 2, r_illegal: 1 });
  });

  it('refuses reporting oneself or one\'s own content (400) and changes nothing', async () => {
    for (const params of [{ target: 'user', id: author.openid }, { target: 'video', id: vid }, { target: 'comment', id: comment.cid }]) {
      const res = await report(author, { ...params, reason: 'other' });
      expect([res.status, res.body.code], JSON.stringify(params)).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect((await mine(author)).data.list).toEqual([]);
    expect(await caseOf('user', author.openid)).toBeUndefined();
  });

  it('answers 404 for an unknown target', async () => {
    for (const [target, id] of [['video', 'nosuchvideo'], ['comment', 'c_nosuchcomment00'], ['user', 'u_nobody']] as const) {
      const res = await report(reporter, { target, id, reason: 'spam' });
      expect([res.status, res.body.code], target).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('names a bad parameter (400): target, reason, text past 500 characters', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ target: 'song', id: vid, reason: 'spam' }, 'target'],
      [{ target: 'video', id: vid, reason: 'boring' }, 'reason'],
      [{ target: 'video', id: vid, reason: 'spam', text: 'x'.repeat(501) }, 'text'],
      [{ target: 'video', id: vid, reason: 'spam', text: 'bad\u0000text' }, 'text'],
    ];
    for (const [params, name] of cases) {
      const res = await report(reporter, params);
      expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect((res.body as { error: string }).error).toContain(name);
    }
  });

  it('is rate limited per account: 429 with Retry-After past the hourly limit', async () => {
    const [busy] = await putTestAccounts(1);
    // The reports and the refusal in one hour window (and one UTC day), however slowly they run.
    pinInsideWindow(HOUR_MS, 5 * 60_000);
    for (let i = 0; i < HOURLY; i++) expect((await report(busy!, { target: 'user', id: author.openid, reason: 'spam' })).status).toBe(200);
    const refused = await report(busy!, { target: 'user', id: author.openid, reason: 'spam' });
    expect([refused.status, refused.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await caseOf('user', author.openid)).toMatchObject({ open_count: 1, r_spam: 1 });
  });
});

describe('my_reports', () => {
  it('pages the reporter\'s own reports newest first', async () => {
    const [someone] = await putTestAccounts(1);
    const targets = await putTestAccounts(23);
    const filed: string[] = [];
    for (const t of targets) {
      clock.advance(1);
      filed.push((await report(someone!, { target: 'user', id: t.openid, reason: 'other' })).data.report.id);
    }
    const first = await mine(someone!);
    expect(first.data.list).toHaveLength(20);
    expect(first.data.cursor).not.toBe('');
    const second = await mine(someone!, first.data.cursor);
    expect(second.data.cursor).toBe('');
    expect([...first.data.list, ...second.data.list].map((r) => r.id)).toEqual([...filed].reverse());
    // Another account's cursor is refused.
    const stolen = await mine(reporter, first.data.cursor);
    expect([stolen.status, stolen.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});
