import * as z from '../../platform/zod.js';

/** What a dry run of POST /api/v1/videos answers (lib/transport/routes/publish-video.ts). */
export const dryRunSchema = z.object({ dry_run: z.literal(true), action: z.enum(['create', 'update']), vid: z.union([z.string(), z.null()]) });
