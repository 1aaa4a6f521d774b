import middy from '@middy/core';
import { authorizeRequest } from '../lib/auth/authorizer.js';
import { observability } from '../lib/observability/middleware.js';

export const handler = middy(authorizeRequest).use(observability());
