// Runs the test suites with Node's own test runner (TypeScript through tsx), each file in its own
// process:
//   - the unit files: one runner, as many files at a time as there are cores.
//   - the integration and end-to-end files: a pool, several at a time, each in a private host of its
//     own (scripts/testenv/private-host.ts: a mount namespace in which ASLR, THP, the governor, turbo
//     and /var/lib/varlab are the file's own copies). A run sets and verifies those host-wide settings,
//     so two files on the machine's real ones would verify each other's; in private hosts they are
//     like files run on separate machines. The few files in REAL_HOST run on the machine's real files
//     instead, one at a time among themselves, so the kernel's own files stay tested.
//   - where a private host cannot be made (no root, no mount namespaces), every integration and
//     end-to-end file runs on the real host, one at a time, and the first line says why.
// Each file's report is Node's spec reporter, printed whole when everything has ended; live, one line
// per finished file; then the slowest tests and files, and one closing line `N passed, N failed`.
//
// Usage: node scripts/run-tests.mjs [--quick] [--checks] [unit|integration|e2e|FILE ...]
//   --quick: the unit files and the fast integration files (QUICK below).
//   --checks (npm test): lint and the type checks as well, beside the test files rather than before them:
//     each is one process on one core, so run first they left the other core idle for half a minute.
//   VARLAB_TEST_CONCURRENCY: unit files at a time (default: the number of cores).
//   VARLAB_TEST_FILES_AT_ONCE: integration and end-to-end files at a time (default: cores + 2: several
//     files spend most of their time waiting for a server to start, a run's idle time or a query loop
//     over SSH; with one file fewer the CPU was idle while two of those waited at once).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { groupCpuSeconds, makeGroup, removeEndedGroups } from './testenv/cpu-groups.mjs';

// Files that run on this machine's real host files: the probe read against the kernel's own files, and
// one whole run that sets, verifies and restores them where the kernel parses every write.
const REAL_HOST = new Set([
  'test/integration/host-probe.test.ts',
  'test/integration/host-local.test.ts',
  'test/integration/run-quickstart.test.ts',
]);

// The longest files (a few minutes each on a loaded machine) start first, so none of them is the last
// to start and the run's tail stays short; the rest in name order.
// (By wall time in full runs of 2026-11-27; faults and run-stop mostly wait on their runs, export and
// host-noise mostly use the CPU.)
const LONGEST = [
  'test/integration/faults.test.ts',
  'test/integration/export.test.ts',
  'test/integration/run-stop.test.ts',
  'test/e2e/run-detached.test.ts',
  'test/e2e/run-stop-live.test.ts',
  'test/integration/host-noise.test.ts',
  'test/e2e/run-document.test.ts',
  'test/integration/host-key-type.test.ts',
  'test/integration/run-hosts.test.ts',
  'test/e2e/run-view.test.ts',
];

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
const withChecks = args.includes('--checks');
const named = args.filter((a) => a !== '--quick' && a !== '--checks');
const suites = named.length ? named : ['unit', 'integration', 'e2e'];
let files = suites.flatMap((s) => {
  if (s.endsWith('.test.ts')) return existsSync(s) ? [s] : [];
  const dir = join('test', s);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort().map((f) => join(dir, f)) : [];
});
if (quick) files = files.filter((f) => f.startsWith('test/unit/') || QUICK.has(f));
if (files.length === 0) {
  console.error(`no test files in ${suites.join(', ')}`);
  process.exit(1);
}

const cores = availableParallelism();
const unitFiles = files.filter((f) => f.startsWith('test/unit/'));
const rank = (f) => (LONGEST.includes(f) ? LONGEST.indexOf(f) : LONGEST.length);
const hostFiles = files.filter((f) => !f.startsWith('test/unit/')).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

