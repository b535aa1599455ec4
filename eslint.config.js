// Lint rules: typescript-eslint's recommended set with the project's habits (`import type` for
// types, `_` for unused parameters), and the architecture: production code imports only downward
// through the rooms of lint/layers.js, no import circles, and test fixtures stay where they belong
// (ARCHITECTURE.md, "Layers" and "Testing"); SQL only in repos and the store, and none of it
// in telephony; functions of at most 80 lines. test/lint/ proves the rules bite.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { layerZones, productionTestingZones, root, supportZones, testingZones } from './lint/layers.js';
import { longFunctionFiles, MAX_FUNCTION_LINES } from './lint/long-functions.js';
import sqlInRepos from './lint/sql-in-repos.js';

const restrict = (zones) => ['error', { basePath: root, zones }];
const tests = ['**/*.test.ts', '**/testing/**'];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      'web/dist/**',
      'web-voice/dist/**',
      'src/client/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The dashboard: React's rules of hooks, and the browser's globals.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['src/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Which files import-x reads to follow imports (TypeScript's, parsed as typescript-eslint
      // does), and how a `./x.js` specifier finds `x.ts`.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${root}/tsconfig.json` })],
    },
  },
  // Production code: downward only, no circles, no test code.
  {
    files: ['src/**/*.ts', 'bench/**/*.ts'],
    ignores: tests,
    rules: {
      'import-x/no-restricted-paths': restrict([...layerZones(), ...productionTestingZones]),
      // Packages cannot close a circle through our code; not following them saves most of the cost.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  // A function past ~80 lines (blank lines and comments aside) is split where the split names a
  // real step (ARCHITECTURE.md, "Rules that keep it livable"); a dashboard component into
  // sub-components named for what they show. The few that are still longer are listed in
  // lint/long-functions.js, each with why; the list only shrinks.
  {
    files: ['src/**/*.ts', 'bench/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    ignores: [...tests, '**/*.test.tsx', 'web/src/test/**', ...longFunctionFiles],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: MAX_FUNCTION_LINES, skipBlankLines: true, skipComments: true, IIFEs: true },
      ],
    },
  },
  // SQL only in *.repo.ts and src/store (lint/sql-in-repos.js).
  {
    files: ['src/**/*.ts'],
    ignores: tests,
    plugins: { switchboard: sqlInRepos },
    rules: { 'switchboard/sql-in-repos': 'error' },
  },
  // The call controller reaches the store only through the call records service (modules/calls):
  // not Kysely, not the store, not even in its tests.
  {
    files: ['src/telephony/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'kysely', message: 'telephony reaches the store through modules/calls (CallRecords).' },
          ],
          patterns: [
            {
              regex: '(^|/)store/',
              message: 'telephony reaches the store through modules/calls (CallRecords).',
            },
          ],
        },
      ],
    },
  },
  // A folder's tests and fixtures: its own testing/ and test/support, no other folder's testing/.
  {
    files: ['src/**/*.test.ts', 'src/**/testing/**/*.ts', 'test/**/*.ts'],
    ignores: ['test/support/**'],
    rules: { 'import-x/no-restricted-paths': restrict(testingZones()) },
  },
  // Shared support builds on production code and itself.
  {
    files: ['test/support/**/*.ts'],
    rules: { 'import-x/no-restricted-paths': restrict(supportZones) },
  },
);
