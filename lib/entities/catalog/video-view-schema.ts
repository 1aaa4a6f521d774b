import * as z from '../../platform/zod.js';

/**
 * A video in any hub response (docs/hub-api.md, "Rules shared by every operation"): the one
 * declaration of its shape, which the OpenAPI document describes and VideoView is inferred from.
 */
export const videoViewSchema = z.object({
  vid: z.string(),
  title: z.string(),
  description: z.string(),
  cover_url: z.string(),
  video_url: z.string(),
  duration_s: z.number(),
  tags: z.array(z.string()),
  author: z.object({ openid: z.string(), nickname: z.string() }),
  created_at: z.string(),
  like_count: z.number(),
  comment_count: z.number(),
  share_count: z.number(),
  /** Views of the video's share pages by people (link previews not counted): GET /s/{shareid}. */
  open_count: z.number(),
  /** `liked`/`disliked` only for an authenticated caller. */
  liked: z.optional(z.boolean()),
  disliked: z.optional(z.boolean()),
});

export type VideoView = z.output<typeof videoViewSchema>;

export const exampleVideo: VideoView = {
  vid: 'v_8k2m4q',
  title: 'Booth tour: hall 3',
  description: 'Ten minutes through the new exhibitors.',
  cover_url: 'https://cdn.example.com/covers/v_8k2m4q.jpg',
  video_url: 'https://cdn.example.com/videos/v_8k2m4q.mp4',
  duration_s: 600,
  tags: ['expo', 'hall-3'],
  author: { openid: 'u_9f2c4e1a7b', nickname: 'Expo fan 7b' },
  created_at: '2026-01-05T08:30:00.000Z',
  like_count: 12,
  comment_count: 3,
  share_count: 1,
  open_count: 4,
};
