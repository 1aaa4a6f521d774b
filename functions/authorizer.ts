import middy from '@middy/core';
import { authorizeRequest } from '../lib/features/auth/authorizer.js';
import { observability } from '../lib/platform/observability/middleware.js';

export const handler = middy(authorizeRequest).use(observability());
