import { describe, expect, it } from 'vitest';
import { networkOf } from '../../lib/platform/limits/rate-windows.js';

describe('networkOf: the network a caller is counted in (gen_code limits)', () => {
  it('counts an IPv4 address as itself', () => {
    expect(networkOf('203.0.113.7')).toBe('203.0.113.7');
    expect(networkOf(' 198.51.100.1 ')).toBe('198.51.100.1');
    expect(networkOf('203.0.113.8')).not.toBe(networkOf('203.0.113.7'));
  });

  it('counts an IPv6 address by its /64, whatever the interface part and the notation', () => {
    const net = '2001:db8:85a3:8d3::/64';
    for (const address of [
      '2001:db8:85a3:8d3::1',
      '2001:db8:85a3:8d3:1319:8a2e:370:7348',
      '2001:0DB8:85A3:08D3:ffff:ffff:ffff:ffff',
      '2001:db8:85a3:8d3:0:0:0:0',
      '[2001:db8:85a3:8d3::abcd]',
      '2001:db8:85a3:8d3::1%eth0',
    ]) {
      expect(networkOf(address), address).toBe(net);
    }
  });

  it('keeps neighbouring /64s apart, and expands a :: inside the prefix', () => {
    expect(networkOf('2001:db8:85a3:8d4::1')).toBe('2001:db8:85a3:8d4::/64');
    expect(networkOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(networkOf('2001:db8::1:2:3:4')).toBe('2001:db8:0:0::/64');
    expect(networkOf('2001:db8::2:1:2:3:4')).toBe('2001:db8:0:2::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, in either notation', () => {
    expect(networkOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(networkOf('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(networkOf('0:0:0:0:0:ffff:203.0.113.7')).toBe('203.0.113.7');
    // Not mapped: another prefix that embeds an IPv4 address (NAT64) is an IPv6 network.
    expect(networkOf('64:ff9b::203.0.113.7')).toBe('64:ff9b:0:0::/64');
  });

  it('leaves what is not an address as given (lower case, trimmed)', () => {
    expect(networkOf('unknown')).toBe('unknown');
    expect(networkOf(' 0.0.0.0 ')).toBe('0.0.0.0');
    expect(networkOf('203.0.113.256')).toBe('203.0.113.256');
  });
});
