// Builds everything that runs outside tsx: the UI bundle (with a custom Plotly build), the
// workers, the Electron main and preload, and the CLI bundle for an installed `varlab` bin.
// Usage: tsx scripts/build.ts [--watch] [--dev]
import { build, context, type BuildOptions } from 'esbuild';
import { existsSync, readdirSync, mkdirSync, copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeValidator } from './schema-validator.js';

const dev = process.argv.includes('--dev') || process.argv.includes('--watch');
const watch = process.argv.includes('--watch');

const workers = existsSync('src/browser/workers')
  ? readdirSync('src/browser/workers')
      .filter((f) => f.endsWith('.worker.ts'))
      .map((f) => join('src/browser/workers', f))
  : [];

const common: BuildOptions = { bundle: true, sourcemap: dev ? 'inline' : 'linked', minify: !dev, logLevel: 'warning', legalComments: 'none' };

const targets: BuildOptions[] = [
  {
    ...common,
    entryPoints: { app: 'src/browser/main.tsx', render: 'src/browser/render.ts' },
    outdir: 'public/dist',
    entryNames: '[name]',
    platform: 'browser',
    format: 'esm',
    target: 'chrome120',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': dev ? '"development"' : '"production"', global: 'globalThis' },
    loader: { '.woff2': 'file' },
    // Plotly's modules expect Node's stream and buffer; the browser gets the npm polyfills.
    alias: { stream: 'stream-browserify' },
  },
  ...(workers.length
    ? [{ ...common, entryPoints: workers, outdir: 'public/dist', entryNames: '[name]', platform: 'browser', format: 'esm', target: 'chrome120' } satisfies BuildOptions]
    : []),
  // Electron's sandboxed preload must be a single CommonJS file that requires nothing but 'electron'.
  { ...common, entryPoints: { preload: 'electron/preload.ts' }, outdir: 'dist/electron', outExtension: { '.js': '.cjs' }, platform: 'node', format: 'cjs', target: 'node20', external: ['electron'] },
  { ...common, entryPoints: { main: 'electron/main.ts' }, outdir: 'dist/electron', outExtension: { '.js': '.mjs' }, platform: 'node', format: 'esm', target: 'node20', packages: 'external' },
  // Split: each command is its own chunk, imported when it runs, so `varlab --help` loads almost nothing.
  // Pure libraries are bundled in: @stdlib's t distribution alone is some 700 files that Node would
  // otherwise find and load one by one (about 0.3 s of every analyze). Native and heavy ones stay outside.
  {
    ...common,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    chunkNames: 'cli-chunks/[name]-[hash]',
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['ssh2', 'mysql2', 'playwright-core', 'electron'],
    // Bundled CommonJS that requires Node's own modules ('tty', 'util') needs a real require in ESM.
    banner: { js: "import { createRequire as __varlabRequire } from 'node:module'; const require = __varlabRequire(import.meta.url);" },
  },
];

// The schema compiled to code before anything is bundled (see scripts/schema-validator.ts).
if (writeValidator()) console.log('compiled the experiment schema into src/common/experiment/schema.generated.js');
rmSync('dist/cli-chunks', { recursive: true, force: true });

mkdirSync('public/dist', { recursive: true });
if (watch) {
  for (const t of targets) await (await context(t)).watch();
  console.log('watching for changes…');
} else {
  await Promise.all(targets.map((t) => build(t)));
  // The experiment schema ships beside the CLI bundle for people who validate files with other tools.
  mkdirSync('dist', { recursive: true });
  copyFileSync('src/common/experiment/experiment.schema.json', 'dist/varlab-experiment.schema.json');
}
