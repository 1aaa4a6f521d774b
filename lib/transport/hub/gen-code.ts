import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { sendCode } from '../../features/sign-in/request-code.js';
import { phoneParam } from '../../platform/sms/phone.js';
import { defineOperation } from './operation.js';

const query = z.object({
  phonenumber: phoneParam('phonenumber'),
  // The document's pattern allows the whitespace the server trims first.
  nonce: documentAs(z.string({ error: 'is required' }).check(z.trim(), z.regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8-64 characters of A-Z, a-z, 0-9, _ and -')), {
    type: 'string',
    pattern: '^\\s*[A-Za-z0-9_-]{8,64}\\s*$',
  }),
});

/** gen_code (docs/hub-api.md, "gen_code"): a sign-in code sent by SMS to the phone, for this nonce. */
export const genCode = defineOperation({
  name: 'gen_code',
  summary: 'Send a 6-digit sign-in code by SMS',
  auth: 'none',
  query,
  data: z.object({ expires_in: z.number(), resend_in: z.number() }),
  examples: [{ summary: 'A Chinese mobile number', query: { phonenumber: '+8613800138000', nonce: 'device-nonce-01' }, data: { expires_in: 300, resend_in: 60 } }],
  run: ({ phonenumber, nonce }, ctx) => sendCode({ phone: phonenumber, nonce, sourceIp: ctx.sourceIp }),
});
