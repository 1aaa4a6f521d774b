import * as z from '../../platform/zod.js';
import { publicUserSchema } from '../accounts/profile-schema.js';

/** follow_user / unfollow_user's answer (docs/hub-api.md): FollowResult (follows.ts) is inferred from it. */
export const followResultSchema = z.object({ follow_user: z.string(), following: z.boolean(), follower_count: z.number() });

/** A page of get_follow / get_follower: RelationPage (follows.ts) is inferred from it. */
export const relationPageSchema = z.object({ list: z.array(publicUserSchema), total: z.number(), next_offset: z.number() });
