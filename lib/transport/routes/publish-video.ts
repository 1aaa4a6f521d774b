import { httpHandler } from '../lib/transport/http/handler.js';
import { dryRunPublish, publishQuerySchema, publishVideo } from '../lib/features/publish/publish-video.js';

export const handler = httpHandler('publishVideo', async ({ principal, body, query }) =>
  publishQuerySchema.parse(query).dry_run ? { data: await dryRunPublish(principal!, body) } : { status: 201, data: await publishVideo(principal!, body) },
);
