import * as z from '../../platform/zod.js';
import { exampleVideo, videoViewSchema } from '../../entities/catalog/video-view-schema.js';
import { dryRunSchema } from '../../features/publish/publish-api.js';
import { authorizePublisher, dryRunPublish, publishQuerySchema, publishVideo, publishVideoSchema, sentTagsOf } from '../../features/publish/publish-video.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'publishVideo',
  description: 'Publish a video (stored role editor or admin)',
  tables: { hub: { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'] } },
  routes: [{ method: 'POST', path: '/api/v1/videos' }],
  auth: 'either',
  scope: 'videos:write',
  request: { query: publishQuerySchema, body: publishVideoSchema },
  // The stored role, before the body: a caller without it is 403 whatever the body holds.
  authorize: authorizePublisher,
  doc: {
    tag: 'Protected',
    summary: 'Publish a video (stored role editor or admin)',
    description:
      'The same `external_id` from the same account updates that video instead of adding one (pipelines re-run). ' +
      'The filter (docs/moderation.md, "Filter") checks the title, the description and each tag: a rejected term is 400 naming the field (a tag as `tags.<index>`); a held one is answered `held: true`, and the video is in no feed, list, search or share page until a moderator approves it. ' +
      'With `dry_run=true` the request is checked as a publish (role, scope, body) and nothing is written: 200 with the action it would take.',
    success: { status: 201, kind: 'json', data: z.object({ video: videoViewSchema, created: z.boolean(), held: z.optional(z.literal(true)) }) },
    alternative: { status: 200, when: '`dry_run=true`', data: dryRunSchema },
    // 404: the publisher's account was deleted while the publish ran (the write's condition on it: lib/entities/catalog/videos.ts, putVideo; lib/features/filter/held-items.ts for a held one).
    errors: [401, 403, 404],
    examples: [
      {
        summary: 'A video from a pipeline',
        body: {
          title: 'Booth tour: hall 3',
          video_url: 'https://cdn.example.com/videos/v_8k2m4q.mp4',
          cover_url: 'https://cdn.example.com/covers/v_8k2m4q.jpg',
          duration_s: 600,
          tags: ['expo', 'hall-3'],
          external_id: 'cms-1842',
        },
        data: { video: exampleVideo, created: true },
      },
      {
        summary: 'A dry run of a line whose external_id was published before',
        query: { dry_run: 'true' },
        body: { title: 'Booth tour: hall 3 (recut)', video_url: 'https://cdn.example.com/videos/v_8k2m4q.mp4', cover_url: 'https://cdn.example.com/covers/v_8k2m4q.jpg', duration_s: 640, external_id: 'cms-1842' },
        data: { dry_run: true, action: 'update', vid: exampleVideo.vid },
        alternative: true,
      },
    ],
  },
  handler: async ({ principal, query, body, rawBody, authorized }) => {
    const publish = { account: authorized, input: body, sentTags: sentTagsOf(rawBody) };
    return query.dry_run ? { data: await dryRunPublish(publish) } : { status: 201, data: await publishVideo(principal!, publish) };
  },
});
export const handler = route.handler;
