import { issueToken } from '../../lib/auth/jwt.js';

/** A login JWT for a user id, signed with this test file's secret (as create_phone_account would). */
export async function tokenFor(userId: string, roles: string[] = []): Promise<string> {
  return (await issueToken(userId, roles)).token;
}
