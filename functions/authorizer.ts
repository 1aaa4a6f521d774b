import { authorizeRequest } from '../lib/auth/authorizer.js';

export const handler = authorizeRequest;
