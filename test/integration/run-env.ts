// Shared set-up for the run engine's integration tests: the sandbox sshd, a mariadbd data directory
// with its server profile (from `varlab sandbox create` when that command exists), quickstart copies,
// and `varlab run` as a real child process.
import { after, before } from 'node:test';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '../../src/common/events.js';
import type { ExperimentDoc, Factor, ServerProfile } from '../../src/common/experiment/types.js';
import { processRuns } from '../../src/node/process.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { CLI } from '../fixtures/cli.js';
import { randomSandboxPort } from '../../src/node/host/sandbox.js';

export interface RunEnv {
  sshd: Sshd;
  dir: string;
  varlabHome: string;
  profile: ServerProfile;
  /** The profile is in the registry (`varlab sandbox create`), not to be written into experiment files. */
  registered: boolean;
  authArgs: string[];
  stop(): Promise<void>;
}

/** A data directory owned by the mysql user (mariadbd runs as it), and a direct-launch profile for it. */
function handMadeProfile(dir: string): ServerProfile {
  const base = join(dir, 'mysql');
  mkdirSync(base, { recursive: true });
  const uid = Number(execFileSync('id', ['-u', 'mysql']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'mysql']).toString().trim());
  chownSync(base, uid, gid);
  execFileSync('mariadb-install-db', ['--no-defaults', '--user=mysql', `--datadir=${join(base, 'data')}`, '--auth-root-authentication-method=normal', '--skip-test-db'], { stdio: 'ignore' });
  return {
    kind: 'direct',
    mysqld: '/usr/sbin/mariadbd',
    datadir: join(base, 'data'),
    socket: join(base, 'mysqld.sock'),
    port: randomSandboxPort(),
    osUser: 'mysql',
    user: 'root',
    errorLog: join(base, 'error.log'),
    pidFile: join(base, 'mysqld.pid'),
    extraArgs: ['--innodb-buffer-pool-size=64M', '--skip-log-bin'],
    sudo: false,
  };
}

/**
 * One environment for every test of a file: started before the first test, stopped after the last.
 * With `varlabHome`, the in-process backend reads the server profile registry from it, like the app.
 */
export function runEnvForTests(opts: { varlabHome?: boolean } = {}): RunEnv {
  const env = {} as RunEnv;
  before(async () => {
    Object.assign(env, await startRunEnv());
    if (opts.varlabHome) process.env.VARLAB_HOME = env.varlabHome;
  });
  after(async () => {
    await env.stop?.();
  });
  return env;
}

