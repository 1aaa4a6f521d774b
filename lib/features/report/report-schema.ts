import * as z from '../../platform/zod.js';
import { TARGET_TYPES } from './targets.js';

export const REASONS = ['spam', 'abusive', 'sexual', 'violent', 'illegal', 'privacy', 'other'] as const;
export type Reason = (typeof REASONS)[number];

/** A report as its reporter sees it (docs/hub-api.md, "report", "my_reports"): ReportView (reports.ts) is inferred from it. */
export const reportViewSchema = z.object({
  id: z.string(),
  target: z.object({ type: z.enum(TARGET_TYPES), id: z.string() }),
  reason: z.enum(REASONS),
  text: z.string(),
  state: z.enum(['open', 'actioned', 'dismissed']),
  outcome: z.union([z.enum(['content_removed', 'author_suspended', 'content_approved']), z.null()]),
  created_at: z.string(),
  updated_at: z.string(),
  decided_at: z.union([z.string(), z.null()]),
});
