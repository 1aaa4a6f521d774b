import { randomBytes, randomInt } from 'node:crypto';
import type { apiClient, ApiResponse } from './stack.js';

type Api = ReturnType<typeof apiClient>;

/** `GET /api/v1?do=<op>&...`: every parameter in the query string, as the mobile client sends them. */
export function hub<T = unknown>(api: Api, op: string, params: Record<string, string | number | undefined> = {}, headers?: Record<string, string>): Promise<ApiResponse<T>> {
  const query = new URLSearchParams({ do: op });
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, String(v));
  return api.get<T>(`/api/v1?${query.toString()}`, { headers });
}

/** A random, valid Chinese mobile number in E.164 (+86 138 xxxx xxxx). */
export function newPhone(): string {
  return `+86138${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

export const newNonce = () => randomBytes(12).toString('base64url');

interface DevSms {
  messages: { phone: string; code: string; text: string; sent_at: string }[];
}

/** The newest code the local SMS channel (`GET /_dev/sms`) holds for a phone. */
export async function latestCode(api: Api, phone: string): Promise<string> {
  const res = await api.get<DevSms>(`/_dev/sms?phone=${encodeURIComponent(phone)}`);
  const code = res.data?.messages[0]?.code;
  if (res.status !== 200 || !code) throw new Error(`no SMS for ${phone}: ${res.status} ${JSON.stringify(res.body)}`);
  return code;
}

export interface SignedUp {
  openid: string;
  token: string;
  new_account: boolean;
  expires_at: string;
  phone: string;
}

/**
 * gen_code -> read the code at `/_dev/sms` -> create_phone_account. Limits apply as in production:
 * one code per phone per 60 s (move `clock` forward to sign the same phone in again) and 50 codes per
 * source IP per hour per test file (every request comes from 127.0.0.1).
 */
export async function signUp(api: Api, phone = newPhone(), extra: { invite_uid?: string; openid0?: string; token0?: string } = {}): Promise<SignedUp> {
  const nonce = newNonce();
  const sent = await hub(api, 'gen_code', { phonenumber: phone, nonce });
  if (sent.status !== 200) throw new Error(`gen_code failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const code = await latestCode(api, phone);
  const res = await hub<Omit<SignedUp, 'phone'>>(api, 'create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '', ...extra });
  if (res.status !== 200) throw new Error(`create_phone_account failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.data, phone };
}
