import * as z from '../zod.js';
import { ownProfile, setProfileField } from '../accounts/accounts.js';
import { defineOperation } from './operation.js';
import { charLength, textIssues } from '../text.js';
import { identifier } from './params.js';

/** Trimmed text of `min`-`max` characters without control characters (newlines included). */
function profileText(min: number, max: number) {
  return z
    .string({ error: 'is required' })
    .check(
      z.trim(),
      z.refine((v) => charLength(v) >= min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`),
      z.refine((v) => charLength(v) <= max, `must be at most ${max} characters`),
      z.superRefine(textIssues()),
    );
}

/** change_nickname / change_signature / change_city: sets one field, answers `data: {profile}`. */
export function profileEditOperation<F extends 'nickname' | 'signature' | 'city'>(field: F, min: number, max: number) {
  const query = z.object({ openid: identifier(), [field]: profileText(min, max) } as { openid: ReturnType<typeof identifier> } & Record<F, ReturnType<typeof profileText>>);
  return defineOperation({
    auth: 'required',
    scope: 'hub:write',
    query,
    async run(input) {
      const values = input as { openid: string } & Record<F, string>;
      return { profile: ownProfile(await setProfileField(values.openid, field, values[field])) };
    },
  });
}
