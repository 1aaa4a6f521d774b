import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { FAV_MAX_PAGE, FAV_MAX_POSITION, LISTS, personalLists } from '../../features/personal-data/personal-lists.js';
import { defineOperation } from './operation.js';
import { boundedInt, deviceId, identifier, presentText } from './params.js';
import { videoViewSchema } from '../../entities/catalog/video-view-schema.js';
import { ownProfileSchema, profileFields } from '../../entities/accounts/profile-schema.js';
import { signedIn } from './examples.js';

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

/** get_fav's profile: the caller's own, or with `view` another user's public one: no phone, and how the caller and they follow each other. */
const favProfile = z.union([ownProfileSchema, z.object({ ...profileFields, followed_by_me: z.boolean(), follows_me: z.boolean() })]);

/** get_fav (docs/hub-api.md, "get_fav"): the caller's profile and one of its lists, or another user's public profile and likes. */
export const getFav = defineOperation({
  name: 'get_fav',
  summary: "The caller's profile and a list (liked, history, commented)",
  auth: 'required',
  scope: 'hub:read',
  query,
  data: z.object({ profile: favProfile, list: z.array(videoViewSchema), next_id: z.number() }),
  examples: [{ summary: 'My likes, first page', query: { ...signedIn, next_id: '0', fav_index: '0', watch_list: 'like', view: '', q: '' } }],
  run: (input) => personalLists(input),
});
