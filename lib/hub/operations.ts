import { createPhoneAccount } from './create-phone-account.js';
import { genCode } from './gen-code.js';
import type { HubOperation } from './operation.js';

/**
 * The dispatch table of `GET /api/v1?do=<operation>`: one module per operation under lib/hub/.
 * Keys are the `do` values of seed 000 §4.
 */
export const HUB_OPERATIONS: Record<string, HubOperation> = {
  gen_code: genCode,
  create_phone_account: createPhoneAccount,
};
