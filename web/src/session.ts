/**
 * The login kept between visits: the JWT and the username (the account's openid), plus a masked
 * phone number to greet the person with. Nothing else is stored; the plaintext of a new access key
 * in particular never is.
 */
export const STORAGE_KEYS = {
  token: 'expohub.token',
  username: 'expohub.username',
  displayName: 'expohub.display_name',
} as const;

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export const session = {
  token: () => read(STORAGE_KEYS.token),
  username: () => read(STORAGE_KEYS.username),
  displayName: () => read(STORAGE_KEYS.displayName) ?? read(STORAGE_KEYS.username),
  save(values: { token: string; username: string; displayName: string }): void {
    localStorage.setItem(STORAGE_KEYS.token, values.token);
    localStorage.setItem(STORAGE_KEYS.username, values.username);
    localStorage.setItem(STORAGE_KEYS.displayName, values.displayName);
  },
  clear(): void {
    try {
      for (const key of Object.values(STORAGE_KEYS)) localStorage.removeItem(key);
    } catch {
      // Storage unavailable: there is nothing to clear.
    }
  },
};

/** "+8613800138000" -> "+86138****8000": enough to recognise, not enough to leak the number. */
export function maskPhone(phone: string): string {
  const compact = phone.replace(/[\s-]/g, '');
  return compact.length >= 8 ? `${compact.slice(0, -8)}****${compact.slice(-4)}` : '****';
}
