import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { ownProfile, requireAccount, setProfileField } from '../../entities/accounts/accounts.js';
import { ownProfileSchema } from '../../entities/accounts/profile-schema.js';
import { clearHeldProfileField, heldProfileOf, holdProfileField } from '../../features/filter/held-items.js';
import { checkFields } from '../../features/filter/terms.js';
import { defineOperation } from './operation.js';
import { charLength, isBlank, NOT_BLANK, textIssues, textPattern } from '../../platform/text.js';
import { identifier } from './params.js';
import { signedIn } from './examples.js';

/** Trimmed text of `min`-`max` characters without control characters (newlines included). */
function profileText(min: number, max: number) {
  const schema = z
    .string({ error: 'is required' })
    .check(
      z.trim(),
      z.refine((v) => charLength(v) >= min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`),
      z.refine((v) => min === 0 || !isBlank(v), NOT_BLANK),
      z.refine((v) => charLength(v) <= max, `must be at most ${max} characters`),
      z.superRefine(textIssues()),
    );
  return documentAs(schema, { type: 'string', ...(min > 0 && { minLength: min }), maxLength: max, pattern: textPattern() });
}

/** change_*: the profile others see; a value the filter held adds `held: true` and `pending`, the held values by field. */
const profileChange = z.object({
  profile: ownProfileSchema,
  held: z.optional(z.literal(true)),
  pending: z.optional(z.object({ nickname: z.optional(z.string()), signature: z.optional(z.string()), city: z.optional(z.string()) })),
});

/**
 * change_nickname / change_signature / change_city: sets one field, answers `data: {profile}`. The
 * filter first (docs/moderation.md, "Filter"): a `reject` term is 400 naming the field; a `hold` term
 * holds the value (others keep seeing the current one) and the answer adds `held: true` and
 * `pending`, the held values by field. A value set without a hold drops an earlier held value of the field.
 */
export function profileEditOperation<F extends 'nickname' | 'signature' | 'city'>(field: F, min: number, max: number, example: { summary: string; value: string }) {
  const query = z.object({ openid: identifier(), [field]: profileText(min, max) } as { openid: ReturnType<typeof identifier> } & Record<F, ReturnType<typeof profileText>>);
  return defineOperation({
    name: `change_${field}`,
    summary: `Change the ${field} (${min}-${max} characters)`,
    auth: 'required',
    scope: 'hub:write',
    query,
    data: profileChange,
    examples: [{ summary: example.summary, query: { ...signedIn, [field]: example.value } }],
    async run(input) {
      const values = input as { openid: string } & Record<F, string>;
      const { held } = await checkFields({ [field]: values[field] });
      if (held.length > 0) {
        // Every read before the one write: a failure answers 503 with nothing stored.
        const [account, pending] = await Promise.all([requireAccount(values.openid), heldProfileOf(values.openid)]);
        await holdProfileField(values.openid, field, values[field]);
        return { profile: ownProfile(account), held: true as const, pending: { ...pending, [field]: values[field] } };
      }
      // The earlier held value first: a failure in between leaves the field as it was (the retry sets it),
      // never a held value that an approval would later put over the new one.
      await clearHeldProfileField(values.openid, field);
      return { profile: ownProfile(await setProfileField(values.openid, field, values[field])) };
    },
  });
}
