import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { countMetric } from '../../platform/observability/metrics.js';
import { nextList } from '../../features/recommend/feed.js';
import { defineOperation } from './operation.js';
import { deviceId, identifier, oneOfText, optionalInt, optionalText } from './params.js';
import { exampleVideo, videoViewSchema } from '../../entities/catalog/video-view-schema.js';
import { signedIn } from './examples.js';

const VID = /^[A-Za-z0-9_-]{1,64}$/;
/** How many vids one call may report as viewed (view_list plus view). */
export const MAX_VIEWED = 40;

const optionalId = (max: number) =>
  documentAs(optionalText(max).check(z.refine((v) => v === '' || VID.test(v), 'must be letters, digits, _ or - (at most 64)')), { pattern: '^\\s*[A-Za-z0-9_-]*\\s*$' }, 'add');

const query = z
  .object({
    openid: identifier(),
    d: deviceId,
    vid: optionalId(64),
    watch_count: optionalInt(1, 20, 10),
    order: oneOfText(['rec', 'hot', 'new'], { fallback: 'rec', message: 'must be rec, hot or new', maxLength: 8 }),
    cmd: documentAs(optionalText(16).check(z.refine((v) => v === '' || v === 'refresh', 'must be "refresh" or empty')), { type: 'string', enum: ['', 'refresh'] }),
    view_list: documentAs(z
      .pipe(
        optionalText(MAX_VIEWED * 65),
        z.transform((v: string) =>
          v
            .split(/[,\uff0c]/)
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      )
      .check(
        z.refine((vids) => vids.every((vid) => VID.test(vid)), 'must be comma-separated vids'),
        z.refine((vids) => new Set(vids).size <= MAX_VIEWED, `must hold at most ${MAX_VIEWED} vids`),
      ), { pattern: '^[A-Za-z0-9_,\\uff0c\\s-]*$', description: `Comma-separated vids, at most ${MAX_VIEWED} different (with view)` }, 'add'),
    view: optionalId(64),
    fav_index: optionalText(1024),
    shareid: optionalText(64),
    q: optionalText(100),
  })
  .check(
    z.refine((p) => new Set([...p.view_list, ...(p.view ? [p.view] : [])]).size <= MAX_VIEWED, {
      message: `view_list and view together must hold at most ${MAX_VIEWED} vids`,
      path: ['view_list'],
    }),
  );

/**
 * get_next_list: the feed (docs/feed.md, docs/hub-feed-api.md). Anonymous without a token; a token
 * that is present must be valid and belong to `openid`.
 */
export const getNextList = defineOperation({
  name: 'get_next_list',
  summary: 'The feed: recommended, hot, new, search or "more like this"',
  auth: 'optional',
  scope: 'hub:read',
  query,
  data: z.object({ list: z.array(videoViewSchema), fav_index: z.string() }),
  examples: [
    { summary: 'Anonymous, 5 new videos', query: { openid: 'anonymous-device', order: 'new', watch_count: '5' }, data: { list: [exampleVideo], fav_index: '' } },
    { summary: 'Search', query: { ...signedIn, q: 'booth', view_list: 'v_1,v_2' } },
  ],
  run: (p, ctx) => {
    countMetric('FeedCalls');
    return nextList({
      viewer: ctx.principal?.user_id,
      // The token check made a request already (an access key makes up to 3): it counts in the budget.
      authRequests: ctx.principal ? (ctx.principal.auth_type === 'jwt' ? 1 : 3) : 0,
      device: p.d,
      count: p.watch_count,
      order: p.order,
      q: p.q,
      ...(p.vid ? { similarTo: p.vid } : {}),
      ...(p.shareid ? { shareid: p.shareid } : {}),
      viewed: [...new Set([...p.view_list, ...(p.view ? [p.view] : [])])],
      refresh: p.cmd === 'refresh',
      cursor: p.fav_index,
    });
  },
});
