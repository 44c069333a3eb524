// Lint enforces the layers (STYLE house rule 6): upper libraries never import a provider,
// providers never import an upper library, core/src/dat has no behaviour, no console in
// library code, and packages reach each other only through their public entry points.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const PROVIDERS = ['@dapl/provider-*'];
const UPPER_LIBRARIES = ['@dapl/mpi', '@dapl/mpi/*', '@dapl/fmpl', '@dapl/fmpl/*'];
const DEEP_IMPORTS = ['@dapl/*/src/*', '@dapl/*/dist/*', '**/core/src/*', '**/../core/*'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', URL: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', performance: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/core/src/cli/**'],
    rules: { 'no-console': 'error' },
  },
  {
    // Core knows no provider and no upper library.
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: [...PROVIDERS, ...UPPER_LIBRARIES], message: 'core must not import a provider or an upper library: load providers through the registry' }] }],
    },
  },
  {
    files: ['packages/provider-*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: UPPER_LIBRARIES, message: 'providers never import an upper library' },
        { group: ['@dapl/provider-*'], message: 'a provider does not import another provider' },
        { group: DEEP_IMPORTS, message: 'import @dapl/core or @dapl/core/provider-kit, not its files' },
      ] }],
    },
  },
  {
    files: ['packages/mpi/src/**/*.ts', 'packages/fmpl/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: PROVIDERS, message: 'upper libraries never import a provider: use ia.extension(name) and fall back' },
        { group: ['@dapl/core/provider-kit'], message: 'upper libraries use the DAT API, not the provider kit' },
        { group: DEEP_IMPORTS, message: 'import @dapl/core, not its files' },
      ] }],
    },
  },
  {
    // The DAT API is interfaces only: no functions or classes (DatError and its guard excepted).
    files: ['packages/core/src/dat/**/*.ts'],
    ignores: ['packages/core/src/dat/errors.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: 'FunctionDeclaration', message: 'core/src/dat has no behaviour: put functions in provider-kit or util' },
        { selector: 'ClassDeclaration', message: 'core/src/dat has no behaviour: put classes in provider-kit or util' },
        { selector: 'ArrowFunctionExpression', message: 'core/src/dat has no behaviour' },
      ],
    },
  },
  {
    files: ['**/*.mjs', 'bench/**', 'examples/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', performance: 'readonly', queueMicrotask: 'readonly' } },
  },
);
