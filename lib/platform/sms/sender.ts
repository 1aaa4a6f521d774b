import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { config, onConfigure } from '../config.js';
import { UnavailableError } from '../errors.js';
import { logger } from '../logger.js';

export interface SmsSender {
  /** Sends `text` to a phone in E.164; throws UnavailableError when the channel refuses. `code` feeds the local outbox only. */
  send(phoneE164: string, text: string, code?: string): Promise<void>;
}

/** Deployed: Amazon SNS direct publish to a phone number, as a transactional SMS. */
export class SnsSmsSender implements SmsSender {
  private readonly client = new SNSClient({ region: config.SMS_REGION ?? config.AWS_REGION, maxAttempts: 2 });

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

/**
 * SMS_SENDER=console: the channel the local runtime installs (local/sms-outbox.ts: the
 * console and the `/_dev/sms` outbox). Dev-only code stays out of the deployed bundles.
 */
let consoleSender: SmsSender | undefined;
export function installConsoleSmsSender(local: SmsSender): void {
  consoleSender = local;
}

let sender: SmsSender | undefined;
let replaced: SmsSender | undefined;
onConfigure(() => (sender = undefined));
export function smsSender(): SmsSender {
  if (replaced) return replaced;
  if (config.SMS_SENDER === 'sns') return (sender ??= new SnsSmsSender());
  if (!consoleSender) throw new Error('SMS_SENDER=console is the local runtime: it installs its sender (local/sms-outbox.ts)');
  return consoleSender;
}

/** Tests replace the sender (e.g. one that fails) and restore the configured one with `setSmsSender(undefined)`. */
export function setSmsSender(replacement: SmsSender | undefined): void {
  replaced = replacement;
}
