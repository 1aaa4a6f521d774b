/** The roles an account may hold (stored on the account item; docs/protected-api.md, "Who may do what"). */
export const ROLES = ['admin', 'editor', 'moderator'] as const;
export type Role = (typeof ROLES)[number];

/** The request-context roles that may moderate (docs/moderation.md, "Moderation"): a moderator, or an administrator. */
export const MODERATING_ROLES: readonly Role[] = ['moderator', 'admin'];

/** The stored roles that may publish videos (docs/protected-api.md, "Who may do what"), read from the account item when it matters. */
export const PUBLISHING_ROLES: readonly Role[] = ['editor', 'admin'];
