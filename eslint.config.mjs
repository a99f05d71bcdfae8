import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import testRules from './scripts/lint/test-must-assert.cjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.sandbox/**', '.cache/**', 'test/e2e/out/**', 'test/scaling/out/**', 'nodes/**/*.js', 'bin/**', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // A msg may come from a function node, another JavaScript realm: its objects, arrays, Dates and byte arrays
    // fail `instanceof` and prototype checks here. Values are judged by shape (src/shape.ts).
    files: ['src/**/*.ts'],
    ignores: ['src/shape.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'BinaryExpression[operator="instanceof"][right.name=/^(Date|Object|Array|Buffer|Uint8Array)$/]',
          message:
            'A value from a msg may come from another realm (a function node): use isDate, isBytes, isPlainObject or Array.isArray of src/shape.ts.',
        },
        {
          selector: 'CallExpression[callee.object.name="Buffer"][callee.property.name="isBuffer"]',
          message: 'A function node\'s Uint8Array is no Buffer here: use isBytes of src/shape.ts.',
        },
        {
          selector:
            'BinaryExpression[operator=/^[!=]==?$/] > MemberExpression[object.name="Object"][property.name="prototype"]',
          message: 'A function node\'s {} has another Object.prototype: use isPlainObject of src/shape.ts.',
        },
      ],
    },
  },
  {
    // The emulator never uses the client's request builder or decoder (generic or typed), nor the nodes: a client
    // tested against a server built from itself proves nothing (DEVELOPERS-GUIDE, docs/architecture.md).
    files: ['src/emulator/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '(^|/)(client|generic|nodes|transport)(/|$)|(^|/)soap(/(index|request|decode|plan|coerce|legacy|read-values|fault|wsdl))?$',
              message:
                'The emulator has its own reader and writers: of src/soap it may use values, escape and xml-scanner only.',
            },
          ],
        },
      ],
    },
  },
  {
    // A test that asserts nothing, or is skipped or focused, fails the lint (scripts/lint/test-must-assert.cjs).
    files: ['test/**/*.ts'],
    plugins: { tests: testRules },
    rules: {
      'tests/must-assert': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'it', property: 'skip', message: 'No skipped tests.' },
        { object: 'it', property: 'only', message: 'No focused tests.' },
        { object: 'describe', property: 'skip', message: 'No skipped tests.' },
        { object: 'describe', property: 'only', message: 'No focused tests.' },
      ],
    },
  },
);
