// Lint, and the layer rules of ARCHITECTURE.md made executable: a wrong import fails `npm test`.
import tseslint from 'typescript-eslint';

// A forbidden entry is a package name pattern (`react`, `node:*`) or a layer folder written `@layer/browser`,
// which matches any relative import reaching into that folder (`../browser/x.js`, `../../src/browser/y.js`).
const layer = (files, forbidden, why) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((f) =>
          f.startsWith('@layer/')
            ? { regex: `^(\\.\\.?/)+(src/)?${f.slice(7)}(/|$)`, message: why }
            : { group: [f], message: why },
        ),
      },
    ],
  },
});

const NODE_BUILTINS = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'url', 'util', 'events', 'readline', 'worker_threads', 'process'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'public/dist/', '.varlab-test/', 'src/**/*.generated.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  layer(['src/common/**'], ['@layer/node', '@layer/browser', '@layer/cli', '@layer/electron', 'electron', ...NODE_BUILTINS, 'ssh2', 'mysql2', 'mysql2/*', 'react', 'react-dom', 'zustand', 'plotly.js', 'plotly.js/*'],
    'src/common is pure TypeScript that runs anywhere: it may import only src/common and pure npm libraries.'),
  layer(['src/node/**'], ['@layer/browser', '@layer/cli', '@layer/electron', 'electron', 'react', 'react-dom', 'zustand'],
    'src/node is the backend: it may import src/common and Node libraries, never the UI, the CLI or Electron.'),
  layer(['src/browser/**'], ['@layer/node', '@layer/cli', '@layer/electron', 'electron', ...NODE_BUILTINS, 'ssh2', 'mysql2', 'mysql2/*'],
    'src/browser is the renderer: it reaches the backend only through the API contract, never by importing src/node.'),
  layer(['src/cli/**'], ['@layer/browser', '@layer/electron', 'electron'],
    'src/cli is headless: src/common and src/node only.'),
  layer(['scripts/**', 'test/**'], ['electron', '@layer/electron'],
    'The Electron binary cannot be downloaded on build machines: only electron/ may load electron.'),
);
