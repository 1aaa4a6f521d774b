// Imported by setup-env.ts, which runs before lib/platform/config.ts is loaded: keep this file free of lib/ imports.

/** The admin phone of every test file, as `npm start`'s default ADMIN_PHONES. */
export const ADMIN_PHONE = '+8613800138000';
