// ESLint (flat config): the recommended JavaScript and TypeScript rules, on everything we write.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'public/vendor/', 'data/', 'coverage/', '.test-build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // Unused arguments named with a leading underscore are part of an interface.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Sanitizing and defusing match control characters on purpose.
      'no-control-regex': 'off',
      // Tests match fixed-width text (indented diff lines) literally.
      'no-regex-spaces': 'off',
    },
  },
  {
    files: ['scripts/**/*.js', '*.js', 'tests/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, htmx: 'readonly' } },
  },
);
