import { httpHandler } from '../lib/http/handler.js';
import { publishVideo } from '../lib/publish/publish-video.js';

export const handler = httpHandler(async ({ principal, body }) => ({ status: 201, data: await publishVideo(principal!, body) }), {
  auth: 'any',
  jsonBody: true,
  scope: 'videos:write',
});
