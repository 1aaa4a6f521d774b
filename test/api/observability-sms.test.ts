import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// The real SNS sender against the local stand-in of SNS (as test/deep/faults-sns.test.ts), with the
// logs at INFO and the EMF metrics on: what an operator sees of gen_code.

import { startSnsStandIn, type SnsPublish, type StandIn } from '../support/aws-stand-ins.js';
import { hub, newNonce, newPhone } from '../support/hub-fixtures.js';
import { captureOutput, emfLines, logLines, type Capture, type Line } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';

let sns: StandIn<SnsPublish>;
let output: Capture;
beforeAll(async () => {
  sns = await startSnsStandIn();
  process.env.AWS_ENDPOINT_URL_SNS = sns.url;
  output = captureOutput();
});
afterAll(async () => {
  output?.restore();
  await sns?.close();
  delete process.env.AWS_ENDPOINT_URL_SNS;
});
const api = useTestStack({ http: false,
  env: { SMS_SENDER: 'sns', AWS_ACCESS_KEY_ID: 'AKIDLOCALSTANDIN', AWS_SECRET_ACCESS_KEY: 'local-stand-in-secret', LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' },
});
afterEach(async () => sns.setMode('ok'));

/** gen_code for `phone`, with the lines written while it ran. */
async function genCode(phone: string): Promise<{ status: number; requestId: string | null; lines: Line[] }> {
  const from = output.lines.length;
  const res = await hub(api, 'gen_code', { phonenumber: phone, nonce: newNonce() });
  return { status: res.status, requestId: res.headers.get('x-request-id'), lines: output.lines.slice(from) };
}

describe('gen_code metrics and logs through SNS', () => {
  it('a code handed to SNS counts SmsSent, and writes no log line', async () => {
    const sent = await genCode(newPhone());
    expect(sent.status).toBe(200);
    expect(emfLines(sent.lines, 'SmsSent')).toEqual([expect.objectContaining({ SmsSent: 1, service: 'expohub' })]);
    expect(emfLines(sent.lines, 'SmsFailed')).toEqual([]);
    expect(logLines(sent.lines)).toEqual([]);
  });

  it('SNS failing: SmsFailed, one 503 counted with cause sms, and a warning with the request id but not the phone', async () => {
    const phone = newPhone();
    await sns.setMode('internal-error');
    const failed = await genCode(phone);
    expect(failed.status).toBe(503);
    expect(emfLines(failed.lines, 'SmsFailed')).toEqual([expect.objectContaining({ SmsFailed: 1 })]);
    expect(emfLines(failed.lines, 'SmsSent')).toEqual([]);
    expect(emfLines(failed.lines, 'Unavailable')).toEqual([expect.objectContaining({ cause: 'sms', Unavailable: 1 })]);
    const logged = logLines(failed.lines);
    expect(logged.map((l) => [l.level, l.message])).toEqual([
      ['WARN', 'SMS send failed'],
      ['WARN', 'dependency unavailable'],
    ]);
    for (const line of logged) expect(line).toMatchObject({ correlation_id: failed.requestId, operation: 'gen_code', function_name: 'local-hub' });
    const raw = JSON.stringify(failed.lines);
    expect(raw).not.toContain(phone);
    expect(raw).not.toContain(phone.slice(3));
  });

  it('a second code within the resend interval counts SmsRateLimited, and no send', async () => {
    const phone = newPhone();
    expect((await genCode(phone)).status).toBe(200);
    const limited = await genCode(phone);
    expect(limited.status).toBe(429);
    expect(emfLines(limited.lines, 'SmsRateLimited')).toEqual([expect.objectContaining({ SmsRateLimited: 1 })]);
    expect(emfLines(limited.lines, 'SmsSent')).toEqual([]);
  });
});
