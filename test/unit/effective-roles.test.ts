import { describe, expect, it } from 'vitest';
import { effectiveRoles } from '../../lib/entities/accounts/sessions.js';

// The request-context roles (docs/protected-api.md, "Roles decided at request time").
const issuedAt = 1_800_000_000; // epoch seconds
const held = (roles: string[], rolesRemovedAt: Record<string, number> = {}) => ({ roles, rolesRemovedAt });

describe('effectiveRoles', () => {
  it('keeps a role the token names and the account holds, never removed', () => {
    expect(effectiveRoles(['admin', 'editor'], issuedAt, held(['admin', 'editor']))).toEqual(['admin', 'editor']);
  });

  it('drops a role the account no longer holds, and one the token never named', () => {
    expect(effectiveRoles(['admin', 'editor'], issuedAt, held(['editor']))).toEqual(['editor']);
    expect(effectiveRoles([], issuedAt, held(['admin']))).toEqual([]);
    expect(effectiveRoles(['admin'], issuedAt, held([]))).toEqual([]);
  });

  it('drops a role removed at or after the token was issued, even when it was granted again', () => {
    const sameSecond = issuedAt * 1000 + 999;
    expect(effectiveRoles(['admin'], issuedAt, held(['admin'], { admin: sameSecond }))).toEqual([]);
    expect(effectiveRoles(['admin'], issuedAt, held(['admin'], { admin: issuedAt * 1000 }))).toEqual([]);
    expect(effectiveRoles(['admin'], issuedAt, held(['admin'], { admin: issuedAt * 1000 - 1 }))).toEqual(['admin']);
  });

  it("keeps a role whose removal stamp belongs to another role", () => {
    expect(effectiveRoles(['admin', 'editor'], issuedAt, held(['admin', 'editor'], { editor: issuedAt * 1000 + 5 }))).toEqual(['admin']);
  });
});
