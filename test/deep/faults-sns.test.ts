import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// The real SNS sender, configured as deployed (lib/platform/config.ts is read once, at the first import):
// its SNSClient reaches the stand-in through AWS_ENDPOINT_URL_SNS, set once the stand-in listens.
// One send per phone per hour, so that a failed send counted against the caller would show at once.

import { clock } from '../../lib/platform/clock.js';
import { startSnsStandIn, type SnsPublish, type StandIn } from '../support/aws-stand-ins.js';
import { expectUnavailable } from '../support/fault-sweep.js';
import { HOUR_MS, pinInsideWindow } from '../support/clock-windows.js';
import { clearFaults, failAt } from '../support/faults.js';
import { getHubItem, hub, newNonce, newPhone } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { smsKeys } from '../../lib/platform/sms/codes.js';

let sns: StandIn<SnsPublish>;
beforeAll(async () => {
  sns = await startSnsStandIn();
  process.env.AWS_ENDPOINT_URL_SNS = sns.url;
});
afterAll(async () => {
  await sns?.close();
  delete process.env.AWS_ENDPOINT_URL_SNS;
});
const api = useTestStack({ env: { SMS_SENDER: 'sns', RATE_SMS_PHONE_HOURLY: '1', AWS_ACCESS_KEY_ID: 'AKIDLOCALSTANDIN', AWS_SECRET_ACCESS_KEY: 'local-stand-in-secret' } });
let hoursAhead = 0;
// Each test starts 5 minutes into a whole hour of its own, so the one-per-hour window under test
// cannot roll over between a send and the refusal that follows it (it did once, when CI reached
// this file at 15:59).
beforeEach(() => pinInsideWindow(HOUR_MS, 5 * 60_000, ++hoursAhead));
afterEach(async () => {
  clearFaults();
  await sns.setMode('ok');
});

const genCode = (phone: string, nonce = newNonce()) => hub<{ expires_in: number; resend_in: number }>(api, 'gen_code', { phonenumber: phone, nonce });
const sentTo = (phone: string) => sns.received.filter((r) => r.phoneNumber === phone);

describe('gen_code through Amazon SNS (a local stand-in of its query API)', () => {
  it('publishes the code to the phone as a transactional SMS, and the code it carries signs in', async () => {
    const phone = newPhone();
    const nonce = newNonce();
    expect((await genCode(phone, nonce)).status).toBe(200);

    const [sent, ...more] = sentTo(phone);
    expect(more).toEqual([]);
    expect(sent).toEqual({
      action: 'Publish',
      phoneNumber: phone,
      message: expect.stringMatching(/^Your expohub code is \d{6}\. It is valid for 5 minutes\.$/),
      attributes: { 'AWS.SNS.SMS.SMSType': 'Transactional' },
      signedFor: 'sns',
    });
    // Deployed, nothing reaches the local outbox: the SMS is the only copy of the code.
    expect((await api.get<{ messages: unknown[] }>(`/_dev/sms?phone=${encodeURIComponent(phone)}`)).data.messages).toEqual([]);

    const code = /\d{6}/.exec(sent!.message!)![0];
    const signedIn = await hub(api, 'create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.data).toMatchObject({ new_account: true });
  });

  it.each([
    ['internal-error', 'a 500 InternalError'],
    ['throttled', 'a 429 Throttled'],
    ['down', 'no answer (connection refused)'],
  ] as const)('answers 503 with Retry-After when SNS gives %s (%s), and the attempt does not count against the phone', async (mode, _what) => {
    const phone = newPhone();
    const nonce = newNonce();
    await sns.setMode(mode);
    const failed = await genCode(phone, nonce);
    expectUnavailable(failed, `SNS ${mode}`);
    expect(failed.headers.get('retry-after')).toBe('5');
    // The SDK tried twice (maxAttempts 2) before giving up; nothing was left behind.
    if (mode !== 'down') expect(sentTo(phone)).toHaveLength(2);
    expect(await getHubItem(smsKeys.smsCode(phone, nonce))).toBeUndefined();
    expect(await getHubItem(smsKeys.smsRequester(phone, '127.0.0.1'))).toBeUndefined();

    await sns.setMode('ok');
    // Neither the resend interval nor the one-per-hour window holds the failed attempt against it.
    expect((await genCode(phone)).status).toBe(200);
    clock.advance(61_000);
    const limited = await genCode(phone);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('this hour') });
  });

  it('gives the send back even when DynamoDB fails while undoing it', async () => {
    for (const [n, kind, command] of [
      [3, 'throughput', 'DeleteItemCommand'],
      [4, 'timeout', 'DeleteItemCommand'],
      [5, 'timeout', 'UpdateItemCommand'],
    ] as const) {
      const phone = newPhone();
      await sns.setMode('internal-error');
      // 1: the phone's account link (which daily budget); 2: the transaction storing the code and
      // the network's send time and counting the send; then the undo: 3 deletes the code, 4 the send
      // time, 5-10 give the send back to each window. The undo retries what fails.
      const fault = failAt(n, kind);
      expectUnavailable(await genCode(phone), `SNS down, ${kind} at request ${n}`);
      expect(fault.fired).toBe(command);
      clearFaults();
      await sns.setMode('ok');
      expect((await genCode(phone)).status, `${kind} at request ${n}: the next code is sent`).toBe(200);
    }
  });
});
