import { describe, expect, it } from 'vitest';
import { actorLabel } from '../../web/src/audit-view.js';

/** The Activity section's "By" column (docs/web.md, "What it does"): words, never an internal id. */
describe('actorLabel', () => {
  it('says "you" for the reader, "a sign-in" for the API\'s sign-in, "an administrator" for anyone else', () => {
    expect(actorLabel('u_sXoOBKq1', 'u_sXoOBKq1')).toBe('you');
    expect(actorLabel('sign-in', 'u_sXoOBKq1')).toBe('a sign-in');
    for (const other of ['administrator', 'admin-cli', 'u_9f2c4e1a7b']) expect(actorLabel(other, 'u_sXoOBKq1'), other).toBe('an administrator');
    // Without a stored username nobody is "you", and still no id is shown.
    expect(actorLabel('u_sXoOBKq1', null)).toBe('an administrator');
  });
});
