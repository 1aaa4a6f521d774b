// expohub account delete | export: deletes the signed-in account (DELETE /api/v1/me?confirm=delete),
// or writes a copy of everything the server stores about it (GET /api/v1/me/data). Both need a login
// token: an access key can neither delete its account nor download it (the API refuses it, and so does
// this command before asking anything).
import { rename, rm, writeFile } from 'node:fs/promises';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { forgetLogin, resolveCredential, resolveUrl } from '../config.mjs';
import { makeClient } from '../http.mjs';
import { CliError, EXIT, log, logSummary, progress, result, UsageError, writeOut } from '../output.mjs';
import { ask } from '../prompt.mjs';
import { notSignedIn } from './login.mjs';
import { loginClient } from './session.mjs';

/** --wait asks for the deletion's state at most this many times, the waits growing from 0.5 s to 5 s (about 1.5 minutes in all). */
export const WAIT_POLLS = 20;
const waitMs = (poll) => Math.min(5_000, 500 * 2 ** (poll - 1));

/** What the server erases and keeps, shown before the confirmation (docs/cli.md, "expohub account delete"). */
const WHAT_HAPPENS = `Deleting the account erases, for good: the profile and phone number, likes, dislikes, follows
(both ways), viewing history and feed, access keys (scripts using them stop working), the link between
shares and the account, and the activity trail. Comments stay as "comment deleted" markers without
text or author; videos published as an editor stay, with the author shown as "deleted account".
Kept for a while: a record that the deletion happened (no personal data, 90 days: proof and security),
the phone number's SMS limits until they end (at most 24 h), key usage counts until they expire (32 days).
Signing in again with the same phone number creates a new, empty account.`;

export async function account(args, options, env = process.env) {
  const [command, ...rest] = args;
  switch (command) {
    case 'delete':
      return deleteAccount(rest, options, env);
    case 'export':
      return exportAccount(rest, options, env);
    case undefined:
      throw new UsageError('account needs a command: delete or export');
    default:
      throw new UsageError(`unknown account command "${command}": use delete or export`);
  }
}

async function deleteAccount(args, options, env) {
  if (args.length !== 0) throw new UsageError('account delete takes no arguments: expohub account delete [--yes] [--wait]');
  const url = await resolveUrl(options.url, env);
  if ((env.EXPOHUB_KEY ?? '').trim().startsWith('ak_')) {
    throw new CliError('an access key cannot delete its account: unset EXPOHUB_KEY and sign in with "expohub login" as the account to delete', {
      exitCode: EXIT.AUTH,
      code: 'LOGIN_REQUIRED',
    });
  }
  const credential = await resolveCredential(url, env, { loginOnly: true });
  if (!credential) throw notSignedIn(url);
  if (!options.yes && !process.stdin.isTTY) throw new UsageError('account delete erases the account for good: pass --yes to confirm when not at a terminal');

  const call = makeClient({ base: url, credential: credential.credential, maxAttempts: options.maxAttempts, verbose: options.verbose });
  const me = await call('me.get');
  if (!options.yes) {
    log(WHAT_HAPPENS);
    const answer = (await ask(`Type "delete" to delete account ${me.user_id} on ${url}: `))?.trim();
    if (answer !== 'delete') {
      log('Not deleted.');
      return EXIT.FAILED;
    }
  }
  // Not retried after a lost answer: the account may be gone, and a second request would only get 401.
  const answer = await call('me.delete', { confirm: 'delete' }, { idempotent: false });
  const { deletion } = answer;
  // The token is refused from now on: a stored login of it is of no use any more.
  if (credential.kind === 'token' && credential.source !== 'EXPOHUB_KEY') await forgetLogin(url, env);
  if (!options.wait) {
    await result(answer, `Deleted account ${me.user_id} on ${url}: deletion ${deletion.id} is ${deletion.state} (requested ${deletion.requested_at}).`);
    return EXIT.OK;
  }
  return waitUntilErased(url, me.user_id, deletion, options);
}

/** --wait: GET /api/v1/deletions/{id} (no credential: the id is enough) until erased, WAIT_POLLS times at most. */
async function waitUntilErased(url, openid, requested, options) {
  const status = makeClient({ base: url, maxAttempts: options.maxAttempts, verbose: options.verbose });
  let answer = { deletion: requested };
  for (let poll = 1; answer.deletion.state !== 'erased' && poll <= WAIT_POLLS; poll++) {
    progress({ tty: `deletion ${requested.id}: ${answer.deletion.state}, check ${poll}/${WAIT_POLLS}` });
    await sleep(waitMs(poll));
    answer = await status('me.deletionStatus', { id: requested.id });
  }
  progress({ tty: '', final: true });
  const { deletion } = answer;
  if (deletion.state !== 'erased') {
    log(`Deletion ${deletion.id} is still ${deletion.state} after ${WAIT_POLLS} checks; the account is refused already. Check later: GET ${url}/api/v1/deletions/${deletion.id}`);
    await result(answer, `Deleted account ${openid} on ${url}: deletion ${deletion.id} is ${deletion.state}.`);
    return EXIT.FAILED;
  }
  await result(answer, `Deleted account ${openid} on ${url}: deletion ${deletion.id} is erased (completed ${deletion.completed_at}).`);
  return EXIT.OK;
}

/**
 * Follows `GET /api/v1/me/data` from its first page to its last and writes ONE JSON document: the
 * first page's `format`, `generated_at` and `account`, then every page's records in order. Nothing
 * is written unless every page was read: a failed run leaves no partial file. The file holds the
 * account's personal data (the phone number in full): it is created readable by its owner only (600).
 */
async function exportAccount(args, options, env) {
  if (args.length !== 0) throw new UsageError('account export takes options only: expohub account export [-o FILE]');
  const { call } = await loginClient(options, env, 'downloading your data');
  /** @type {Record<string, unknown> | undefined} */
  let head;
  const records = [];
  let pages = 0;
  let cursor = '';
  do {
    const data = await call('me.exportData', cursor ? { cursor } : {});
    pages += 1;
    head ??= { format: data.format, generated_at: data.generated_at, account: data.account ?? null };
    records.push(...data.records);
    cursor = typeof data.next_cursor === 'string' ? data.next_cursor : '';
    progress({ tty: `account export: ${records.length} records, ${pages} pages`, final: !cursor });
  } while (cursor);
  const text = `${JSON.stringify({ ...head, records }, null, 2)}\n`;
  if (options.output) {
    // Written beside the target, then renamed over it: the file is either the whole export or absent.
    const partial = `${options.output}.partial-${process.pid}`;
    try {
      await writeFile(partial, text, { mode: 0o600, flag: 'wx' });
      await rename(partial, options.output);
    } catch (error) {
      await rm(partial, { force: true });
      throw new CliError(`cannot write ${options.output}: ${error?.message ?? error}`, { code: 'WRITE_FAILED' });
    }
  } else if (!(await writeOut(text))) {
    return EXIT.OK;
  }
  const where = options.output ? ` to ${options.output}` : '';
  logSummary(`exported ${records.length} record${records.length === 1 ? '' : 's'} of your account in ${pages} page${pages === 1 ? '' : 's'}${where}`, {
    records: records.length,
    pages,
    ...(options.output ? { file: options.output } : {}),
  });
  return EXIT.OK;
}
