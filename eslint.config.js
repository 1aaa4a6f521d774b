import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // lib/transport/openapi/generated: written by npm run openapi (its freshness is a test, test/unit/openapi.test.ts).
  { ignores: ['node_modules/**', 'cdk.out/**', 'web/dist/**', 'client/dist/**', '.data/**', 'test-artifacts/**', 'bench/results.json', 'lib/transport/openapi/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z'][importKind!='type']",
          message: "Use `import * as z from 'zod'`: the named `z` export defeats tree-shaking and adds ~370 KB to every Lambda bundle.",
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', fetch: 'readonly' } },
  },
);
