import { httpHandler } from '../lib/http/handler.js';
import { dispatchHub } from '../lib/hub/dispatch.js';

export const handler = httpHandler('hub', dispatchHub);
