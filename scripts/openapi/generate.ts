/**
 * `npm run openapi`: writes the generated API description, the one source being the zod schemas
 * (scripts/openapi/document.ts): lib/transport/openapi/generated/openapi.json, served by
 * lib/transport/routes/openapi.ts. test/unit/openapi.test.ts fails when it differs from what this writes.
 * The client's types come from the same zod schemas by another path (npm run client:generate,
 * scripts/client/generate.ts).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedFiles } from './generated-files.js';

const ROOT = join(import.meta.dirname, '../..');
for (const [path, text] of Object.entries(await generatedFiles())) {
  await writeFile(join(ROOT, path), text);
  console.log(`wrote ${path}`);
}