export async function startRunEnv(): Promise<RunEnv> {
  const sshd = await startSshd();
  const dir = mkdtempSync(join(tmpdir(), 'varlab-run-'));
  try {
    return await setUp(sshd, dir);
  } catch (e) {
    // A failed set-up must not leave its sshd and directory behind (the test's after() has no env to stop).
    await sshd.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

async function setUp(sshd: Sshd, dir: string): Promise<RunEnv> {
  // /tmp may be private to root: mysql must be able to reach its folder.
  execFileSync('chmod', ['755', dir]);
  const varlabHome = join(dir, 'home');
  mkdirSync(varlabHome);
  const authArgs = ['--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile];
  let profile: ServerProfile | undefined;
  let registered = false;
  if (existsSync('src/cli/commands/sandbox.ts')) {
    // The way a user does it: the sandbox registers its profile for the target, `varlab run --target` finds it.
    const r = varlabSync(['sandbox', 'create', sshd.target, ...authArgs, '--dir', dir, '--json'], varlabHome);
    if (r.code !== 0) throw new Error(`varlab sandbox create failed (${r.code}): ${r.stderr}${r.stdout}`);
    const profiles = JSON.parse(readFileSync(join(varlabHome, 'profiles.json'), 'utf8'));
    profile = profiles[sshd.target];
    registered = true;
  }
  profile ??= handMadeProfile(dir);
  return {
    sshd,
    dir,
    varlabHome,
    profile,
    registered,
    authArgs,
    async stop() {
      // mariadbd is stopped by varlab at the end of each run; stop one a killed run left behind.
      const pidFile = profile.pidFile ?? join(profile.datadir, 'mysqld.pid');
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        if (pid > 0) {
          try {
            process.kill(pid, 'SIGTERM');
            for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
          } catch {
            /* gone */
          }
        }
      }
      await sshd.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The host's files as a tree of the test's own, for a host layer on it (`defaultHostLayer(paths)`): THP
 * as the kernel leaves it, full ASLR; `record` is where the host's restore record goes.
 */
export function hostTree(env: RunEnv, name: string) {
  const tree = join(env.dir, name);
  const paths = { sys: join(tree, 'sys'), procSys: join(tree, 'procsys'), records: join(tree, 'records') };
  const thp = join(paths.sys, 'kernel/mm/transparent_hugepage/enabled');
  mkdirSync(join(paths.sys, 'kernel/mm/transparent_hugepage'), { recursive: true });
  mkdirSync(join(paths.procSys, 'kernel'), { recursive: true });
  mkdirSync(paths.records, { mode: 0o755 });
  writeFileSync(thp, 'always [madvise] never\n');
  writeFileSync(join(paths.procSys, 'kernel/randomize_va_space'), '2\n');
  return { paths, thp, record: join(paths.records, 'host', 'restore.tsv') };
}

/** Is the process running (a zombie, dead but not reaped, is not: see processRuns). */
export const alive = processRuns;

/** Waits up to `ms` for a process to exit (a journal line can come just before its writer exits). */
export async function exited(pid: number, ms = 10_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (!alive(pid)) return true;
  return !alive(pid);
}

/** A live process (a zombie waiting for its parent to reap it has stopped running). */
export const running = processRuns;

/** A copy of the quickstart with its profile, and the idle time set to 0 so the tests stay quick. */
export function quickstartCopy(env: RunEnv, name: string, edit: (doc: ExperimentDoc) => void = () => {}): string {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.idleSeconds = 0;
  if (!env.registered) doc.design.serverProfile = { ...env.profile, target: doc.design.target };
  edit(doc);
  const path = join(env.dir, `${name}.varlab.json`);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}

/**
 * A copy of the quickstart on the sandbox sshd's target cut to one cell: `restarts`, the first `queries`
 * queries with `repetitions` each (one more as warm-up), and `idleSeconds` before each start.
 */
export function oneCellCopy(env: RunEnv, name: string, o: { restarts: number; queries: number; repetitions: number; idleSeconds?: number }): string {
  return quickstartCopy(env, name, (d) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = o.restarts;
    d.design.workload.queries = d.design.workload.queries.slice(0, o.queries);
    d.design.workload.repetitions = o.repetitions;
    d.design.workload.warmup = 1;
    d.design.idleSeconds = o.idleSeconds ?? 0;
  });
}

/** The shape of a short run: the factors (every cell of them), restarts per cell, repetitions and warm-up. */
export interface ShortRun {
  factors: Factor[];
  restartsPerCell: number;
  repetitions: number;
  warmup: number;
}

/**
 * A short copy of the quickstart on the sandbox sshd's target: `short`'s factors with no cell
 * excluded, its restarts, repetitions and warm-up, the first two queries; then `edit`.
 */
export function shortQuickstartCopy(env: RunEnv, name: string, short: ShortRun, edit: (doc: ExperimentDoc) => void = () => {}): string {
  return quickstartCopy(env, name, (d) => {
    d.design.factors = short.factors;
    d.design.excludedCells = [];
    d.design.restartsPerCell = short.restartsPerCell;
    d.design.workload.queries = d.design.workload.queries.slice(0, 2);
    d.design.workload.repetitions = short.repetitions;
    d.design.workload.warmup = short.warmup;
    d.design.target = env.sshd.target;
    edit(d);
  });
}

/** Keep only the first `n` cells of the plan, so a test of resuming stays short. */
export function keepCells(doc: ExperimentDoc, keep: string[]): void {
  const all: string[] = [];
  let combos: Record<string, string>[] = [{}];
  for (const f of doc.design.factors) combos = combos.flatMap((c) => f.levels.map((l) => ({ ...c, [f.tunable]: l })));
  for (const c of combos) all.push(doc.design.factors.map((f) => `${f.tunable}=${c[f.tunable]}`).join(','));
  doc.design.excludedCells = all.filter((c) => !keep.includes(c));
}

export function varlabSync(args: string[], varlabHome: string): { code: number; stdout: string; stderr: string } {
  // stderr too when it succeeds: a command's lines for people (progress, where results went) are there.
  const r = spawnSync(process.execPath, [...CLI, ...args], { env: { ...process.env, VARLAB_HOME: varlabHome }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  return { code: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export interface RunningCli {
  child: ChildProcess;
  events: RunEvent[];
  stderr: () => string;
  /** Resolves when an event satisfies `pred` (checked on every event line). */
  waitFor(pred: (e: RunEvent, all: RunEvent[]) => boolean): Promise<RunEvent>;
  exit: Promise<number>;
}

/** `varlab run … --events json` as a child process, its events parsed as they arrive. */
export function varlabRun(args: string[], varlabHome: string): RunningCli {
  return varlabEvents('run', args, varlabHome);
}

/** `varlab COMMAND … --events json` (run, attach, cancel) as a child process, its events parsed as they arrive. */
export function varlabEvents(command: 'run' | 'attach' | 'cancel', args: string[], varlabHome: string): RunningCli {
  const child = spawn(process.execPath, [...CLI, command, ...args, '--events', 'json'], { env: { ...process.env, VARLAB_HOME: varlabHome }, stdio: ['ignore', 'pipe', 'pipe'] });
  const events: RunEvent[] = [];
  let err = '';
  let buf = '';
  const waiters: { pred: (e: RunEvent, all: RunEvent[]) => boolean; resolve: (e: RunEvent) => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      const e = JSON.parse(line) as RunEvent;
      events.push(e);
      for (const w of [...waiters]) {
        if (w.pred(e, events)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exit = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return {
    child,
    events,
    stderr: () => err,
    waitFor: (pred) =>
      new Promise((resolve, reject) => {
        waiters.push({ pred, resolve });
        void exit.then((code) => reject(new Error(`varlab ${command} exited (${code}) before the awaited event; stderr:\n${err}`)));
      }),
    exit,
  };
}

/** A `varlab` command as a child process whose lines for people (stderr) are waited on: a detached launch, say. */
export function varlabChild(args: string[], varlabHome: string): { child: ChildProcess; stderr: () => string; waitForStderr(re: RegExp): Promise<void>; exit: Promise<number> } {
  const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, VARLAB_HOME: varlabHome }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  child.stdout!.resume();
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString('utf8');
    for (const w of waiters.filter((x) => x.re.test(err))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  // Killed by a signal it did not handle: 128 + its number, as a shell says it.
  const exit = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? osConstants.signals[signal] : 0))));
  return {
    child,
    stderr: () => err,
    waitForStderr: (re) =>
      new Promise((resolve, reject) => {
        if (re.test(err)) return resolve();
        waiters.push({ re, resolve });
        void exit.then((code) => reject(new Error(`varlab ${args[0]} exited (${code}) before saying ${re}; stderr:\n${err}`)));
      }),
    exit,
  };
}

/** The sshd processes serving one connection: the children of the listening sshd. */
export function sshdSessions(sshdPid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(sshdPid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * `varlab new FILE --template dbt3 --sf 0.01` on the sandbox sshd's target, cut short: one cell, the
 * first `queries` of the 22, 2 executions (1 warm-up) per restart, no idle. Its design as written.
 */
export function shortDbt3(env: RunEnv, file: string, cell: string, queries: number): ExperimentDoc {
  const made = varlabSync(['new', file, '--template', 'dbt3', '--sf', '0.01', '--target', env.sshd.target, '--restarts', '1'], env.varlabHome);
  if (made.code !== 0) throw new Error(`varlab new --template dbt3 failed: ${made.stderr}`);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  keepCells(doc, [cell]);
  doc.design.workload.queries = doc.design.workload.queries.slice(0, queries);
  doc.design.workload.repetitions = 2;
  doc.design.workload.warmup = 1;
  doc.design.idleSeconds = 0;
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return doc;
}
