import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { fileReport, MAX_REPORT_TEXT, REASONS, RECEIVED_MESSAGE } from '../../features/report/reports.js';
import { TARGET_TYPES } from '../../features/report/targets.js';
import { charLength, textIssues, textPattern } from '../../platform/text.js';
import { identifier } from './params.js';
import { defineOperation } from './operation.js';
import { reportViewSchema } from '../../features/report/report-schema.js';
import { exampleReport, signedIn } from './examples.js';

const query = z.object({
  openid: identifier(),
  target: z.enum(TARGET_TYPES, { error: `must be one of ${TARGET_TYPES.join(', ')}` }),
  id: identifier(),
  reason: z.enum(REASONS, { error: `must be one of ${REASONS.join(', ')}` }),
  text: z.pipe(
    z.optional(
      documentAs(z
        .pipe(
          z.string(),
          z.transform((v: string) => v.replace(/\r\n?/g, '\n').trim()),
        )
        .check(z.refine((v) => charLength(v) <= MAX_REPORT_TEXT, `must be at most ${MAX_REPORT_TEXT} characters`), z.superRefine(textIssues(true))), { type: 'string', maxLength: MAX_REPORT_TEXT, pattern: textPattern(true) }),
    ),
    z.transform((v: string | undefined) => v ?? ''),
  ),
});

/** report (docs/hub-api.md, "report"): one open report per reporter and target, rate limited; private to the reporter and the moderators. */
export const report = defineOperation({
  name: 'report',
  summary: 'Report a video, a comment or a user to the moderators (one open report per target; a repeat updates it)',
  auth: 'required',
  scope: 'hub:write',
  query,
  data: z.object({ report: reportViewSchema, message: z.string() }),
  examples: [
    {
      summary: 'Report a comment as spam',
      query: { ...signedIn, target: 'comment', id: 'c_01', reason: 'spam', text: 'an advert' },
      data: { report: exampleReport, message: RECEIVED_MESSAGE },
    },
  ],
  run: ({ openid, target, id, reason, text }, { person }) => fileReport({ reporter: openid, person, target: { type: target, id }, reason, text }),
});
