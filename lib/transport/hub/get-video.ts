import * as z from '../../platform/zod.js';
import { exampleVideo, videoViewSchema } from '../../entities/catalog/video-view-schema.js';
import { videoById } from '../../features/recommend/video-by-id.js';
import { signedIn } from './examples.js';
import { defineOperation } from './operation.js';
import { deviceId, identifier } from './params.js';

/**
 * get_video (docs/hub-feed-api.md, "get_video"): one video by its vid, as a feed item, for an app
 * opening a video from a deep link, a notification or a report. Anonymous without a token, as
 * get_next_list; a token that is present must be valid and belong to `openid`.
 */
export const getVideo = defineOperation({
  name: 'get_video',
  summary: 'One video by its vid, as a feed item (liked/disliked when signed in); 404 when removed, held, unknown or by an author the caller blocked',
  auth: 'optional',
  scope: 'hub:read',
  query: z.object({ openid: identifier(), vid: identifier(64), d: deviceId }),
  data: z.object({ video: videoViewSchema }),
  examples: [
    { summary: 'Anonymous, from a deep link', query: { openid: 'anonymous-device', vid: 'v_8k2m4q' }, data: { video: exampleVideo } },
    { summary: 'Signed in', query: { ...signedIn, vid: 'v_8k2m4q' }, data: { video: { ...exampleVideo, liked: true, disliked: false } } },
  ],
  run: async ({ vid }, ctx) => ({ video: await videoById(vid, ctx.principal?.user_id) }),
});
