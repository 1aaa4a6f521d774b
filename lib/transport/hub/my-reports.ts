import * as z from '../../platform/zod.js';
import { myReports as listMyReports } from '../../features/report/reports.js';
import { MAX_CURSOR_LENGTH } from '../../platform/secrets/signed-cursor.js';
import { identifier, optionalText } from './params.js';
import { defineOperation } from './operation.js';

const query = z.object({ openid: identifier(), cursor: optionalText(MAX_CURSOR_LENGTH) });

/** my_reports (docs/hub-api.md, "my_reports"): the caller's reports, newest first, each with its state and outcome. */
export const myReports = defineOperation({
  auth: 'required',
  scope: 'hub:read',
  query,
  run: ({ openid, cursor }) => listMyReports(openid, cursor),
});
