import { describe, expect, it } from 'vitest';

// Callers at chosen addresses: the front door as deployed (test/support/viewers.ts). Every SMS limit
// keeps its default.

import { clock } from '../../lib/platform/clock.js';
import { config } from '../../lib/platform/config.js';
import { hub, newNonce, newPhone } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { useViewerAddresses, VIEWER_ENV } from '../support/viewers.js';

/**
 * A stranger who knows a phone number against its owner (docs/hub-api.md, "gen_code"): requests for
 * codes from other devices and networks never replace or end the code the owner is typing, never
 * reset the owner's resend wait, and cannot spend the owner's allowance; the SMS one phone receives
 * stay bounded whoever asks. Each test uses its own phone and networks.
 */
const from = useViewerAddresses();
const api = useTestStack({ http: false, env: VIEWER_ENV });

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface Sms {
  phone: string;
  code: string;
  text: string;
  sent_at: string;
}

const genCode = (phone: string, nonce: string, ip: string) => hub<{ expires_in: number; resend_in: number }>(api, 'gen_code', { phonenumber: phone, nonce }, from(ip));
const signIn = (phone: string, nonce: string, code: string, ip: string) =>
  hub<{ openid: string; new_account: boolean }>(api, 'create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '' }, from(ip));
/** What the phone received (the local SMS channel), newest first. */
const received = async (phone: string) => (await api.get<{ messages: Sms[] }>(`/_dev/sms?phone=${encodeURIComponent(phone)}`)).data.messages;
const newestCode = async (phone: string) => (await received(phone))[0]!.code;
const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');
const retryAfterMs = (res: { headers: Headers }) => Number(res.headers.get('retry-after')) * 1000;

/** Moves the clock to `offsetMs` into a later UTC day no earlier test touched (reset after each test). */
let daysAhead = 0;
function startNextUtcDay(offsetMs = 1_000): number {
  daysAhead += 2;
  const day = (Math.floor(Date.now() / DAY_MS) + daysAhead) * DAY_MS;
  clock.set(day + offsetMs);
  return day;
}

describe('gen_code: one device cannot undo another', () => {
  it("a code requested from another device neither replaces nor ends the code the owner is typing", async () => {
    startNextUtcDay();
    const phone = newPhone();
    const owner = { ip: '192.0.2.10', nonce: newNonce() };
    expect((await genCode(phone, owner.nonce, owner.ip)).status).toBe(200);
    const ownerCode = await newestCode(phone);

    // The owner is still typing a minute later (the code is valid 5 minutes); a stranger asks again.
    clock.advance(61_000);
    const stranger = { ip: '203.0.113.10', nonce: newNonce() };
    expect((await genCode(phone, stranger.nonce, stranger.ip)).status).toBe(200);
    const strangerCode = await newestCode(phone);
    // Guessing at the code the stranger asked for ends that code only.
    for (let i = 1; i <= 5; i++) expect((await signIn(phone, stranger.nonce, wrongFor(strangerCode), stranger.ip)).status, `wrong try ${i}`).toBe(401);
    expect((await signIn(phone, stranger.nonce, strangerCode, stranger.ip)).status).toBe(429);

    const signedIn = await signIn(phone, owner.nonce, ownerCode, owner.ip);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.data).toMatchObject({ new_account: true });
  });

  it("the resend wait is the requester's own: a stranger neither waits for it nor resets it", async () => {
    startNextUtcDay();
    const phone = newPhone();
    const owner = '192.0.2.11';
    expect((await genCode(phone, newNonce(), owner)).status).toBe(200);
    clock.advance(1_000);
    // Another network is another requester: served at once.
    expect((await genCode(phone, newNonce(), '203.0.113.11')).status).toBe(200);
    clock.advance(29_000);
    // The owner's own resend, with a fresh nonce: 30 s left of its own wait, whatever the stranger did.
    const tooSoon = await genCode(phone, newNonce(), owner);
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body).toMatchObject({ code: 'RATE_LIMITED', error: 'A code was sent to this phone number less than 60 seconds ago' });
    expect(tooSoon.headers.get('retry-after')).toBe('30');
    // The stranger asking again meanwhile (its own wait is not over either) moves nothing.
    expect((await genCode(phone, newNonce(), '203.0.113.11')).status).toBe(429);
    clock.advance(30_000);
    expect((await genCode(phone, newNonce(), owner)).status).toBe(200);
  });

  it("signing in leaves the phone's other pending codes to expire: a second device signs in with its own", async () => {
    startNextUtcDay();
    const phone = newPhone();
    const [tablet, laptop] = [
      { ip: '192.0.2.12', nonce: newNonce() },
      { ip: '2001:db8:12:1::12', nonce: newNonce() },
    ];
    expect((await genCode(phone, tablet.nonce, tablet.ip)).status).toBe(200);
    const tabletCode = await newestCode(phone);
    expect((await genCode(phone, laptop.nonce, laptop.ip)).status).toBe(200);
    const laptopCode = await newestCode(phone);

    const first = await signIn(phone, tablet.nonce, tabletCode, tablet.ip);
    expect(first.status).toBe(200);
    const second = await signIn(phone, laptop.nonce, laptopCode, laptop.ip);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.data).toEqual(expect.objectContaining({ openid: first.data.openid, new_account: false }));
    // Each code still works once, and only with its own nonce.
    expect((await signIn(phone, tablet.nonce, tabletCode, tablet.ip)).status).toBe(401);
    expect((await signIn(phone, laptop.nonce, tabletCode, laptop.ip)).status).toBe(401);
  });
});

