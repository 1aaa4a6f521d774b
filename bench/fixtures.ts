import { randomBytes, randomInt } from 'node:crypto';
import { issueToken } from '../lib/features/auth/jwt.js';
import { createKey } from '../lib/features/keys/key-service.js';
import { bearer, hubRequest, invoke, type BenchRequest } from './invoke.js';

export interface Account {
  openid: string;
  token: string;
  phone: string;
}

let phoneSerial = 0;
const phoneBase = randomInt(0, 50_000_000);
/** A fresh valid Chinese mobile number per call (+86 139 xxxx xxxx), unique within the run. */
export function newPhone(): string {
  phoneSerial += 1;
  return `+86139${String(phoneBase + phoneSerial).padStart(8, '0')}`;
}

export const newNonce = () => randomBytes(12).toString('base64url');

/** Any request the fixtures send must succeed: a fixture that fails would make every figure wrong. */
export async function mustSucceed(request: BenchRequest, expected = 200): Promise<Record<string, unknown>> {
  const res = await invoke(request);
  if (res.status !== expected) throw new Error(`${request.method} ${request.path.slice(0, 80)} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  return (res.body.data ?? {}) as Record<string, unknown>;
}

let outbox: ((phone: string) => { code: string }[]) | undefined;
/**
 * The local SMS channel without the console line per message (loops sign up hundreds of accounts):
 * the same outbox `/_dev/sms` reads, filled by a sender that only records.
 */
export async function quietSms(): Promise<(phone: string) => { code: string }[]> {
  if (!outbox) {
    const { setSmsSender } = await import('../lib/platform/sms/sender.js');
    const { recordOutboxMessage, outboxMessagesFor } = await import('../local/sms-outbox.js');
    setSmsSender({
      send: async (phone, text, code = '') => recordOutboxMessage({ phone, code, text, sent_at: new Date().toISOString() }),
    });
    outbox = outboxMessagesFor;
  }
  return outbox;
}

/** gen_code for a phone; returns the nonce and the code the SMS carried. */
export async function requestCode(phone: string, sourceIp?: string): Promise<{ nonce: string; code: string }> {
  const messages = await quietSms();
  const nonce = newNonce();
  await mustSucceed({ ...hubRequest('gen_code', { phonenumber: phone, nonce }), sourceIp });
  const code = messages(phone)[0]?.code;
  if (!code) throw new Error(`no SMS code recorded for ${phone}`);
  return { nonce, code };
}

/** A new account through the real sign-up (gen_code, then create_phone_account). */
export async function signUp(phone = newPhone()): Promise<Account> {
  const { nonce, code } = await requestCode(phone);
  const data = await mustSucceed(hubRequest('create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '' }));
  return { openid: String(data.openid), token: String(data.token), phone };
}

export async function signUpMany(n: number): Promise<Account[]> {
  const out: Account[] = [];
  for (let i = 0; i < n; i++) out.push(await signUp());
  return out;
}

/** A login JWT for a user id, signed with the bench's secret (what create_phone_account issues). */
export async function jwtFor(userId: string, roles: string[] = []): Promise<string> {
  return (await issueToken(userId, roles)).token;
}

export async function accessKeyFor(userId: string, scopes: string[] = []): Promise<{ api_key: string; id: number }> {
  const { api_key, key } = await createKey(userId, { name: `bench-${randomBytes(3).toString('hex')}`, scopes });
  return { api_key, id: key.id };
}

export { bearer };
