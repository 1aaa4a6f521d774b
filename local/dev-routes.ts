import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { outboxMessagesFor } from './sms-outbox.js';
import type { DevRoute } from './server.js';

/**
 * `GET /_dev/sms?phone=<E.164>`: the messages the console SMS sender "sent" to a phone, newest
 * first. Local runtime only: the route is not in infra/routes.ts, so the stack never deploys it.
 */
const devSms: DevRoute = {
  method: 'GET',
  path: '/_dev/sms',
  async handle(url) {
    const raw = url.searchParams.get('phone') ?? '';
    // An unencoded `+` arrives as a space.
    const phone = parsePhoneNumberFromString(raw.trim().replace(/^(?=\d)/, '+'));
    if (!phone?.isValid()) {
      return { status: 400, body: { code: 'VALIDATION_ERROR', error: 'Invalid parameter "phone": an E.164 phone number is required, e.g. +8613800138000' } };
    }
    return { status: 200, body: { code: 0, data: { messages: outboxMessagesFor(phone.number) } } };
  },
};

export const DEV_ROUTES: DevRoute[] = [devSms];
