import { httpHandler } from '../lib/transport/http/handler.js';
import { dispatchHub } from '../lib/transport/hub/dispatch.js';

export const handler = httpHandler('hub', dispatchHub);
