import * as z from '../../platform/zod.js';
import { myReports as listMyReports } from '../../features/report/reports.js';
import { MAX_CURSOR_LENGTH } from '../../platform/secrets/signed-cursor.js';
import { identifier, optionalText } from './params.js';
import { defineOperation } from './operation.js';
import { reportViewSchema } from '../../features/report/report-schema.js';
import { exampleReport, signedIn } from './examples.js';

const query = z.object({ openid: identifier(), cursor: optionalText(MAX_CURSOR_LENGTH) });

/** my_reports (docs/hub-api.md, "my_reports"): the caller's reports, newest first, each with its state and outcome. */
export const myReports = defineOperation({
  name: 'my_reports',
  summary: 'Your reports, newest first, 20 a page, each with its state and outcome',
  auth: 'required',
  scope: 'hub:read',
  query,
  data: z.object({ list: z.array(reportViewSchema), cursor: z.string() }),
  examples: [
    {
      summary: 'A report that led to removal',
      query: { ...signedIn },
      data: { list: [{ ...exampleReport, state: 'actioned', outcome: 'content_removed', decided_at: '2026-01-05T12:00:00.000Z' }], cursor: '' },
    },
  ],
  run: ({ openid, cursor }) => listMyReports(openid, cursor),
});
