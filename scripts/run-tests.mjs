// Runs the test suites with Node's own test runner (TypeScript through tsx), each file in its own
// process, in two lanes at the same time:
//   - the host lane, one file at a time: the integration and end-to-end files that run experiments on
//     this machine through the sandbox sshd. Their runs set and verify the machine's own ASLR, THP and
//     governor (/proc/sys, /sys), which are global: two at once would verify each other's settings.
//   - the side lane, as many files at a time as there are cores: the unit files, and the integration and
//     end-to-end files that neither change nor read those settings (BESIDE below).
// A file not named in BESIDE runs in the host lane, so a new test file is safe by default.
// Each lane's report is Node's spec reporter, printed whole when the lane ends, with its own closing
// summary; then the slowest tests and files, and one combined closing line `N passed, N failed`.
//
// Usage: node scripts/run-tests.mjs [--quick] [unit|integration|e2e ...]
//   --quick: the unit files and the fast integration files (QUICK below), the side lane only.
//   VARLAB_TEST_CONCURRENCY: files at a time in the side lane (default: the number of cores).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';

// Integration and end-to-end files that can run beside the host lane: no run on this machine's real
// /proc/sys or /sys (host-restore and faults inject their host paths), no assertion on what they hold.
const BESIDE = new Set([
  'test/integration/browser-mode.test.ts',
  'test/integration/browser-mode-hostile.test.ts',
  'test/integration/detach-runner.test.ts',
  'test/integration/faults.test.ts',
  'test/integration/host-restore.test.ts',
  'test/integration/keychain.test.ts',
  'test/integration/sandbox-space.test.ts',
  'test/integration/ssh-shell.test.ts',
  'test/e2e/analysis-view.test.ts',
  'test/e2e/designer.test.ts',
  'test/e2e/export.test.ts',
  'test/e2e/files.test.ts',
  'test/e2e/hosts-run-on.test.ts',
  'test/e2e/run-view-no-webgl.test.ts',
  'test/e2e/start.test.ts',
]);

// `npm run test:quick`: the integration files that take seconds (no experiment run, no Chromium).
const QUICK = new Set([
  'test/integration/browser-mode.test.ts',
  'test/integration/browser-mode-hostile.test.ts',
  'test/integration/host-restore.test.ts',
  'test/integration/keychain.test.ts',
  'test/integration/sandbox-space.test.ts',
  'test/integration/ssh-shell.test.ts',
]);

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const named = args.filter((a) => a !== '--quick');
const suites = named.length ? named : ['unit', 'integration', 'e2e'];
let files = suites.flatMap((s) => {
  const dir = join('test', s);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort().map((f) => join(dir, f)) : [];
});
if (quick) files = files.filter((f) => f.startsWith('test/unit/') || QUICK.has(f));
if (files.length === 0) {
  console.error(`no test files in ${suites.join(', ')}`);
  process.exit(1);
}

const beside = (f) => f.startsWith('test/unit/') || BESIDE.has(f);
const cores = Number(process.env.VARLAB_TEST_CONCURRENCY) || availableParallelism();
const lanes = [
  // The files of the side lane that are not unit files go first: they are the longest (faults), so the
  // unit files fill in around them.
  { name: 'side', concurrency: cores, files: [...files.filter((f) => beside(f) && !f.startsWith('test/unit/')), ...files.filter((f) => f.startsWith('test/unit/'))] },
  { name: 'host', concurrency: 1, files: files.filter((f) => !beside(f)) },
].filter((l) => l.files.length > 0);

// The bundled command line (dist/cli.js, what `npm test` has just built) starts in a third of the time
// tsx takes to compile src/ at every spawn; the tests use it when it is newer than every source file
// (test/fixtures/cli.ts), and compile src/ otherwise (a source edited since the last build).
function newestUnder(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestUnder(p) : statSync(p).mtimeMs);
  }
  return newest;
}
const built = existsSync('dist/cli.js') && statSync('dist/cli.js').mtimeMs >= newestUnder('src');
if (built) process.env.VARLAB_TEST_CLI = 'built';

const out = mkdtempSync(join(tmpdir(), 'varlab-tests-'));
const started = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(`${built ? 'varlab as built in dist/' : 'varlab compiled from src/ (dist/ is older)'}; ${files.length} test files: ${lanes.map((l) => `${l.files.length} in the ${l.name} lane (${l.concurrency} at a time)`).join(', ')}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

/** One runner process: spec report to a file, the times reporter's JSON lines read as they come. */
function runLane(lane) {
  const specFile = join(out, `${lane.name}.spec.txt`);
  const argv = ['--import', 'tsx', '--test', `--test-concurrency=${lane.concurrency}`,
    '--test-reporter=spec', `--test-reporter-destination=${specFile}`,
    '--test-reporter=./scripts/test-times.mjs', '--test-reporter-destination=stdout', ...lane.files];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const result = { lane, specFile, tests: [], fileTimes: [], summary: {}, code: 1 };
  createInterface({ input: child.stdout }).on('line', (line) => {
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      console.log(line);
      return;
    }
    if (e.kind === 'file') {
      const file = relative(process.cwd(), e.file);
      result.fileTimes.push({ file, ms: e.ms });
      console.log(`${e.ok ? '✔' : '✖'} ${file} (${secs(e.ms)}, ${lane.name} lane, ${secs(Date.now() - started)} in)`);
    } else if (e.kind === 'test') result.tests.push({ ...e, file: relative(process.cwd(), e.file) });
    else if (e.kind === 'summary') result.summary[e.key] = e.value;
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      result.code = code ?? (signal ? 1 : 0);
      resolve(result);
    });
  });
}

// Stop the runners with us (Ctrl-C, or CI's timeout): they stop their files' processes in turn.
const children = [];
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const c of children) if (c.exitCode === null) c.kill(sig);
    process.exitCode = 130;
  });
}

const results = await Promise.all(lanes.map(async (lane) => {
  const r = await runLane(lane);
  console.log(`\n── ${lane.name} lane: ${lane.files.length} files in ${secs(Date.now() - started)} ──`);
  process.stdout.write(existsSync(r.specFile) ? readFileSync(r.specFile, 'utf8') : '(no report)\n');
  return r;
}));
rmSync(out, { recursive: true, force: true });

const top = (rows, n) => rows.sort((a, b) => b.ms - a.ms).slice(0, n);
console.log('\nslowest tests:');
for (const t of top(results.flatMap((r) => r.tests.filter((x) => x.nesting === 0)), 10)) console.log(`  ${secs(t.ms).padStart(8)}  ${t.file}: ${t.name}`);
console.log('slowest files:');
for (const f of top(results.flatMap((r) => r.fileTimes), 10)) console.log(`  ${secs(f.ms).padStart(8)}  ${f.file}`);

const sum = (key) => results.reduce((s, r) => s + (r.summary[key] ?? 0), 0);
// A runner that ended without its summary (killed, crashed) counts as one failure, so it cannot pass.
const lost = results.filter((r) => r.summary.pass === undefined).length;
const failed = sum('fail') + sum('cancelled') + lost;
console.log(`\n${files.length} files in ${secs(Date.now() - started)}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`${sum('pass')} passed, ${failed} failed`);
process.exit(failed > 0 || results.some((r) => r.code !== 0) ? 1 : 0);
