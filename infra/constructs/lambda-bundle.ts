import type { BuildOptions } from 'esbuild';

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

/**
 * The AWS SDK v3 is bundled (the locked version, tested here), all but the credential providers that
 * Lambda never uses, rather than taken from the nodejs22.x runtime: one minified file imports in
 * about half the time of the runtime's SDK, which Node loads as dozens of separate packages
 * (docs/performance.md, "Cold starts"; `npm run bench -- --only coldstart` measures both).
 */
export const LAMBDA_BUNDLE = {
  format: 'esm' as const,
  target: 'node22',
  platform: 'node' as const,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_SHIM,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  /**
   * The credential providers the SDK's default chain would try after the environment. On Lambda the
   * environment always holds the function's credentials, so these are never loaded: the chain
   * imports them with `import()` only when the environment has none. Left out of the bundle, they
   * are 130 KB less to compile at every cold start (about 20 ms of CPU here). Outside Lambda without
   * credentials in the environment, the bundle would look them up in node_modules (the nodejs22.x
   * runtime has them), and fail to find credentials if they are not there.
   */
  externalModules: [
    '@aws-sdk/credential-provider-http',
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-web-identity',
    '@smithy/credential-provider-imds',
  ],
  /** The functions' NODE_OPTIONS (stack traces through the source maps). */
  nodeOptions: '--enable-source-maps',
};

/** The same settings as esbuild's own build options, for the benchmark (`bundle: true` as NodejsFunction passes it). */
export function esbuildOptions(entryPoint: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    format: LAMBDA_BUNDLE.format,
    target: LAMBDA_BUNDLE.target,
    platform: LAMBDA_BUNDLE.platform,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: LAMBDA_BUNDLE.sourceMap,
    sourcesContent: LAMBDA_BUNDLE.sourcesContent,
    external: [...LAMBDA_BUNDLE.externalModules],
    logLevel: 'error',
  };
}
