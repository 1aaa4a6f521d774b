import * as z from '../../platform/zod.js';
import { defineRouteDoc, type Same } from '../../platform/api-doc.js';
import { exampleVideo, videoViewSchema } from '../../entities/catalog/video-view-schema.js';
import { publishQuerySchema, publishVideoSchema, type PublishDryRun } from './publish-video.js';

const dryRunSchema = z.object({ dry_run: z.literal(true), action: z.enum(['create', 'update']), vid: z.union([z.string(), z.null()]) });
const dryRunMatches: Same<z.output<typeof dryRunSchema>, PublishDryRun> = true;
void dryRunMatches;

/** `POST /api/v1/videos` in the OpenAPI document (lib/platform/api-doc.ts). */
export const publishVideoDoc = defineRouteDoc({
  tag: 'Protected',
  summary: 'Publish a video (stored role editor or admin)',
  description:
    'The same `external_id` from the same account updates that video instead of adding one (pipelines re-run). ' +
    'The filter (docs/moderation.md, "Filter") checks the title, the description and each tag: a rejected term is 400 naming the field (a tag as `tags.<index>`); a held one is answered `held: true`, and the video is in no feed, list, search or share page until a moderator approves it. ' +
    'With `dry_run=true` the request is checked as a publish (role, scope, body) and nothing is written: 200 with the action it would take.',
  query: publishQuerySchema,
  body: publishVideoSchema,
  success: { status: 201, kind: 'json', data: z.object({ video: videoViewSchema, created: z.boolean(), held: z.optional(z.literal(true)) }) },
  alternative: { status: 200, when: '`dry_run=true`', data: dryRunSchema },
  errors: [401, 403],
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
});
