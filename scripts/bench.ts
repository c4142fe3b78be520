// `npm run bench`: every benchmark in scripts/bench/ prints its figures. Nothing here asserts a time.
// Usage: npm run bench [-- name ...]   (names are file names without .ts, e.g. analysis, engine)
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const only = process.argv.slice(2);
const dir = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'bench');
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .filter((n) => only.length === 0 || only.includes(n))
  .sort();
let failed = 0;
for (const name of names) {
  console.log(`\n== ${name} ==`);
  try {
    const mod = await import(pathToFileURL(join(dir, `${name}.ts`)).href);
    await mod.bench();
  } catch (e) {
    failed++;
    console.error(`${name}: ${(e as Error).stack ?? e}`);
  }
}
process.exitCode = failed ? 1 : 0;
