import { resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/constructs/expohub-function.js';
import { FUNCTIONS, type DynamoAction, type FunctionName, type FunctionSpec } from '../../infra/routes.js';

/**
 * The DynamoDB grants of FUNCTIONS (infra/routes.ts) against the code each function deploys: its
 * entry bundled as the stack bundles it (tree-shaken, our code only), every command and transaction
 * item kind found in it mapped to its IAM action. A command added to a function's code path without
 * its action fails here, and so does an action granted that the code never sends.
 */
const COMMAND_ACTIONS: Record<string, DynamoAction | DynamoAction[]> = {
  GetCommand: 'GetItem',
  BatchGetCommand: 'BatchGetItem',
  QueryCommand: 'Query',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  BatchWriteCommand: 'BatchWriteItem',
  // IAM has no action of its own for a transaction: each item needs its action (matched below).
  TransactWriteCommand: [],
  ScanCommand: 'Scan' as DynamoAction,
};
const TRANSACTION_ITEM_ACTIONS: Record<string, DynamoAction> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };
/** Commands of other services the bundles may hold. */
const OTHER_COMMANDS = new Set(['GetSecretValueCommand', 'PublishCommand']);

async function bundleOf(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [resolve(PROJECT_ROOT, entry)],
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    // Dependencies stay imports: the commands are constructed in our code.
    packages: 'external',
    logLevel: 'error',
  });
  return out.outputFiles[0]!.text;
}

/** The DynamoDB actions and the index names literally written in a bundle. */
function actionsInBundle(code: string): { actions: Set<string>; indexes: Set<string>; unknownCommands: string[] } {
  const actions = new Set<string>();
  const unknownCommands: string[] = [];
  // esbuild renames a second import of a class `QueryCommand2`.
  for (const [, name] of code.matchAll(/new (\w+?Command)\d*\(/g)) {
    const mapped = COMMAND_ACTIONS[name!];
    if (mapped === undefined) {
      if (!OTHER_COMMANDS.has(name!)) unknownCommands.push(name!);
      continue;
    }
    for (const a of [mapped].flat()) actions.add(a);
  }
  for (const [, kind] of code.matchAll(/\b(Put|Update|Delete|ConditionCheck): \{/g)) actions.add(TRANSACTION_ITEM_ACTIONS[kind!]!);
  const indexes = new Set([...code.matchAll(/IndexName: "([\w-]+)"/g)].map(([, name]) => name!));
  return { actions, indexes, unknownCommands };
}

const granted = (spec: FunctionSpec) => {
  const grants = Object.values(spec.tables);
  const indexes = new Set(grants.flatMap((g) => g?.indexes ?? []));
  // Query on an index is the action Query, whether or not the table itself is queried.
  const actions = new Set<string>([...grants.flatMap((g) => g?.actions ?? []), ...(indexes.size > 0 ? ['Query'] : [])]);
  return { actions, indexes };
};

describe('DynamoDB grants against the code of each function', () => {
  it('finds the commands in a bundle (the reader itself)', () => {
    const found = actionsInBundle(
      'await db.send(new QueryCommand2({ TableName: t, IndexName: "gsi1" })); await x.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: t } }, { ConditionCheck: { Key: k } }] })); new ScanCommand({});',
    );
    expect([...found.actions].sort()).toEqual(['ConditionCheckItem', 'PutItem', 'Query', 'Scan']);
    expect([...found.indexes]).toEqual(['gsi1']);
    expect(actionsInBundle('new ExecuteStatementCommand({})').unknownCommands).toEqual(['ExecuteStatementCommand']);
  });

  for (const [name, spec] of Object.entries(FUNCTIONS) as [FunctionName, FunctionSpec][]) {
    it(`${name}: grants exactly the actions its code sends, and no Scan`, async () => {
      const found = actionsInBundle(await bundleOf(spec.entry));
      expect(found.unknownCommands, 'commands this test does not know').toEqual([]);
      expect(found.actions.has('Scan'), 'a Scan on a request path').toBe(false);
      const grant = granted(spec);
      expect([...grant.actions].sort(), 'granted actions').toEqual([...found.actions].sort());
      // Index names written as literals must be granted; an index chosen at run time (the exports'
      // IndexSpec) is listed in the spec by hand.
      for (const index of found.indexes) expect(grant.indexes.has(index), `Query on index ${index}`).toBe(true);
    });
  }
});
