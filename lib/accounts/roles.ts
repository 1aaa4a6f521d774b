/** The roles an account may hold (stored on the account item; docs/protected-api.md, "Who may do what"). */
export const ROLES = ['admin', 'editor'] as const;
export type Role = (typeof ROLES)[number];
