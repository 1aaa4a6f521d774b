/**
 * `npm run token -- <user_id> [role,role]`: prints a JWT that the local server (same DATA_DIR)
 * accepts, on its last line. It uses the local secret only; nothing like it exists in the stack.
 */
import { localJwtSecret } from './local-stack.js';

const [userId, roles = ''] = process.argv.slice(2);
const dataDir = process.env.DATA_DIR ?? '.data';
if (!userId) {
  console.error('usage: npm run token -- <user_id> [roles, comma-separated]');
  process.exit(2);
}
if (dataDir === 'memory') {
  console.error('DATA_DIR=memory keeps its secret in the server process only; sign up through the hub instead.');
  process.exit(2);
}
Object.assign(process.env, { JWT_SECRET: localJwtSecret(dataDir), API_KEYS_TABLE: 'unused', HUB_TABLE: 'unused' });
const { issueToken } = await import('../lib/features/auth/jwt.js');
const issued = await issueToken(
  userId,
  roles
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean),
);
console.log(`JWT for ${userId}, valid until ${issued.expires_at}:`);
console.log(issued.token);
