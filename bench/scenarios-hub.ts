import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../lib/platform/clock.js';
import { db, tableNames } from '../lib/platform/db/client.js';
import { blockKeys } from '../lib/entities/social/block-items.js';
import { accessKeyFor, bearer, mustSucceed, newNonce, signUp, type Account } from './fixtures.js';
import { hubRequest, type BenchRequest } from './invoke.js';
import { as, constant, hubOp, route, type Scenario } from './scenario.js';
import type { World } from './world.js';

const get = (path: string, credential: string): BenchRequest => ({ method: 'GET', path, headers: bearer(credential) });
const favParams = (a: Account, watchList: string, view = '') => ({ ...as(a), next_id: 0, fav_index: 0, watch_list: watchList, view, q: '', d: '' });

/**
 * A fresh (account, video) pair per call: call i uses video i of the catalog, with a new account
 * after every pass over the catalog, so "first like" really is a first like every time.
 */
function freshPairs(w: World) {
  const accounts: Account[] = [];
  return async (i: number) => {
    const round = Math.floor(i / w.vids.length);
    while (accounts.length <= round) accounts.push(await signUp());
    return { account: accounts[round]!, vid: w.vids[i % w.vids.length]! };
  };
}

/** get_next_list variants: the feed's cost must not depend on what is asked. */
const FEED: Scenario[] = [
  {
    name: 'get_next_list (no token)',
    group: 'hub',
    available: hubOp('get_next_list'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_next_list', { openid: w.alice.openid }))(),
  },
  {
    name: 'get_next_list (signed in)',
    group: 'hub',
    available: hubOp('get_next_list'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_next_list', as(w.alice)))(),
  },
  {
    name: 'get_next_list (signed in, view_list of 10)',
    group: 'hub',
    available: hubOp('get_next_list'),
    expect: 200,
    note: 'records the 10 videos shown as seen',
    setup: async (w) => async (i) => {
      const shown = Array.from({ length: 10 }, (_, k) => w.vids[(i * 10 + k) % w.vids.length]!);
      return hubRequest('get_next_list', { ...as(w.alice), view_list: shown.join(',') });
    },
  },
  {
    name: 'get_next_list (order=new, next page)',
    group: 'hub',
    available: hubOp('get_next_list'),
    expect: 200,
    setup: async (w) => {
      const first = await mustSucceed(hubRequest('get_next_list', { ...as(w.alice), order: 'new' }));
      return constant(hubRequest('get_next_list', { ...as(w.alice), order: 'new', fav_index: String(first.fav_index ?? '') }))();
    },
  },
  {
    name: 'get_next_list (order=hot)',
    group: 'hub',
    available: hubOp('get_next_list'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_next_list', { ...as(w.alice), order: 'hot' }))(),
  },
  {
    name: 'get_next_list (q search)',
    group: 'hub',
    available: hubOp('get_next_list'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_next_list', { ...as(w.alice), q: '机器人' }))(),
  },
  {
    name: 'get_next_list (vid: more like this)',
    group: 'hub',
    available: hubOp('get_next_list'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_next_list', { ...as(w.alice), vid: w.vids[3]! }))(),
  },
  {
    name: 'get_next_list (signed in, 500 blocked accounts)',
    group: 'hub',
    available: () => hubOp('get_next_list')() && hubOp('block_user')(),
    expect: 200,
    note: 'the block list is read by the first Query (docs/moderation.md, "Blocking")',
    setup: async (w) => {
      // One author blocked through the hub, 499 more written into the same list item as block_user writes it.
      const blocker = await signUp();
      await mustSucceed(hubRequest('follow_user', { ...as(blocker), follow_user: w.editor.openid }));
      for (const vid of w.vids.slice(0, 10)) await mustSucceed(hubRequest('like', { ...as(blocker), vid }));
      await mustSucceed(hubRequest('block_user', { ...as(blocker), block_user: w.bob.openid }));
      const at = clock.nowIso();
      const blocked = Object.fromEntries([[w.bob.openid, at], ...Array.from({ length: 499 }, (_, i) => [`u_benchBlocked${String(i).padStart(8, '0')}`, at])]);
      await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...blockKeys.blockList(blocker.openid), entity: 'blocks', openid: blocker.openid, blocked, version: 2 } }));
      return constant(hubRequest('get_next_list', as(blocker)))();
    },
  },
  {
    name: 'get_next_list (shareid)',
    group: 'hub',
    available: () => hubOp('get_next_list')() && hubOp('sharetext')(),
    expect: 200,
    setup: async (w) => {
      const share = await mustSucceed(hubRequest('sharetext', { openid: w.bob.openid, vid: w.vids[4]!, d: '', locale: 'en', country: '' }));
      return constant(hubRequest('get_next_list', { ...as(w.alice), shareid: String(share.shareid) }))();
    },
  },
];

/** `GET /s/{shareid}` of a share of its own (device `d`), each call's source address and headers from `call`. */
function sharePageScenario(what: string, note: string, d: string, call: (i: number) => Partial<BenchRequest>): Scenario {
  return {
    name: `GET /s/{shareid} (share page, ${what})`,
    group: 'hub',
    available: route('GET', '/s/{shareid}'),
    expect: 200,
    note,
    setup: async (w) => {
      const shared = await mustSucceed(hubRequest('sharetext', { openid: w.alice.openid, vid: w.vids[3]!, d, locale: 'en', country: 'CN' }));
      return async (i) => ({ method: 'GET', path: `/s/${String(shared.shareid)}`, ...call(i) });
    },
  };
}

export const HUB_SCENARIOS: Scenario[] = [
  ...FEED,
  {
    name: 'get_fav (like list)',
    group: 'hub',
    available: hubOp('get_fav'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_fav', favParams(w.alice, 'like')))(),
  },
  {
    name: 'get_fav (history)',
    group: 'hub',
    available: hubOp('get_fav'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_fav', favParams(w.alice, 'history')))(),
  },
  {
    name: 'get_fav (comment list)',
    group: 'hub',
    available: hubOp('get_fav'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_fav', favParams(w.alice, 'comment')))(),
  },
  {
    name: "get_fav (another user's profile)",
    group: 'hub',
    available: hubOp('get_fav'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_fav', favParams(w.alice, 'like', w.bob.openid)))(),
  },
  {
    name: 'get_follow',
    group: 'hub',
    available: hubOp('get_follow'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_follow', { ...as(w.bob), watch_list: '', offset: 0, d: '' }))(),
  },
  {
    name: 'get_follower',
    group: 'hub',
    available: hubOp('get_follower'),
    expect: 200,
    setup: async (w) => constant(hubRequest('get_follower', { ...as(w.alice), watch_list: '', offset: 0, d: '' }))(),
  },
  {
    name: 'like (first like)',
    group: 'hub',
    available: hubOp('like'),
    expect: 200,
    setup: async (w) => {
      const pair = freshPairs(w);
      return async (i) => {
        const { account, vid } = await pair(i);
        return hubRequest('like', { ...as(account), vid });
      };
    },
  },
  {
    name: 'like (already liked)',
    group: 'hub',
    available: hubOp('like'),
    expect: 200,
    setup: async (w) => constant(hubRequest('like', { ...as(w.alice), vid: w.vids[0]! }))(),
  },
  {
    name: 'dislike (a liked video)',
    group: 'hub',
    available: () => hubOp('dislike')() && hubOp('like')(),
    expect: 200,
    setup: async (w) => {
      const pair = freshPairs(w);
      return async (i) => {
        const { account, vid } = await pair(i);
        await mustSucceed(hubRequest('like', { ...as(account), vid }));
        return hubRequest('dislike', { ...as(account), vid, action: 'dislike' });
      };
    },
  },
  {
    name: 'comment_set (new comment)',
    group: 'hub',
    available: hubOp('comment_set'),
    expect: 200,
    setup: async (w) => {
      const run = newNonce();
      return async (i) => hubRequest('comment_set', { ...as(w.bob), vid: w.vids[7]!, content: `bench comment ${run} ${i}` });
    },
  },
  {
    name: 'comment_set (retry within 60 s)',
    group: 'hub',
    available: hubOp('comment_set'),
    expect: 200,
    note: 'the same (openid, vid, content) again: returns the first comment',
    setup: async (w) => constant(hubRequest('comment_set', { ...as(w.bob), vid: w.vids[8]!, content: `retried ${newNonce()}` }))(),
  },
  {
    name: 'comment_get (page 1)',
    group: 'hub',
    available: hubOp('comment_get'),
    expect: 200,
    setup: async (w) => constant(hubRequest('comment_get', { ...as(w.alice), vid: w.commentedVid, page: 1, d: '' }))(),
  },
  {
    name: 'comment_get (page 3, last)',
    group: 'hub',
    available: hubOp('comment_get'),
    expect: 200,
    setup: async (w) => constant(hubRequest('comment_get', { ...as(w.alice), vid: w.commentedVid, page: 3, d: '' }))(),
  },
  {
    name: 'sharetext (new share)',
    group: 'hub',
    available: hubOp('sharetext'),
    expect: 200,
    setup: async (w) => {
      const run = newNonce().slice(0, 8);
      return async (i) => hubRequest('sharetext', { openid: w.alice.openid, vid: w.vids[2]!, d: `bench-${run}-${i}`, locale: 'zh-CN', country: 'CN' });
    },
  },
  {
    name: 'sharetext (new share, signed in)',
    group: 'hub',
    available: hubOp('sharetext'),
    expect: 200,
    note: "the account's share: also an entry of the sharer index (gsi2), which the data export reads",
    setup: async (w) => {
      const pair = freshPairs(w);
      return async (i) => {
        const { account, vid } = await pair(i);
        return hubRequest('sharetext', { ...as(account), vid, d: '', locale: 'zh-CN', country: 'CN' });
      };
    },
  },
  {
    name: 'sharetext (retry of the same share)',
    group: 'hub',
    available: hubOp('sharetext'),
    expect: 200,
    note: 'same openid, device and video in the same time bucket: answered again, counted once',
    setup: async (w) => constant(hubRequest('sharetext', { openid: w.alice.openid, vid: w.vids[2]!, d: 'bench-device', locale: 'zh-CN', country: 'CN' }))(),
  },
  sharePageScenario('a person', "HTML; reads the share, then the video and its author; a network's first view of the day: one transaction counts the open on the share and the video (each call from another network)", 'bench-share-page', (i) => ({ sourceIp: `198.51.100.${i + 1}` })),
  sharePageScenario('a repeat view', 'the same network again the same UTC day: counted already, nothing written', 'bench-share-repeat', () => ({ sourceIp: '198.51.100.200' })),
  sharePageScenario('a link preview', "a crawler user agent: counts a preview on the share only, a network's first of the day (each call from another network)", 'bench-share-preview', (i) => ({
    headers: { 'user-agent': 'facebookexternalhit/1.1' },
    sourceIp: `198.51.100.${i + 101}`,
  })),
  {
    name: 'follow_user (new relation)',
    group: 'hub',
    available: () => hubOp('follow_user')() && hubOp('unfollow_user')(),
    expect: 200,
    setup: async (w) => async () => {
      await mustSucceed(hubRequest('unfollow_user', { ...as(w.alice), follow_user: w.editor.openid }));
      return hubRequest('follow_user', { ...as(w.alice), follow_user: w.editor.openid });
    },
  },
  {
    name: 'follow_user (already following)',
    group: 'hub',
    available: hubOp('follow_user'),
    expect: 200,
    setup: async (w) => constant(hubRequest('follow_user', { ...as(w.bob), follow_user: w.alice.openid }))(),
  },
  {
    name: 'unfollow_user',
    group: 'hub',
    available: () => hubOp('follow_user')() && hubOp('unfollow_user')(),
    expect: 200,
    setup: async (w) => async () => {
      await mustSucceed(hubRequest('follow_user', { ...as(w.editor), follow_user: w.bob.openid }));
      return hubRequest('unfollow_user', { ...as(w.editor), follow_user: w.bob.openid });
    },
  },
  ...(['nickname', 'signature', 'city'] as const).map(
    (field): Scenario => ({
      name: `change_${field}`,
      group: 'hub',
      available: hubOp(`change_${field}`),
      expect: 200,
      setup: async (w) => async (i) => hubRequest(`change_${field}`, { ...as(w.bob), [field]: `${field} ${i % 1000}` }),
    }),
  ),
];

const videoBody = (i: number, externalId?: string) => ({
  title: `Bench publish ${i}`,
  description: 'Published by the benchmark',
  video_url: `https://cdn.example.com/v/${i}.mp4`,
  cover_url: `https://cdn.example.com/c/${i}.jpg`,
  duration_s: 60,
  tags: ['expo', 'bench'],
  ...(externalId ? { external_id: externalId } : {}),
});

export const PROTECTED_SCENARIOS: Scenario[] = [
  {
    name: 'POST /videos (new, editor JWT)',
    group: 'protected',
    available: route('POST', '/api/v1/videos'),
    expect: 201,
    setup: async (w) => async (i) => ({ method: 'POST', path: '/api/v1/videos', headers: bearer(w.editor.token), body: videoBody(i) }),
  },
  {
    name: 'POST /videos (same external_id: update)',
    group: 'protected',
    available: route('POST', '/api/v1/videos'),
    expect: 201,
    setup: async (w) => {
      const externalId = `ext-${newNonce()}`;
      return async (i) => ({ method: 'POST', path: '/api/v1/videos', headers: bearer(w.editor.token), body: videoBody(i, externalId) });
    },
  },
  {
    name: 'POST /videos (new, editor access key)',
    group: 'protected',
    available: route('POST', '/api/v1/videos'),
    expect: 201,
    setup: async (w) => {
      const { api_key } = await accessKeyFor(w.editor.openid);
      return async (i) => ({ method: 'POST', path: '/api/v1/videos', headers: bearer(api_key), body: videoBody(100_000 + i) });
    },
  },
  {
    name: 'POST /videos?dry_run=true (new external_id)',
    group: 'protected',
    available: route('POST', '/api/v1/videos'),
    expect: 200,
    setup: async (w) => async (i) => ({ method: 'POST', path: '/api/v1/videos?dry_run=true', headers: bearer(w.editor.token), body: videoBody(i, `dry-${newNonce()}`) }),
  },
  {
    name: 'POST /videos?dry_run=true (published external_id: update)',
    group: 'protected',
    available: route('POST', '/api/v1/videos'),
    expect: 200,
    setup: async (w) => {
      const externalId = `dry-${newNonce()}`;
      await mustSucceed({ method: 'POST', path: '/api/v1/videos', headers: bearer(w.editor.token), body: videoBody(0, externalId) }, 201);
      return async (i) => ({ method: 'POST', path: '/api/v1/videos?dry_run=true', headers: bearer(w.editor.token), body: videoBody(i, externalId) });
    },
  },
  {
    name: 'GET /export/comments (admin, limit 100)',
    group: 'protected',
    available: route('GET', '/api/v1/export/comments'),
    expect: 200,
    setup: async (w) => constant(get('/api/v1/export/comments?limit=100', w.admin.token))(),
  },
  {
    name: 'GET /export/comments (own rows, limit 100)',
    group: 'protected',
    available: route('GET', '/api/v1/export/comments'),
    expect: 200,
    setup: async (w) => constant(get('/api/v1/export/comments?limit=100', w.alice.token))(),
  },
  {
    name: 'GET /export/comments (admin, since an hour ago, limit 100)',
    group: 'protected',
    available: route('GET', '/api/v1/export/comments'),
    expect: 200,
    setup: async (w) => async () => get(`/api/v1/export/comments?limit=100&since=${encodeURIComponent(new Date(clock.now() - 3_600_000).toISOString())}`, w.admin.token),
  },
  {
    name: 'GET /export/accounts (admin, limit 100)',
    group: 'protected',
    available: route('GET', '/api/v1/export/accounts'),
    expect: 200,
    setup: async (w) => constant(get('/api/v1/export/accounts?limit=100', w.admin.token))(),
  },
  {
    name: 'GET /export/accounts (own + followed, limit 100)',
    group: 'protected',
    available: route('GET', '/api/v1/export/accounts'),
    expect: 200,
    setup: async (w) => constant(get('/api/v1/export/accounts?limit=100', w.bob.token))(),
  },
  {
    name: 'GET /me/data (first page)',
    group: 'protected',
    available: route('GET', '/api/v1/me/data'),
    expect: 200,
    note: 'the account, then its sections in order while the page has room and its 6-request budget allows',
    setup: async (w) => constant(get('/api/v1/me/data', w.alice.token))(),
  },
  {
    name: 'POST /admin/users/{openid}/roles',
    group: 'protected',
    available: route('POST', '/api/v1/admin/users/{openid}/roles'),
    expect: 200,
    setup: async (w) => async () => ({ method: 'POST', path: `/api/v1/admin/users/${w.bob.openid}/roles`, headers: bearer(w.admin.token), body: { roles: [] } }),
  },
];
