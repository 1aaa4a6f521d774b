/**
 * The local SMS channel: messages the console sender "sent", kept in memory for `GET /_dev/sms`.
 * No configuration import here, so the local server can load it before the environment is set.
 * Nothing writes to it when SMS_SENDER=sns (deployed).
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
