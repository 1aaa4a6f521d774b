import * as z from '../../platform/zod.js';
import { deletionData, deletionStatus, exampleDeletion } from '../../features/deletion/deletion-api.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'deletionStatus',
  description: "A deletion's progress (no credential: the id is unguessable)",
  tables: { hub: { actions: ['GetItem'] } },
  routes: [{ method: 'GET', path: '/api/v1/deletions/{id}' }],
  auth: 'none',
  // Any id: one that is not a deletion's is 404 (lib/features/deletion/deletion.ts).
  request: { path: z.object({ id: z.string() }) },
  doc: {
    tag: 'Service',
    summary: "A deletion's progress",
    description:
      "No credential: the deleted account's own are refused from the deletion on, and the id (in the answer that deleted it) is unguessable. `erasing` until everything but the retained records is gone, then `erased` with `completed_at`.",
    success: { status: 200, kind: 'json', data: deletionData },
    errors: [404],
    examples: [{ summary: 'An erasure that ended', path: { id: exampleDeletion.id }, data: { deletion: { ...exampleDeletion, state: 'erased', completed_at: '2026-01-07T10:00:41.000Z' } } }],
  },
  handler: async ({ path }) => ({ data: await deletionStatus(path.id) }),
});
export const handler = route.handler;
