/**
 * `npm run admin -- grant|revoke <phone or openid> [--role admin|editor] [--table <hub table>]`:
 * adds or removes a stored role of an account, straight in the hub table, with the deployer's AWS
 * credentials (the default credential chain) — the way to make the first administrator after a
 * deploy, no redeploy needed. The table comes from --table or HUB_TABLE (the stack output
 * HubTableName); DYNAMODB_ENDPOINT points it at DynamoDB Local. The write is the one the set-roles
 * endpoint makes (lib/features/admin/set-roles.ts), with an audit line (actor `admin-cli`).
 *
 * Exit codes: 0 done (or nothing to change), 1 AWS refused or failed, 2 bad arguments, 3 no such account.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = [
  'usage: npm run admin -- grant <phone or openid> [--role admin|editor] [--table <hub table>]',
  '       npm run admin -- revoke <phone or openid> [--role admin|editor] [--table <hub table>]',
  'The table defaults to $HUB_TABLE (the stack output HubTableName). The role defaults to admin.',
].join('\n');

export interface Output {
  log(line: string): void;
  error(line: string): void;
}

export const EXIT = { ok: 0, aws: 1, usage: 2, unknownAccount: 3 } as const;

interface Command {
  action: 'grant' | 'revoke';
  who: string;
  role: 'admin' | 'editor';
  table: string;
}

function parseCommand(argv: string[], env: NodeJS.ProcessEnv): Command | string {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { role: { type: 'string', default: 'admin' }, table: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (error) {
    return (error as Error).message;
  }
  const [action, who, ...extra] = parsed.positionals;
  if (action !== 'grant' && action !== 'revoke') return action ? `unknown command "${action}"` : 'missing command';
  if (!who?.trim()) return 'missing the phone number or openid of the account';
  if (extra.length > 0) return `unexpected argument "${extra[0]}"`;
  const role = parsed.values.role;
  if (role !== 'admin' && role !== 'editor') return `unknown role "${role}"; roles: admin, editor`;
  const table = parsed.values.table ?? env.HUB_TABLE;
  if (!table) return 'missing the hub table: pass --table <name> or set HUB_TABLE';
  return { action, who: who.trim(), role, table };
}

/** The command; returns the process exit code (EXIT). Output goes to `out`; the phone never in full. */
export async function main(argv: string[], out: Output = console, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const command = parseCommand(argv, env);
  if (typeof command === 'string') {
    out.error(`${command}\n${USAGE}`);
    return EXIT.usage;
  }
  // lib/platform/config.ts is read at its first import and wants every setting of a function: this command
  // uses the hub table only (and no signing secret).
  Object.assign(process.env, {
    HUB_TABLE: command.table,
    API_KEYS_TABLE: env.API_KEYS_TABLE ?? 'unused',
    ...(env.JWT_SECRET || env.JWT_SECRET_ARN ? {} : { JWT_SECRET_ARN: 'unused-by-the-admin-command' }),
    ...(env.DYNAMODB_ENDPOINT ? { DYNAMODB_ENDPOINT: env.DYNAMODB_ENDPOINT } : {}),
  });
  const { AppError } = await import('../lib/platform/errors.js');
  const { changeStoredRole, resolveAccountId } = await import('../lib/features/admin/set-roles.js');
  const { tableNames } = await import('../lib/platform/db/client.js');
  if (tableNames.hub !== command.table) {
    out.error(`this process already uses the hub table "${tableNames.hub}"; run the command on its own`);
    return EXIT.usage;
  }
  try {
    const openid = await resolveAccountId(command.who);
    const change = await changeStoredRole(openid, command.role, command.action, 'admin-cli');
    const roles = change.roles_after.length > 0 ? change.roles_after.join(', ') : 'none';
    if (!change.changed) out.log(`${openid}: nothing to change (roles: ${roles})`);
    else out.log(`${openid}: ${command.action === 'grant' ? 'granted' : 'revoked'} ${command.role} (roles now: ${roles})`);
    if (change.changed) {
      out.log('Takes effect at once for publishing and exports (stored roles); for the admin endpoints, from the account\'s next sign-in (a new token).');
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof AppError && error.status === 404) {
      out.error(`no such account: ${error.message}`);
      return EXIT.unknownAccount;
    }
    if (error instanceof AppError && error.status === 400) {
      out.error(`${error.message}\n${USAGE}`);
      return EXIT.usage;
    }
    const e = error as Error;
    out.error(`could not change the roles in table ${command.table}: ${e.name}: ${e.message}`);
    return EXIT.aws;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
