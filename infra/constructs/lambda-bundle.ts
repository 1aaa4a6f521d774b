/**
 * How every Lambda is bundled (esbuild, through NodejsFunction): read by the function construct and
 * by the benchmark's cold-start section, so what is measured is what is deployed.
 */

// ESM output still meets CommonJS dependencies that call `require`; this shim gives the bundle a
// real `require`, `__filename` and `__dirname`.
export const ESM_REQUIRE_SHIM = [
  "import { createRequire as __expohubCreateRequire } from 'node:module';",
  "import { fileURLToPath as __expohubFileURLToPath } from 'node:url';",
  "import { dirname as __expohubDirname } from 'node:path';",
  'const require = __expohubCreateRequire(import.meta.url);',
  'const __filename = __expohubFileURLToPath(import.meta.url);',
  'const __dirname = __expohubDirname(__filename);',
].join(' ');

export const LAMBDA_BUNDLE = {
  format: 'esm',
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_SHIM,
  minify: true,
  sourceMap: true,
  /** The nodejs22.x runtime provides the AWS SDK v3; everything else is bundled. */
  externalModules: ['@aws-sdk/*'],
} as const;
