import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { getHubItem, newPhone, signUp } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { runTsScript, type CliRun } from '../support/cli-run.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

// `npm run admin`, run as the deployer runs it: a child process with its own AWS SDK clients, here
// pointed at this file's DynamoDB Local and hub table (DYNAMODB_ENDPOINT, HUB_TABLE).
const api = useTestStack();
const ADMIN_TS = fileURLToPath(new URL('../../scripts/admin.ts', import.meta.url));

function admin(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const base = { ...process.env, LOG_LEVEL: 'INFO', POWERTOOLS_LOG_LEVEL: 'INFO', JWT_SECRET: undefined, API_KEYS_TABLE: undefined };
  return runTsScript(ADMIN_TS, args, { ...base, ...env });
}

const storedRoles = async (openid: string) => (await getHubItem<{ roles: string[] }>(accountKeys.account(openid)))?.roles;
/** An admin endpoint: authorized by the token's roles claim (the request-context roles). */
const setRolesWith = (token: string, openid: string, roles: string[]) => api.post(`/api/v1/admin/users/${openid}/roles`, { token, body: { roles } });
const auditLines = (out: string) =>
  out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { message?: string; audit?: Record<string, unknown> })
    .filter((line) => line.message === 'audit');

describe('npm run admin (the first administrator, without a redeploy)', () => {
  it('grants admin by phone number: stored at once, in the token from the next sign-in, logged, idempotent', async () => {
    const user = await signUp(api);
    expect((await setRolesWith(user.token, user.openid, ['admin'])).status).toBe(403);

    const granted = await admin(['grant', user.phone]);
    expect(granted.code).toBe(0);
    expect(granted.stdout).toContain(`${user.openid}: granted admin (roles now: admin)`);
    expect(await storedRoles(user.openid)).toEqual(['admin']);
    expect(auditLines(granted.stdout).map((l) => l.audit)).toEqual([
      { action: 'role.changed', actor: 'admin-cli', via: 'admin-cli', subject: user.openid, roles_before: [], roles_after: ['admin'] },
    ]);
    // The phone number never appears in full in the command's output.
    expect(granted.stdout + granted.stderr).not.toContain(user.phone.slice(3));

    // The token issued before keeps the roles it was issued with; the next sign-in carries admin.
    expect((await setRolesWith(user.token, user.openid, ['admin'])).status).toBe(403);
    clock.advance(61_000);
    const again = await signUp(api, user.phone);
    expect(again).toMatchObject({ openid: user.openid, new_account: false });
    expect(decodeJwt(again.token).roles).toEqual(['admin']);
    expect((await setRolesWith(again.token, user.openid, ['admin'])).status).toBe(200);

    const repeated = await admin(['grant', user.phone]);
    expect(repeated.code).toBe(0);
    expect(repeated.stdout).toContain('nothing to change (roles: admin)');
    expect(auditLines(repeated.stdout)).toEqual([]);
    expect(await storedRoles(user.openid)).toEqual(['admin']);
  });

  it('grants and revokes a role by openid with --role and --table, keeping the other roles', async () => {
    const user = await signUp(api);
    expect((await admin(['grant', user.openid])).code).toBe(0);
    const editor = await admin(['grant', user.openid, '--role', 'editor', '--table', process.env.HUB_TABLE!], { HUB_TABLE: undefined });
    expect(editor.code).toBe(0);
    expect(await storedRoles(user.openid)).toEqual(['admin', 'editor']);

    const revoked = await admin(['revoke', user.openid, '--role', 'admin']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`${user.openid}: revoked admin (roles now: editor)`);
    expect(await storedRoles(user.openid)).toEqual(['editor']);
    expect((await admin(['revoke', user.openid, '--role', 'admin'])).stdout).toContain('nothing to change (roles: editor)');
  });

  it('an unknown account: exit 3 with a message, nothing written', async () => {
    const phone = newPhone();
    const byPhone = await admin(['grant', phone]);
    expect(byPhone.code).toBe(3);
    expect(byPhone.stderr).toContain('no such account: No account signs in with this phone number');
    expect(byPhone.stderr).not.toContain(phone.slice(3));
    expect(await getHubItem(accountKeys.phone(phone))).toBeUndefined();

    const byOpenid = await admin(['grant', 'u_NoSuchAccount00000000']);
    expect(byOpenid.code).toBe(3);
    expect(byOpenid.stderr).toContain('no such account: Account "u_NoSuchAccount00000000" does not exist');
    expect(await getHubItem(accountKeys.account('u_NoSuchAccount00000000'))).toBeUndefined();
  });

  it.each([
    [[], 'missing command'],
    [['promote', '+8613800138000'], 'unknown command "promote"'],
    [['grant'], 'missing the phone number or openid'],
    [['grant', 'u_x', 'u_y'], 'unexpected argument "u_y"'],
    [['grant', 'u_x', '--role', 'owner'], 'unknown role "owner"; roles: admin, editor'],
    [['grant', 'u_x', '--force'], "Unknown option '--force'"],
    [['grant', '+12'], '"+12" is not a valid phone number'],
  ])('bad arguments %j: exit 2, the message and the usage', async (args, message) => {
    const run = await admin(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('usage: npm run admin -- grant <phone or openid>');
  });

  it('without a table: exit 2; a table that does not exist (or any AWS refusal): exit 1 naming the error', async () => {
    const user = await signUp(api);
    const noTable = await admin(['grant', user.openid], { HUB_TABLE: undefined });
    expect(noTable.code).toBe(2);
    expect(noTable.stderr).toContain('missing the hub table: pass --table <name> or set HUB_TABLE');

    const wrongTable = await admin(['grant', user.openid, '--table', 'no_such_table']);
    expect(wrongTable.code).toBe(1);
    expect(wrongTable.stderr).toContain('could not change the roles in table no_such_table: ResourceNotFoundException');
    expect(await storedRoles(user.openid)).toEqual([]);
  });
});

describe('ADMIN_PHONES at sign-in', () => {
  it('gives admin to an existing account whose phone was listed after it was created, in the sign-in write, once', async () => {
    const phone = process.env.ADMIN_PHONES!;
    // Created as a normal account: the phone listed later is simulated by taking the role away.
    const created = await signUp(api, phone);
    expect(created.new_account).toBe(true);
    expect(decodeJwt(created.token).roles).toEqual(['admin']);
    expect((await admin(['revoke', created.openid])).code).toBe(0);
    expect((await admin(['grant', created.openid, '--role', 'editor'])).code).toBe(0);
    expect(await storedRoles(created.openid)).toEqual(['editor']);

    clock.advance(61_000);
    const signedIn = await signUp(api, phone);
    expect(signedIn).toMatchObject({ openid: created.openid, new_account: false });
    expect(decodeJwt(signedIn.token).roles).toEqual(['editor', 'admin']);
    expect(await storedRoles(created.openid)).toEqual(['editor', 'admin']);
    expect((await setRolesWith(signedIn.token, created.openid, ['editor', 'admin'])).status).toBe(200);

    // The next sign-in adds nothing.
    clock.advance(61_000);
    const third = await signUp(api, phone);
    expect(decodeJwt(third.token).roles).toEqual(['editor', 'admin']);
    expect(await storedRoles(created.openid)).toEqual(['editor', 'admin']);
  });

  it('leaves the roles of a phone not listed alone at sign-in', async () => {
    const user = await signUp(api);
    clock.advance(61_000);
    const again = await signUp(api, user.phone);
    expect(decodeJwt(again.token).roles).toEqual([]);
    expect(await storedRoles(user.openid)).toEqual([]);
  });
});
