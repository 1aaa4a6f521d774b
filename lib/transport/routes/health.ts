import * as z from '../../platform/zod.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'health',
  description: 'Liveness probe',
  tables: {},
  routes: [{ method: 'GET', path: '/api/v1/health' }],
  auth: 'none',
  doc: {
    tag: 'Service',
    summary: 'Liveness probe',
    description: 'Answers without a credential and without reading any store.',
    success: { status: 200, kind: 'json', data: z.object({ status: z.literal('ok') }) },
    errors: [],
    examples: [{ summary: 'Healthy', data: { status: 'ok' } }],
  },
  handler: async () => ({ data: { status: 'ok' } }),
});
export const handler = route.handler;
