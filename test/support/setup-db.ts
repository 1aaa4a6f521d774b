import { afterAll } from 'vitest';
import { releaseDynamoDbLocal, reserveDynamoEndpoint } from './dynamo.js';

// The database tiers (api, e2e, deep: vitest.config.ts), after setup-env.ts: this file's DynamoDB
// Local endpoint, set before any lib/ module makes its client (the JVM starts when first needed:
// dynamo.ts).
process.env.DYNAMODB_ENDPOINT = await reserveDynamoEndpoint();

/** Items this file wrote through the functions' DynamoDB client (dynamo.ts decides by them when a worker's instance is replaced). */
let written = 0;
{
  const { db } = await import('../../lib/platform/db/client.js');
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TransactItems?: unknown[]; RequestItems?: Record<string, unknown[]> };
      const command = context.commandName ?? '';
      if (/^(Put|Update|Delete)Item/.test(command)) written += 1;
      else if (command.startsWith('TransactWrite')) written += input.TransactItems?.length ?? 0;
      else if (command.startsWith('BatchWrite')) written += Object.values(input.RequestItems ?? {}).reduce((n, items) => n + items.length, 0);
      return next(args);
    },
    { step: 'initialize', name: 'countTestWrites' },
  );
}

// Registered first, so it runs after the file's own afterAll hooks (a stack stops before its database).
afterAll(() => releaseDynamoDbLocal(written));
