// Lints the page's TypeScript with typescript-eslint's type-checked rules; `npm run lint` runs it
// with --max-warnings 0, so a warning fails `npm run check` like an error.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'eslint.config.js', 'build.mjs', 'scripts/**'] },
  {
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: dirname(fileURLToPath(import.meta.url)) },
    },
    rules: {
      'no-restricted-properties': ['error',
        { property: 'innerHTML', message: 'Untrusted text stays text: use h() / textContent.' },
        { property: 'outerHTML', message: 'Untrusted text stays text: use h() / textContent.' },
        { property: 'insertAdjacentHTML', message: 'Untrusted text stays text: use h().' }],
      'no-restricted-syntax': ['error',
        { selector: "CallExpression[callee.property.name='write'][callee.object.name='document']",
          message: 'No document.write.' }],
      eqeqeq: ['error', 'always'],
    },
  },
);
