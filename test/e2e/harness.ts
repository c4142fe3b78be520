// One view alone in headless Chromium: an entry module bundled as the app bundles it (with the analysis
// worker beside it), served from 127.0.0.1 with the app's styles and whatever data files the page
// fetches. Used by the analysis-view test and by the browser benchmarks (scripts/bench/views.ts).
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../..');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

/** An absolute import path of a module of the app, for an entry's source text. */
export const appModule = (path: string) => JSON.stringify(join(ROOT, path));

export interface Harness {
  url: string;
  close(): Promise<void>;
}

/** entry: the source of a .tsx module that renders into #root; files: name → content, served beside it. */
export async function serveHarness(entry: string, files: Record<string, string> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-harness-'));
  writeFileSync(join(dir, 'entry.tsx'), entry);
  const common: BuildOptions = { bundle: true, format: 'esm', platform: 'browser', target: 'chrome120', nodePaths: [join(ROOT, 'node_modules')], logLevel: 'error' };
  await build({ ...common, entryPoints: { app: join(dir, 'entry.tsx') }, outdir: join(dir, 'dist'), jsx: 'automatic', loader: { '.css': 'empty' }, define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' }, alias: { stream: 'stream-browserify' } });
  await build({ ...common, entryPoints: [join(ROOT, 'src/browser/workers/analysis.worker.ts')], outdir: join(dir, 'dist') });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><link rel="stylesheet" href="styles.css"><link rel="stylesheet" href="run.css"></head><body><div id="root"></div><script type="module" src="dist/app.js"></script></body></html>');
  writeFileSync(join(dir, 'styles.css'), readFileSync(join(ROOT, 'src/browser/styles.css')));
  writeFileSync(join(dir, 'run.css'), readFileSync(join(ROOT, 'src/browser/views/run/run.css')));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const server = createServer((req, res) => {
    const path = join(dir, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    try {
      const body = readFileSync(path.startsWith(dir) ? path : join(dir, 'missing'));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}/index.html`,
    async close() {
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
