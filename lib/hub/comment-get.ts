import * as z from '../zod.js';
import { commentPage } from '../comments/comment-page.js';
import { defineOperation } from './operation.js';
import { boundedInt, identifier, presentText } from './params.js';

const query = z.object({
  openid: identifier(),
  vid: identifier(),
  page: boundedInt(999_999_999).check(z.refine((p) => p >= 1, 'must be 1 or more')),
  d: presentText(64),
});

/** comment_get (docs/hub-api.md, "comment_get"): a page of a video's comments, newest first. */
export const commentGet = defineOperation({
  auth: 'required',
  scope: 'hub:read',
  query,
  run: (input) => commentPage(input),
});
