import { httpHandler } from '../lib/http/handler.js';
import { dryRunPublish, publishQuerySchema, publishVideo } from '../lib/publish/publish-video.js';

export const handler = httpHandler('publishVideo', async ({ principal, body, query }) =>
  publishQuerySchema.parse(query).dry_run ? { data: await dryRunPublish(principal!, body) } : { status: 201, data: await publishVideo(principal!, body) },
);
