import * as z from '../../platform/zod.js';
import { signInWithCode } from '../../features/sign-in/sign-in.js';
import { phoneParam } from '../../platform/sms/phone.js';
import { defineOperation } from './operation.js';
import { termsVersionParam } from '../../features/policies/policies.js';
import { identifier, optionalText, presentText } from './params.js';
import { exampleTerms, termsStatusSchema } from '../../features/policies/policies-api.js';
import { OPENID, TOKEN } from './examples.js';

const query = z.object({
  openid: phoneParam('openid'),
  token: identifier(64),
  code: identifier(16),
  // The seed lists both as required: present, possibly empty.
  openid0: presentText(128),
  token0: presentText(4096),
  invite_uid: optionalText(128),
  /** The terms version the client shows (docs/moderation.md, "Terms and contact"); absent: nothing recorded. */
  terms_version: z.optional(termsVersionParam),
});

/** create_phone_account (docs/hub-api.md, "create_phone_account"): the code spent, the account signed in to or created. */
export const createPhoneAccount = defineOperation({
  name: 'create_phone_account',
  summary: 'Sign up or sign in with the received code',
  auth: 'none',
  query,
  // openid is the phone number given to gen_code, token the nonce given with it.
  data: z.object({ openid: z.string(), token: z.string(), new_account: z.boolean(), expires_at: z.string(), terms: termsStatusSchema }),
  examples: [
    {
      summary: 'First sign-in on a device, accepting the terms the app shows',
      query: { openid: '+8613800138000', token: 'device-nonce-01', code: '123456', openid0: '', token0: '', terms_version: '1' },
      data: { openid: OPENID, token: TOKEN, new_account: true, expires_at: '2026-02-04T08:30:00.000Z', terms: exampleTerms },
    },
  ],
  run: ({ openid, token, ...rest }) => signInWithCode({ phone: openid, nonce: token, ...rest }),
});
