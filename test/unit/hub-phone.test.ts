import { describe, expect, it } from 'vitest';
import { maskPhone, normalizePhone } from '../../lib/platform/sms/phone.js';

describe('normalizePhone', () => {
  it.each([
    ['+8613800138000', '+8613800138000'],
    ['13800138000', '+8613800138000'],
    ['138 0013 8000', '+8613800138000'],
    [' 8613800138000', '+8613800138000'],
    ['+1 202 555 0143', '+12025550143'],
    ['+44 20 7946 0958', '+442079460958'],
  ])('%j -> %s', (input, e164) => {
    expect(normalizePhone(input, 'phonenumber')).toBe(e164);
  });

  it.each(['', '12345', '+86 123', 'phone', '+999 1234567', '1380013800000000'])('refuses %j naming the parameter', (input) => {
    expect(() => normalizePhone(input, 'phonenumber')).toThrow(/"phonenumber"/);
  });
});

describe('maskPhone', () => {
  it.each([
    ['+8613800138000', '+86 138****8000'],
    ['+12025550143', '+1 202***0143'],
    ['+442079460958', '+44 207***0958'],
  ])('%s -> %s', (e164, masked) => {
    expect(maskPhone(e164)).toBe(masked);
  });

  it('never shows the full national number', () => {
    for (const e164 of ['+8613800138000', '+12025550143', '+442079460958', '+35312345678']) {
      const digits = maskPhone(e164).replace(/\D/g, '');
      expect(e164.replace(/\D/g, '')).not.toBe(digits);
      expect(maskPhone(e164)).toContain('*');
    }
  });
});