describe('gen_code: what one phone receives, whoever asks', () => {
  it(`at most ${config.RATE_SMS_PHONE_HOURLY} codes an hour and ${config.RATE_SMS_PHONE_DAILY} a day reach one phone, from any number of networks`, async () => {
    const day = startNextUtcDay();
    const phone = newPhone();
    // More networks than the hour allows sends, each asking once an hour (within its own allowance).
    const networks = Array.from({ length: config.RATE_SMS_PHONE_HOURLY + 2 }, (_, i) => `198.51.100.${120 + i}`);
    let total = 0;
    for (let hour = 0; total < config.RATE_SMS_PHONE_DAILY; hour++) {
      const allowed = Math.min(config.RATE_SMS_PHONE_HOURLY, config.RATE_SMS_PHONE_DAILY - total);
      // The hour that fills the day: then the day's wait is the longer one.
      const dayFull = total + allowed === config.RATE_SMS_PHONE_DAILY;
      const statuses: number[] = [];
      for (const ip of networks) {
        const res = await genCode(phone, newNonce(), ip);
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.body).toMatchObject({ code: 'RATE_LIMITED', error: `Too many codes requested for this phone number ${dayFull ? 'today' : 'this hour'}` });
          expect(retryAfterMs(res)).toBe((dayFull ? day + DAY_MS : day + (hour + 1) * HOUR_MS) - clock.now());
        }
      }
      expect(statuses, `hour ${hour}`).toEqual(networks.map((_, i) => (i < allowed ? 200 : 429)));
      total += allowed;
      clock.set(day + (hour + 1) * HOUR_MS + 1_000);
    }
    const today = await genCode(phone, newNonce(), '198.51.100.199');
    expect(today.status).toBe(429);
    expect(today.body).toMatchObject({ code: 'RATE_LIMITED', error: 'Too many codes requested for this phone number today' });
    expect(retryAfterMs(today)).toBe(day + DAY_MS - clock.now());
    expect(await received(phone)).toHaveLength(config.RATE_SMS_PHONE_DAILY);
  });

  it('an attacker at the highest rate the limits allow, from three networks, cannot keep the owner from signing in within 2 minutes, and the SMS to the phone stay bounded', async () => {
    const day = startNextUtcDay();
    const phone = newPhone();
    const owner = '192.0.2.20';
    // Two IPv4 addresses, and an IPv6 network taking a fresh address of its /64 for every request.
    let fresh = 0;
    const attackers = [() => '203.0.113.20', () => '198.51.100.20', () => `2001:db8:bad:20:${(++fresh).toString(16)}::1`];
    const attackerSent = attackers.map(() => 0);
    const mayTryAt = attackers.map(() => 0);

    /** Every attacker network asks for a code again as soon as its last refusal's Retry-After allows, until `until`. */
    async function attackUntil(until: number): Promise<void> {
      for (;;) {
        for (const [i, address] of attackers.entries()) {
          while (mayTryAt[i]! <= clock.now()) {
            const res = await genCode(phone, newNonce(), address());
            if (res.status === 200) {
              attackerSent[i]!++;
              continue;
            }
            expect(res.status, JSON.stringify(res.body)).toBe(429);
            mayTryAt[i] = clock.now() + retryAfterMs(res);
          }
        }
        const next = Math.min(...mayTryAt);
        if (next > until) break;
        clock.set(next);
      }
      if (until > clock.now()) clock.set(until);
    }

    /** The owner asks for a code until one is sent, waiting out any refusal; the attack goes on meanwhile. Returns the code. */
    async function ownerGetsCode(nonce: string, start: number): Promise<string> {
      for (;;) {
        await attackUntil(clock.now());
        const sent = await genCode(phone, nonce, owner);
        if (sent.status === 200) return newestCode(phone);
        expect(sent.status, JSON.stringify(sent.body)).toBe(429);
        expect(clock.now() + retryAfterMs(sent) - start, `the owner is told to wait: ${JSON.stringify(sent.body)}`).toBeLessThanOrEqual(120_000);
        await attackUntil(clock.now() + retryAfterMs(sent));
      }
    }

    /**
     * The owner gets a code and types it half a minute later; with `mistypes`, the owner first gets
     * the code wrong 5 times (it ends) and asks for another: two codes in the hour.
     */
    async function ownerSignsIn(mistypes = false): Promise<{ openid: string; new_account: boolean }> {
      const start = clock.now();
      let nonce = newNonce();
      let code = await ownerGetsCode(nonce, start);
      if (mistypes) {
        await attackUntil(clock.now() + 10_000);
        for (let i = 0; i < 5; i++) expect((await signIn(phone, nonce, wrongFor(code), owner)).status).toBe(401);
        nonce = newNonce();
        code = await ownerGetsCode(nonce, start);
      }
      await attackUntil(clock.now() + 30_000);
      const res = await signIn(phone, nonce, code, owner);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(clock.now() - start).toBeLessThanOrEqual(120_000);
      return res.data;
    }

    // The attack runs all day; the owner signs in while it is at its fastest (mistyping the first
    // code: a second code that hour), once the attacker's networks have spent their allowance, and
    // late in the day.
    await attackUntil(day + 10 * 60_000);
    const first = await ownerSignsIn(true);
    expect(first.new_account).toBe(true);
    await attackUntil(day + 3 * HOUR_MS);
    expect((await ownerSignsIn()).openid).toBe(first.openid);
    await attackUntil(day + 23 * HOUR_MS);
    expect((await ownerSignsIn()).openid).toBe(first.openid);

    // The attacker got what its networks may have, each network counted once (the IPv6 one by its /64).
    expect(attackerSent).toEqual(attackers.map(() => config.RATE_SMS_PHONE_NETWORK_DAILY));
    const messages = await received(phone);
    expect(messages).toHaveLength(attackers.length * config.RATE_SMS_PHONE_NETWORK_DAILY + 4);
    const perHour = new Map<number, number>();
    for (const m of messages) {
      const hour = Math.floor(Date.parse(m.sent_at) / HOUR_MS);
      perHour.set(hour, (perHour.get(hour) ?? 0) + 1);
    }
    expect(Math.max(...perHour.values())).toBeLessThanOrEqual(config.RATE_SMS_PHONE_HOURLY);
    expect(messages.length).toBeLessThanOrEqual(config.RATE_SMS_PHONE_DAILY);
  });
});

