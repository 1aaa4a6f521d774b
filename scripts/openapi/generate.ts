/**
 * `npm run openapi`: writes the generated API description, the one source being the zod schemas
 * (scripts/openapi/document.ts): lib/transport/openapi/generated/openapi.json (served by lib/transport/routes/openapi.ts) and
 * lib/transport/openapi/generated/api-types.ts (openapi-typescript's types of it, used by the typed client
 * lib/transport/openapi/client.ts, the key page and the CLI). test/unit/openapi.test.ts fails when either
 * file differs from what this writes.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedFiles } from './generated-files.js';

const ROOT = join(import.meta.dirname, '../..');
for (const [path, text] of Object.entries(await generatedFiles())) {
  await writeFile(join(ROOT, path), text);
  console.log(`wrote ${path}`);
}
