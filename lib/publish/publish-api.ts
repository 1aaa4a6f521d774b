import * as z from '../zod.js';
import { defineRouteDoc } from '../api-doc.js';
import { exampleVideo, videoViewSchema } from '../catalog/video-view-schema.js';
import { publishVideoSchema } from './publish-video.js';

/** `POST /api/v1/videos` in the OpenAPI document (lib/api-doc.ts). */
export const publishVideoDoc = defineRouteDoc({
  tag: 'Protected',
  summary: 'Publish a video (stored role editor or admin)',
  description: 'The same `external_id` from the same account updates that video instead of adding one (pipelines re-run).',
  auth: 'any',
  scope: 'videos:write',
  body: publishVideoSchema,
  success: { status: 201, kind: 'json', data: z.object({ video: videoViewSchema, created: z.boolean() }) },
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
  ],
});
