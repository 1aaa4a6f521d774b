import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { config, onConfigure } from '../config.js';
import { UnavailableError } from '../errors.js';
import { logger } from '../logger.js';
import { traced } from '../observability/tracer.js';
import { clock } from '../clock.js';
import { recordOutboxMessage } from './sms-outbox.js';

export interface SmsSender {
  /** Sends `text` to a phone in E.164; throws UnavailableError when the channel refuses. `code` feeds the local outbox only. */
  send(phoneE164: string, text: string, code?: string): Promise<void>;
}

/** Deployed: Amazon SNS direct publish to a phone number, as a transactional SMS. */
export class SnsSmsSender implements SmsSender {
  private readonly client = traced(new SNSClient({ region: config.AWS_REGION, maxAttempts: 2 }));

  async send(phoneE164: string, text: string): Promise<void> {
    try {
      await this.client.send(
        new PublishCommand({
          PhoneNumber: phoneE164,
          Message: text,
          MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
        }),
      );
    } catch (error) {
      // The phone number and the text stay out of the log.
      logger.warn('SMS send failed', { errorName: (error as Error)?.name });
      throw new UnavailableError('The SMS could not be sent; please try again shortly', 5, 'sms');
    }
  }
}

/** Local: the console is the SMS channel (the one place a code is printed), plus the `/_dev/sms` outbox. */
export class ConsoleSmsSender implements SmsSender {
  async send(phoneE164: string, text: string, code = ''): Promise<void> {
    console.log(`[sms] ${phoneE164}: ${text}`);
    recordOutboxMessage({ phone: phoneE164, code, text, sent_at: clock.nowIso() });
  }
}

let sender: SmsSender | undefined;
onConfigure(() => (sender = undefined));
export function smsSender(): SmsSender {
  sender ??= config.SMS_SENDER === 'sns' ? new SnsSmsSender() : new ConsoleSmsSender();
  return sender;
}

/** Tests replace the sender (e.g. one that fails) and restore it with `setSmsSender(undefined)`. */
export function setSmsSender(replacement: SmsSender | undefined): void {
  sender = replacement;
}