describe('gen_code: callers counted by network', () => {
  it('two IPv6 addresses of one /64 share the per-IP window; another /64 has its own', async () => {
    clock.set((Math.floor(Date.now() / HOUR_MS) + 5) * HOUR_MS + 1_000);
    const inPrefix = (i: number) => `2001:db8:64:1:${i.toString(16)}:0:0:${(i * 7).toString(16)}`;
    const sent = await Promise.all(Array.from({ length: config.RATE_SMS_IP_HOURLY }, (_, i) => genCode(newPhone(), newNonce(), inPrefix(i + 1))));
    expect(sent.map((r) => r.status)).toEqual(sent.map(() => 200));

    const refused = await genCode(newPhone(), newNonce(), '2001:db8:64:1:ffff:ffff:ffff:fffe');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: 'Too many codes requested from this network this hour' });
    expect((await genCode(newPhone(), newNonce(), '2001:db8:64:2::1')).status).toBe(200);
  });

  it('an IPv4-mapped IPv6 address is its IPv4 address: one network', async () => {
    startNextUtcDay();
    const phone = newPhone();
    for (let i = 0; i < config.RATE_SMS_PHONE_NETWORK_HOURLY; i++) {
      expect((await genCode(phone, newNonce(), '192.0.2.64')).status).toBe(200);
      clock.advance(61_000);
    }
    const mapped = await genCode(phone, newNonce(), '::ffff:192.0.2.64');
    expect(mapped.status).toBe(429);
    expect(mapped.body).toMatchObject({ error: 'Too many codes requested for this phone number from this network this hour' });
    expect((await genCode(phone, newNonce(), '::ffff:192.0.2.65')).status).toBe(200);
  });
});
