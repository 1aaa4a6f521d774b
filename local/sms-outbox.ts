import { clock } from '../lib/platform/clock.js';
import type { SmsSender } from '../lib/platform/sms/sender.js';

/**
 * The local SMS channel: messages the console sender "sent", kept in memory for `GET /_dev/sms`.
 * Nothing writes to it when SMS_SENDER=sns. Local runtime only: never in a deployed bundle.
 */
export interface OutboxMessage {
  phone: string;
  code: string;
  text: string;
  sent_at: string;
}

const MAX_MESSAGES = 1000;
const messages: OutboxMessage[] = [];

export function recordOutboxMessage(message: OutboxMessage): void {
  messages.push(message);
  if (messages.length > MAX_MESSAGES) messages.splice(0, messages.length - MAX_MESSAGES);
}

/** Messages to one phone (E.164), newest first. */
export function outboxMessagesFor(phone: string): OutboxMessage[] {
  return messages.filter((m) => m.phone === phone).reverse();
}

/** Local: the console is the SMS channel (the one place a code is printed), plus the `/_dev/sms` outbox. */
export const consoleSmsSender: SmsSender = {
  async send(phoneE164, text, code = '') {
    console.log(`[sms] ${phoneE164}: ${text}`);
    recordOutboxMessage({ phone: phoneE164, code, text, sent_at: clock.nowIso() });
  },
};
