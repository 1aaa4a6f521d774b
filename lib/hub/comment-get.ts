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

export const commentGet = defineOperation({
  auth: 'required',
  scope: 'hub:read',
  query,
  run: (input) => commentPage(input),
});
