/**
 * `npm run client:generate`: writes client/src/generated.ts (scripts/client/generated-file.ts), the
 * types and the method table of the @expohub/client package. test/unit/client-generated.test.ts fails
 * when the committed file differs from what this writes.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { clientFile } from './generated-file.js';

const path = join(import.meta.dirname, '../../client/src/generated.ts');
await writeFile(path, await clientFile());
console.log('wrote client/src/generated.ts');
