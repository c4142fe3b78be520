// Runs the test suites with Node's own test runner (TypeScript through tsx), one file at a time,
// because the integration and end-to-end suites start real servers (sshd, mariadbd, Chromium).
// Usage: node scripts/run-tests.mjs [unit|integration|e2e ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const suites = process.argv.slice(2).length ? process.argv.slice(2) : ['unit', 'integration', 'e2e'];
const files = suites.flatMap((s) => {
  const dir = join('test', s);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort().map((f) => join(dir, f)) : [];
});
if (files.length === 0) {
  console.error(`no test files in ${suites.join(', ')}`);
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
