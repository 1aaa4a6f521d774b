import * as z from '../../platform/zod.js';

/**
 * A profile and a user as the hub answers them (docs/hub-api.md, "Rules shared by every
 * operation"): the one declaration of their shapes, which the OpenAPI document describes and
 * OwnProfile and PublicUser (accounts.ts) are inferred from.
 */
export const profileFields = {
  openid: z.string(),
  nickname: z.string(),
  signature: z.string(),
  city: z.string(),
  follow_count: z.number(),
  follower_count: z.number(),
  like_count: z.number(),
  liked_count: z.number(),
  video_count: z.number(),
};

/** The caller's own profile (get_fav, change_*): the phone only masked (`+86 138****8000`). */
export const ownProfileSchema = z.object({ ...profileFields, phone: z.string() });

/** A user in any list. */
export const publicUserSchema = z.object({ openid: z.string(), nickname: z.string(), signature: z.string(), city: z.string(), followed_by_me: z.boolean(), follows_me: z.boolean() });
