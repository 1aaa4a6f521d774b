import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { FAV_MAX_PAGE, FAV_MAX_POSITION, LISTS, personalLists } from '../../features/personal-data/personal-lists.js';
import { defineOperation } from './operation.js';
import { boundedInt, deviceId, identifier, presentText } from './params.js';

const query = z.object({
  openid: identifier(),
  next_id: boundedInt(FAV_MAX_POSITION),
  fav_index: boundedInt(FAV_MAX_PAGE),
  watch_list: documentAs(presentText(16).check(z.refine((v) => v === '' || (LISTS as readonly string[]).includes(v), `must be one of ${LISTS.join(', ')} (empty = like)`)), {
    type: 'string',
    enum: ['', ...LISTS],
  }),
  view: presentText(128),
  q: presentText(100),
  d: deviceId,
});

/** get_fav (docs/hub-api.md, "get_fav"): the caller's profile and one of its lists, or another user's public profile and likes. */
export const getFav = defineOperation({
  auth: 'required',
  scope: 'hub:read',
  query,
  run: (input) => personalLists(input),
});
