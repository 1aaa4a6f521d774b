import { describe, expect, it, vi } from 'vitest';
import { frontDoorOf } from '../../lib/transport/http/front-door.js';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER, viewerIp } from '../../lib/transport/http/origin-verify.js';

describe('viewerIp (CloudFront-Viewer-Address)', () => {
  it('takes the address before the port', () => {
    expect(viewerIp('203.0.113.7:46532')).toBe('203.0.113.7');
    expect(viewerIp(' 198.51.100.1:443 ')).toBe('198.51.100.1');
  });

  it('takes an IPv6 address up to the last colon', () => {
    expect(viewerIp('2001:db8:85a3::8a2e:370:7334:46532')).toBe('2001:db8:85a3::8a2e:370:7334');
    expect(viewerIp('[2001:DB8::1]:443')).toBe('2001:db8::1');
  });

  it('refuses values that are not ip:port', () => {
    for (const value of [undefined, '', '203.0.113.7', '203.0.113.7:', ':443', '203.0.113.256:1', 'example.com:443', '203.0.113.7:443x', '1.2.3:80']) {
      expect(viewerIp(value), String(value)).toBeUndefined();
    }
  });
});

describe('front door', () => {
  const secret = 's3cr3t-value-of-the-origin-header';
  const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:origin-verify';

  it('admits only requests carrying the secret when one is configured', async () => {
    const read = vi.fn(async () => secret);
    const door = frontDoorOf(arn, read);
    await expect(door.admits({ [ORIGIN_VERIFY_HEADER]: secret })).resolves.toBe(true);
    await expect(door.admits({ [ORIGIN_VERIFY_HEADER]: `${secret}x` })).resolves.toBe(false);
    await expect(door.admits({ [ORIGIN_VERIFY_HEADER]: secret.slice(1) })).resolves.toBe(false);
    await expect(door.admits({})).resolves.toBe(false);
    expect(read).toHaveBeenCalledWith(arn);
  });

  it('answers 503 (retry) when Secrets Manager fails, and reads the secret again on the next request', async () => {
    const read = vi.fn<(arn: string) => Promise<unknown>>().mockRejectedValueOnce(Object.assign(new Error('boom'), { name: 'InternalServiceError' })).mockResolvedValue(secret);
    const door = frontDoorOf(arn, read);
    await expect(door.admits({ [ORIGIN_VERIFY_HEADER]: secret })).rejects.toMatchObject({ status: 503, code: 'UNAVAILABLE' });
    await expect(door.admits({ [ORIGIN_VERIFY_HEADER]: secret })).resolves.toBe(true);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('refuses everything when the secret cannot be read as text', async () => {
    const door = frontDoorOf(arn, async () => undefined);
    await expect(door.admits({ [ORIGIN_VERIFY_HEADER]: 'anything' })).resolves.toBe(false);
    await expect(frontDoorOf(arn, async () => '').admits({ [ORIGIN_VERIFY_HEADER]: '' })).resolves.toBe(false);
  });

  it("uses the viewer's address behind CloudFront, API Gateway's source IP otherwise", () => {
    const door = frontDoorOf(arn, async () => secret);
    expect(door.clientIp({ [VIEWER_ADDRESS_HEADER]: '203.0.113.7:1234' }, '130.176.0.1')).toBe('203.0.113.7');
    expect(door.clientIp({ [VIEWER_ADDRESS_HEADER]: 'garbage' }, '130.176.0.1')).toBe('130.176.0.1');
    expect(door.clientIp({}, '130.176.0.1')).toBe('130.176.0.1');
  });

  it('is off without a secret: every request is admitted and a viewer header is not trusted', async () => {
    const read = vi.fn(async () => secret);
    const door = frontDoorOf(undefined, read);
    await expect(door.admits({})).resolves.toBe(true);
    expect(door.clientIp({ [VIEWER_ADDRESS_HEADER]: '203.0.113.7:1234' }, '127.0.0.1')).toBe('127.0.0.1');
    expect(read).not.toHaveBeenCalled();
  });
});