// A private host needs mount namespaces (root): tried once, for real, before any file relies on it.
const privateScript = hostFiles.length ? spawnSync(process.execPath, ['--import', 'tsx', 'scripts/testenv/private-host.ts'], { encoding: 'utf8' }).stdout : '';
const out = mkdtempSync(join(tmpdir(), 'varlab-tests-'));
function privateHostReason() {
  if (!privateScript) return 'scripts/testenv/private-host.ts printed no script';
  const d = join(out, 'probe');
  mkdirSync(d);
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', privateScript, 'private-host', d, 'true'], { encoding: 'utf8' });
  if (r.error) return `unshare: ${r.error.message}`;
  return r.status === 0 ? null : `unshare --mount failed: ${(r.stderr || '').trim().split('\n')[0]}`;
}
const noPrivate = hostFiles.length ? privateHostReason() : null;
const atOnce = noPrivate ? 1 : Number(process.env.VARLAB_TEST_FILES_AT_ONCE) || cores + 2;

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

const started = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`${built ? 'varlab as built in dist/' : 'varlab compiled from src/ (dist/ is older)'}; ${files.length} test files: `
  + `${unitFiles.length} unit files (${Number(process.env.VARLAB_TEST_CONCURRENCY) || cores} at a time), `
  + `${hostFiles.length} integration and end-to-end files (${noPrivate ? `1 at a time on the real host: no private hosts here, ${noPrivate}` : `${atOnce} at a time, each in a private host; ${hostFiles.filter((f) => REAL_HOST.has(f)).length} on the real host`}); load average ${load()}`);

// Stop with us (Ctrl-C, or CI's timeout): no file starts after the signal, the runners get it, and
// once a runner has ended, what its file left running (a killed file runs no after(): its sshd, a
// mysqld, a detached runner, each in a process group of its own) is stopped through the runner's CPU
// group, which every process it started stays in (endGroup). Before, the pool went on starting the
// next files, and each killed file left its sshd behind.
const children = [];
let stopping = null;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (!stopping) console.log(`${sig}: stopping the running files, starting no more`);
    stopping = sig;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(sig);
  });
}

// The CPU time of each runner, servers and browsers included (they leave its process tree when they
// daemonize, but not its group): a cgroup v1 cpuacct group of its own, where this machine lets us make
// one (root, cgroup v1). The suite's time on a 2-core machine is its CPU time over two, so this says
// which files to make cheaper. Elsewhere the figure is left out. Groups that copies of the suite which
// have ended could not remove (their zombies since reaped) go now; a copy still running beside this one
// keeps its own (scripts/testenv/cpu-groups.mjs).
removeEndedGroups();
const cpuGroup = () => makeGroup();
/**
 * After a stop (a signal): the processes still in the runner's group, ended: SIGTERM (sshd and mariadbd
 * shut down on it), then SIGKILL for any still there after 15 s. Without a group (no cgroup v1 here)
 * there is nothing to find them by, and they are left.
 */
