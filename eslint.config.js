// Lint, and the layer rules of ARCHITECTURE.md made executable: a wrong import fails `npm test`.
import tseslint from 'typescript-eslint';
import { layerPlugin } from './scripts/lint/layers.mjs';

// What each folder may import (an allow-list: anything not named is an error), besides itself.
// `node:*` is Node's own modules, a `/`-ended entry a folder of the repository, anything else a package.
const LAYERS = [
  {
    folder: 'src/common/',
    may: ['ajv', 'simple-statistics', '@stdlib/*'],
    why: 'src/common is pure TypeScript that runs anywhere (Node, the renderer, a worker): only its statistics and schema packages.',
  },
  {
    folder: 'src/browser/',
    may: ['src/common/', 'react', 'react-dom', 'zustand', 'plotly.js'],
    why: 'src/browser is the renderer: it reaches the backend only through the API contract in src/common.',
  },
  {
    folder: 'src/node/',
    may: ['src/common/', 'node:*', 'mysql2', 'ssh2', 'ssh-config', 'ws', 'playwright-core', 'zod'],
    why: 'src/node is the backend: Node, its packages and src/common, never the UI, the CLI or Electron.',
  },
  {
    folder: 'src/cli/',
    may: ['src/node/', 'src/common/', 'node:*'],
    why: 'src/cli is headless: it reaches hosts, files and runs through src/node.',
  },
  {
    folder: 'electron/',
    may: ['electron', 'src/node/', 'src/common/', 'node:*'],
    why: 'electron/ is the window around createBackend(): the UI is loaded as built files, never imported.',
  },
  {
    folder: 'scripts/',
    mayNot: ['src/browser/', 'electron', 'electron/'],
    why: 'scripts/ run in Node: the browser bundle is named as data (an entry point), and the Electron binary cannot be downloaded on build machines.',
  },
  {
    folder: 'test/',
    mayNot: ['electron', 'electron/'],
    why: 'The Electron binary cannot be downloaded on build machines: only electron/ may load electron.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'public/dist/', '.varlab-test/', 'src/**/*.generated.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    plugins: { layers: layerPlugin(LAYERS) },
    rules: { 'layers/imports': 'error' },
  },
);