async function endGroup(group) {
  if (!group) return;
  const left = () => readOr(join(group, 'cgroup.procs')).split('\n').filter((pid) => pid && !/^\d+ \(.*\) Z/s.test(readOr(`/proc/${pid}/stat`))).map(Number);
  const signal = (pids, sig) => pids.forEach((pid) => {
    try {
      process.kill(pid, sig);
    } catch {
      // ended meanwhile
    }
  });
  signal(left(), 'SIGTERM');
  for (const end = Date.now() + 15_000; left().length && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
  signal(left(), 'SIGKILL');
  for (const end = Date.now() + 5_000; left().length && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
}
/** The group's CPU seconds, and the group removed; a group that still holds processes is said, not removed. */
function cpuOf(group, name) {
  if (!group) return undefined;
  const seconds = groupCpuSeconds(group);
  try {
    rmdirSync(group);
  } catch {
    // Zombies of processes that went to an init that does not reap them (a container's) hold the group too.
    const running = readOr(join(group, 'cgroup.procs')).split('\n').filter((pid) => pid && !/^\d+ \(.*\) Z/s.test(readOr(`/proc/${pid}/stat`)));
    if (running.length) console.log(`! ${name} left ${running.length} process(es) running: ${running.map((pid) => `${pid} ${readOr(`/proc/${pid}/cmdline`).replace(/\0/g, ' ').trim()}`).join('; ')}`);
  }
  return seconds;
}
function readOr(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * One Node test runner process over `list`: spec report to a file, the times reporter's JSON lines read
 * as they come. `wrap` puts words before the node command (the private host's unshare).
 */
function runner(name, list, concurrency, wrap = []) {
  const specFile = join(out, `${name.replace(/[^\w.-]/g, '_')}.spec.txt`);
  const argv = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`,
    '--test-reporter=spec', `--test-reporter-destination=${specFile}`,
    '--test-reporter=./scripts/test-times.mjs', '--test-reporter-destination=stdout', ...list];
  const group = cpuGroup();
  // A group that cannot be joined (made, but the kernel refuses the move) costs the figure, never the run.
  const joinGroup = group ? ['sh', '-c', 'echo $$ > "$0/cgroup.procs" 2>/dev/null; exec "$@"', group] : [];
  const [cmd, ...cmdArgs] = [...joinGroup, ...wrap, process.execPath, ...argv];
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const result = { name, specFile, tests: [], fileTimes: [], summary: {}, code: 1, cpu: undefined, line: undefined };
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
      const line = (cpu) => `${e.ok ? '✔' : '✖'} ${file} (${secs(e.ms)}${cpu === undefined ? '' : `, ${cpu.toFixed(1)} s CPU`}, ${secs(Date.now() - started)} in)`;
      // A file alone in its runner (integration, end-to-end) is said when its runner ends, with its CPU time.
      if (list.length === 1) result.line = line;
      else console.log(line());
    } else if (e.kind === 'test') result.tests.push({ ...e, file: relative(process.cwd(), e.file) });
    else if (e.kind === 'summary') result.summary[e.key] = e.value;
  });
  return new Promise((resolve) => {
    child.on('close', async (code, signal) => {
      result.code = code ?? (signal ? 1 : 0);
      if (stopping) await endGroup(group);
      result.cpu = cpuOf(group, name);
      if (result.line) console.log(result.line(result.cpu));
      resolve(result);
    });
  });
}

/** One integration or end-to-end file, in a private host of its own unless it is a real-host file. */
function runHostFile(file) {
  if (noPrivate || REAL_HOST.has(file)) return runner(file, [file], 1);
  const d = mkdtempSync(join(out, 'host-'));
  return runner(file, [file], 1, ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', privateScript, 'private-host', d]).finally(() => rmSync(d, { recursive: true, force: true }));
}

/** The pool: `atOnce` files at a time, and never two on the real host at once. */
async function runHostFiles() {
  const queue = [...hostFiles];
  const results = [];
  let realBusy = false;
  const realHost = (f) => noPrivate || REAL_HOST.has(f);
  const waiting = [];
  const wake = () => waiting.splice(0).forEach((r) => r());
  const worker = async () => {
    for (;;) {
      if (stopping) return;
      const i = queue.findIndex((f) => !(realHost(f) && realBusy));
      if (i < 0) {
        if (queue.length === 0) return;
        await new Promise((r) => waiting.push(r));
        continue;
      }
      const [file] = queue.splice(i, 1);
      if (realHost(file)) realBusy = true;
      results.push(await runHostFile(file));
      if (realHost(file)) realBusy = false;
      wake();
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, hostFiles.length) }, worker));
  return results;
}

/** One of package.json's checks (`npm run -s NAME`), its output kept for the end, its CPU counted like a file's. */
function check(name) {
  const group = cpuGroup();
  const joinGroup = group ? ['sh', '-c', 'echo $$ > "$0/cgroup.procs" 2>/dev/null; exec "$@"', group] : [];
  const [cmd, ...cmdArgs] = [...joinGroup, 'npm', 'run', '-s', name];
  const t0 = Date.now();
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => {
    child.on('close', async (code, signal) => {
      if (stopping) await endGroup(group);
      const r = { name, code: code ?? (signal ? 1 : 0), output, cpu: cpuOf(group, name) };
      console.log(`${r.code === 0 ? '✔' : '✖'} npm run ${name} (${secs(Date.now() - t0)}${r.cpu === undefined ? '' : `, ${r.cpu.toFixed(1)} s CPU`}, ${secs(Date.now() - started)} in)${r.code === 0 ? '' : `: exit ${r.code}, its output follows the reports`}`);
      resolve(r);
    });
  });
}

const [unit, hosts, checks] = await Promise.all([
  unitFiles.length ? runner('unit', unitFiles, Number(process.env.VARLAB_TEST_CONCURRENCY) || cores).then((r) => [r]) : [],
  runHostFiles(),
  Promise.all(withChecks ? ['lint', 'typecheck'].map(check) : []),
]);
const results = [...unit, ...hosts.sort((a, b) => a.name.localeCompare(b.name))];
for (const r of results) process.stdout.write(existsSync(r.specFile) ? readFileSync(r.specFile, 'utf8') : `(no report from ${r.name})\n`);
for (const c of checks.filter((x) => x.output.trim() || x.code !== 0)) console.log(`\nnpm run ${c.name} (exit ${c.code}):\n${c.output.trimEnd()}`);
rmSync(out, { recursive: true, force: true });

const top = (rows, n) => rows.sort((a, b) => b.ms - a.ms).slice(0, n);
console.log('\nslowest tests:');
for (const t of top(results.flatMap((r) => r.tests.filter((x) => x.nesting === 0)), 10)) console.log(`  ${secs(t.ms).padStart(8)}  ${t.file}: ${t.name}`);
console.log('slowest files:');
const cpuOfFile = new Map(results.map((r) => [r.name, r.cpu]));
const cpuText = (file) => (cpuOfFile.get(file) === undefined ? '' : `  ${cpuOfFile.get(file).toFixed(1).padStart(6)} s CPU`);
for (const f of top(results.flatMap((r) => r.fileTimes), 10)) console.log(`  ${secs(f.ms).padStart(8)}${cpuText(f.file)}  ${f.file}`);
if ([...results, ...checks].every((r) => r.cpu !== undefined)) {
  console.log('most CPU (integration and end-to-end files, their servers and browsers included):');
  for (const r of results.filter((x) => x.name !== 'unit').sort((a, b) => b.cpu - a.cpu).slice(0, 10)) console.log(`  ${r.cpu.toFixed(1).padStart(8)} s  ${r.name}`);
  const checksCpu = checks.reduce((t, c) => t + c.cpu, 0);
  const total = results.reduce((t, r) => t + r.cpu, 0) + checksCpu;
  console.log(`CPU: ${total.toFixed(0)} s in all (unit files ${(cpuOfFile.get('unit') ?? 0).toFixed(0)} s${checks.length ? `, lint and type checks ${checksCpu.toFixed(0)} s` : ''}), ${(total / cores).toFixed(0)} s on ${cores} cores`);
}

const sum = (key) => results.reduce((s, r) => s + (r.summary[key] ?? 0), 0);
// A runner that ended without its summary (killed, crashed) counts as one failure, so it cannot pass.
const lost = results.filter((r) => r.summary.pass === undefined);
for (const r of lost) console.log(`✖ ${r.name}: its runner ended (exit ${r.code}) without a summary`);
// A check that failed counts as one failure.
const failedChecks = checks.filter((c) => c.code !== 0);
const failed = sum('fail') + sum('cancelled') + lost.length + failedChecks.length;
console.log(`\n${files.length} files${checks.length ? ` and ${checks.map((c) => c.name).join(' and ')}` : ''} in ${secs(Date.now() - started)}, load average ${load()}`);
console.log(`${sum('pass')} passed, ${failed} failed${failedChecks.length ? ` (${failedChecks.map((c) => c.name).join(', ')} among them)` : ''}`);
if (stopping) console.log(`stopped by ${stopping}: ${hostFiles.length - hosts.length} integration and end-to-end file(s) not started`);
process.exit(stopping ? 130 : failed > 0 || results.some((r) => r.code !== 0) ? 1 : 0);
