// The fault suite (issue 13): real runs of varlab on the sandbox sshd and mariadbd, with a fault
// injected at random points of each, then checked as a user would: every planned restart measured
// exactly once (every execution of it once) or marked failed with its reason, the experiment file
// equal to its journal, the host's files as they were before the run, no mysqld left running and no
// temporary file left behind.
//
// The host files are a tree of the suite's own (the host layer is pointed at it), never /sys; the
// experiment files sit on a small tmpfs (a loop-mounted image where tmpfs may not be mounted) that
// the disk-full fault fills. `npm run test:faults` runs the long form; test/integration/faults.test.ts
// the short one. Every process started here is stopped by its pid.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync, ftruncateSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { RunEvent } from '../../src/common/events.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan, seededRandom } from '../../src/common/plan.js';
import { readJournalText, resultsFromJournal } from '../../src/common/records.js';
import type { HostPaths } from '../../src/node/host/script.js';
import { processRuns as running } from '../../src/node/process.js';
import { startRunEnv, varlabSync, type RunEnv } from '../integration/run-env.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { defaultHostLayer } from '../../src/node/engine/hostlayer.js';
import { RunService } from '../../src/node/runs/service.js';
import { attachDetached } from '../../src/node/detach/attach.js';
import { detachedStatus } from '../../src/node/detach/status.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { startSshd } from '../../scripts/testenv/sshd.js';
import { shipDetachedRun } from '../fixtures/shipped-run.js';
import { CLI } from '../fixtures/cli.js';

export const FAULTS = [
  'ssh-session-killed',
  'mysqld-killed-mid-query',
  'mysqld-killed-mid-verify',
  'server-fails-to-start',
  'varlab-killed-and-restarted',
  'drop-during-final-restore',
  'journal-disk-full',
  'disk-full-at-final-save',
  'ssh-drop-during-setup',
  'two-process-save',
  'detached-runner-killed',
  'two-profiles-one-host',
  'shipped-journal-symlinked-run-dir',
  'shipped-journal-dev-zero',
  'shipped-journal-impostor-host-key',
] as const;
export type Fault = (typeof FAULTS)[number];

export interface FaultRow {
  fault: Fault;
  injected: number;
  survived: number;
  trials: number;
  /** Why a fault could not be injected here at all (no tmpfs nor loop mount). */
  notInjected?: string;
  problems: string[];
}

export interface SuiteOptions {
  /** Injections of each fault at least. */
  each: number;
  seed: number;
  faults?: readonly Fault[];
  log?: (line: string) => void;
  /** Stops after the trial in progress (the environment is still cleaned up). */
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CHILD = ['--import', 'tsx', 'test/faults/child.ts'];
/** Runs of the same command a user would try after a fault before calling it lost. */
const MAX_RUNS = 5;
/** Longer than any run of a trial takes (a few restarts of a small server), even on a loaded machine. */
const RUN_LIMIT_MS = 240_000;
/** Faults of one kind injected into one trial at most (one after another, each survived before the next). */
const PER_TRIAL = 3;

interface Child {
  file: string;
  proc: ChildProcess;
  events: RunEvent[];
  outcome: () => { state: string; code?: string; message?: string } | null;
  stderr: () => string;
  /** Resolves with the event satisfying pred; null when the run ended first. */
  waitFor(pred: (e: RunEvent, all: RunEvent[]) => boolean): Promise<RunEvent | null>;
  exit: Promise<number>;
}

class Lab {
  readonly paths: HostPaths;
  readonly disk: string;
  diskProblem: string | undefined;
  private mounted: 'tmpfs' | 'loop' | null = null;
  private image: string | null = null;
  private readonly servers: Server[] = [];

  constructor(readonly env: RunEnv) {
    this.paths = { sys: join(env.dir, 'host/sys'), procSys: join(env.dir, 'host/procsys'), records: join(env.dir, 'host/records') };
    this.disk = join(env.dir, 'disk');
  }

  /** The experiment files' own small disk: a tmpfs, else a loop-mounted ext4 image, else a plain folder (and the disk-full fault says why it was not injected). */
  mountDisk(): void {
    mkdirSync(this.disk, { recursive: true });
    const errors: string[] = [];
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0755', 'tmpfs', this.disk], { stdio: 'pipe' });
      this.mounted = 'tmpfs';
      return;
    } catch (e) {
      errors.push(`tmpfs: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`);
    }
    try {
      this.image = join(this.env.dir, 'disk.img');
      execFileSync('truncate', ['-s', '8M', this.image]);
      execFileSync('mkfs.ext4', ['-q', '-F', this.image], { stdio: 'pipe' });
      execFileSync('mount', ['-o', 'loop', this.image, this.disk], { stdio: 'pipe' });
      this.mounted = 'loop';
      return;
    } catch (e) {
      errors.push(`loop mount: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`);
    }
    this.diskProblem = `no small disk could be mounted here (${errors.join('; ')}): the journal's disk was not filled`;
  }

  get diskKind(): string {
    return this.mounted ?? 'none';
  }

  unmountDisk(): void {
    if (this.mounted) execFileSync('umount', [this.disk], { stdio: 'pipe' });
    this.mounted = null;
  }

  /** The host as the kernel left it: THP madvise, both CPUs on powersave, boost on, full ASLR. */
  freshHost(): void {
    rmSync(join(this.env.dir, 'host'), { recursive: true, force: true });
    mkdirSync(this.paths.records, { recursive: true, mode: 0o755 });
    chmodSync(join(this.env.dir, 'host'), 0o755);
    const put = (p: string, text: string) => {
      mkdirSync(join(p, '..'), { recursive: true });
      writeFileSync(p, text + '\n');
    };
    put(join(this.paths.sys, 'kernel/mm/transparent_hugepage/enabled'), 'always [madvise] never');
    for (const c of [0, 1]) put(join(this.paths.sys, `devices/system/cpu/cpu${c}/cpufreq/scaling_governor`), 'powersave');
    put(join(this.paths.sys, 'devices/system/cpu/cpufreq/boost'), '1');
    put(join(this.paths.procSys, 'kernel/randomize_va_space'), '2');
  }

  /**
   * What the kernel does to a sysfs choice file that a plain file does not: after `madvise` is written,
   * it reads back `always [madvise] never`. Done between runs, as the next run reads the original there.
   */
  settleHost(): void {
    const thp = join(this.paths.sys, 'kernel/mm/transparent_hugepage/enabled');
    const v = readFileSync(thp, 'utf8').trim();
    if (/^(always|madvise|never)$/.test(v)) writeFileSync(thp, ['always', 'madvise', 'never'].map((w) => (w === v ? `[${w}]` : w)).join(' ') + '\n');
  }

  /** Every host file's content, and any restore record left behind. */
  hostFiles(): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        // A real sysfs file reads back `always [madvise] never` after `madvise` is written: the selected word is the value.
        else if (!p.startsWith(this.paths.records) || name === 'restore.tsv') out[p] = readFileSync(p, 'utf8').trim().replace(/^.*\[(\S+)\].*$/, '$1');
      }
    };
    walk(join(this.env.dir, 'host'));
    return out;
  }

  experiment(name: string, restartsPerCell: number, cells: number, edit?: TrialPlan['workload']): string {
    const doc: ExperimentDoc = {
      format: 'varlab-experiment',
      version: 3,
      name: `fault suite: ${name}`,
      design: {
        factors: [
          { tunable: 'thp', levels: ['never', 'always'] },
          { tunable: 'governor', levels: ['performance', 'unchanged'] },
        ],
        excludedCells: cells >= 4 ? [] : ['thp=always,governor=performance', 'thp=never,governor=unchanged'],
        restartsPerCell,
        workload: {
          kind: 'queries',
          database: 'varlab_faults',
          setupSql: 'CREATE TABLE t (n INT NOT NULL PRIMARY KEY) ENGINE=InnoDB;\nINSERT INTO t VALUES (1),(2),(3);\n',
          setupSkipIfTable: 't',
          // A query that lasts, so that a kill lands in the middle of one.
          queries: [
            { name: 'sleep', sql: 'SELECT SLEEP(0.15)' },
            { name: 'count', sql: 'SELECT COUNT(*) FROM t' },
          ],
          repetitions: 4,
          warmup: 0,
        },
        order: 'interleaved',
        seed: 7,
        idleSeconds: 0,
        estimates: { restartSeconds: 5, executionMs: 80 },
        target: this.env.sshd.target,
      },
    };
    edit?.(doc.design.workload, name);
    const path = join(this.disk, `${name}.varlab.json`);
    writeFileSync(path, JSON.stringify(doc, null, 2));
    return path;
  }

  /** Is a statement of this text running on the sandbox server now (its process list, as root over the socket)? */
  serverRuns(text: string): boolean {
    try {
      const sql = `SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '${text.replace(/'/g, "''")}%'`;
      return execFileSync('mariadb', ['--no-defaults', `--socket=${this.env.profile.socket}`, '-uroot', '-N', '-B', '-e', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '0';
    } catch {
      return false;
    }
  }

  run(file: string): Child {
    const env = { ...process.env, VARLAB_HOME: this.env.varlabHome, VARLAB_FAULTS_PATHS: JSON.stringify(this.paths) };
    const proc = spawn(process.execPath, [...CHILD, file, this.env.sshd.target, this.env.sshd.keyFile, this.env.sshd.knownHostsFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const events: RunEvent[] = [];
    let outcome: ReturnType<Child['outcome']> = null;
    let err = '';
    let buf = '';
    const waiters: { pred: (e: RunEvent, all: RunEvent[]) => boolean; resolve: (e: RunEvent | null) => void }[] = [];
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      for (let nl; (nl = buf.indexOf('\n')) >= 0; ) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        const e = JSON.parse(line);
        if (e.type === 'outcome') outcome = e;
        if (e.type === 'outcome' || e.type === 'said') continue;
        events.push(e);
        for (const w of [...waiters]) {
          if (w.pred(e, events)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(e);
          }
        }
      }
    });
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const exit = new Promise<number>((resolve) => proc.on('close', (code, signal) => resolve(code ?? (signal ? 137 : 1))));
    void exit.then(() => {
      for (const w of waiters.splice(0)) w.resolve(null);
    });
    return {
      file,
      proc,
      events,
      outcome: () => outcome,
      stderr: () => err,
      waitFor: (pred) => {
        const seen = events.find((e) => pred(e, events));
        if (seen) return Promise.resolve(seen);
        if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(null);
        return new Promise((resolve) => waiters.push({ pred, resolve }));
      },
      exit,
    };
  }

  /** The sshd processes serving connections (the listening sshd's children): killing them cuts every session. */
  cutSsh(): boolean {
    let pids: number[] = [];
    try {
      pids = execFileSync('pgrep', ['-P', String(this.env.sshd.pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    } catch {
      /* none */
    }
    for (const pid of pids) killPid(pid);
    return pids.length > 0;
  }

  mysqldPid(): number | null {
    const file = this.env.profile.pidFile ?? join(this.env.profile.datadir, 'mysqld.pid');
    try {
      const pid = Number(readFileSync(file, 'utf8').trim());
      return pid > 0 && running(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  killMysqld(): boolean {
    const pid = this.mysqldPid();
    if (pid) killPid(pid);
    return pid !== null;
  }

  /** mysqld processes of the sandbox, by its data directory on their command line. */
  serversRunning(): number[] {
    const out: number[] = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
        if (cmd.includes(this.env.profile.datadir) && /mariadbd|mysqld/.test(cmd.split('\0')[0]) && running(Number(name))) out.push(Number(name));
      } catch {
        /* gone */
      }
    }
    return out;
  }

  readyLines(): number {
    try {
      return (readFileSync(this.env.profile.errorLog ?? '', 'utf8').match(/ready for connections/g) ?? []).length;
    } catch {
      return 0;
    }
  }

  /** Hold the server's TCP port, so the next start fails to bind it; released by the returned function. */
  async holdPort(until: () => boolean): Promise<{ held: boolean; release: () => void }> {
    const port = this.env.profile.port;
    const end = Date.now() + 60_000;
    while (Date.now() < end && !until()) {
      const server = createServer();
      const ok = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(true));
      });
      if (ok) {
        this.servers.push(server);
        return { held: true, release: () => server.close() };
      }
      await sleep(10);
    }
    return { held: false, release: () => {} };
  }

  /** Fills the disk to the byte, then gives `leave` bytes back: room for a journal line, not for a file. */
  fillDisk(n: number, leave = 0): void {
    const fd = openSync(join(this.disk, `filler-${n}`), 'w');
    const chunk = Buffer.alloc(64 * 1024, 120);
    try {
      for (;;) writeSync(fd, chunk);
    } catch {
      // Full: and the last few bytes too.
      try {
        for (;;) writeSync(fd, chunk, 0, 1);
      } catch {
        /* full to the byte */
      }
      if (leave) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leave));
    } finally {
      closeSync(fd);
    }
  }

  freeDisk(): void {
    for (const name of readdirSync(this.disk)) if (name.startsWith('filler-')) rmSync(join(this.disk, name));
  }

  close(): void {
    for (const s of this.servers) s.close();
  }

  get auth() {
    return { identity: this.env.sshd.keyFile, knownHosts: this.env.sshd.knownHostsFile };
  }

  /** The run service in this process, on the suite's host files (detached runs, the second profile's runs). */
  service(): RunService {
    return new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(this.paths) });
  }

  /**
   * The same sshd under a second name (ssh://root@localhost:PORT, as an ssh-config alias would be) with
   * a second server profile registered for it: another port and data directory on the same host. It
   * is never started: a run on it is refused before anything touches the host, or it fails.
   */
  secondProfile(): { target: string; auth: { identity: string; knownHosts: string } } {
    const port = /:(\d+)$/.exec(this.env.sshd.target)![1];
    const target = `ssh://root@localhost:${port}`;
    const knownHosts = join(this.env.dir, 'known_hosts_localhost');
    writeFileSync(knownHosts, readFileSync(this.env.sshd.knownHostsFile, 'utf8').replace(`[127.0.0.1]:${port}`, `[localhost]:${port}`));
    const registry = join(this.env.varlabHome, 'profiles.json');
    const profiles = JSON.parse(readFileSync(registry, 'utf8'));
    const p = this.env.profile;
    const other = join(this.env.dir, 'second-profile');
    profiles[target] = { ...p, target, port: p.port + 1, datadir: join(other, 'data'), socket: join(other, 'mysqld.sock'), pidFile: join(other, 'mysqld.pid'), errorLog: join(other, 'error.log') };
    writeFileSync(registry, JSON.stringify(profiles, null, 2));
    return { target, auth: { identity: this.env.sshd.keyFile, knownHosts } };
  }
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

const executionsIn = (all: RunEvent[]) => all.filter((e) => e.type === 'execution').length;

/** What a trial checks once the run is over: the problems found (none: it survived). */
function check(lab: Lab, file: string, before: Record<string, string>, last: Child): string[] {
  const problems: string[] = [];
  const o = last.outcome();
  const finished = o?.state === 'finished' || (o?.state === 'refused' && o.code === 'already-finished');
  if (!finished) problems.push(`the last run did not finish: ${o ? `${o.state}: ${o.message}` : `no outcome (stderr: ${last.stderr().slice(-400)})`}`);
  const servers = lab.serversRunning();
  if (servers.length) problems.push(`mysqld left running: pid ${servers.join(', ')}`);
  const after = lab.hostFiles();
  if (!isDeepStrictEqual(after, before)) problems.push(`host files differ from before the run: ${JSON.stringify(Object.fromEntries(Object.entries(after).filter(([k, v]) => before[k] !== v)))}`);
  const temporaries = readdirSync(lab.disk).filter((n) => n.endsWith('.tmp'));
  if (temporaries.length) problems.push(`temporary files left: ${temporaries.join(', ')}`);

  const fileText = readFileSync(file, 'utf8');
  let doc: ExperimentDoc;
  try {
    doc = JSON.parse(fileText) as ExperimentDoc;
  } catch (e) {
    return [...problems, `the experiment file is not whole (${fileText.length} bytes): ${(e as Error).message}`];
  }
  const journalFile = file.replace(/\.json$/, '.journal.jsonl');
  const text = readFileSync(journalFile, 'utf8');
  // Counted line by line, apart from the engine's reader: the attempt that finished each restart.
  const finishedCount = new Map<number, number>();
  const attempt = new Map<number, string[]>();
  const executions = new Map<string, number>();
  const failedWithoutReason: number[] = [];
  for (const line of text.split('\n')) {
    let r;
    try {
      r = JSON.parse(line);
    } catch {
      continue; // a torn line (a full disk, a kill mid-write): the reader skips it too
    }
    if (r.t === 'restart-started') attempt.set(r.seq, []);
    if (r.t === 'execution') attempt.get(r.seq)?.push(`${r.seq}|${r.query}|${r.rep}`);
    if (r.t === 'restart-discarded') attempt.delete(r.seq);
    if (r.t === 'restart-finished') {
      finishedCount.set(r.seq, (finishedCount.get(r.seq) ?? 0) + 1);
      if (r.status !== 'ok' && !r.reason) failedWithoutReason.push(r.seq);
      if (r.status === 'ok') for (const k of attempt.get(r.seq) ?? []) executions.set(k, (executions.get(k) ?? 0) + 1);
      attempt.delete(r.seq);
    }
  }
  const plan = buildPlan(doc.design);
  const state = readJournalText(text);
  const statusOf = new Map(state.restarts.map((r) => [r.seq, r.status]));
  for (const p of plan) {
    if (finishedCount.get(p.seq) !== 1) problems.push(`restart ${p.seq} ended ${finishedCount.get(p.seq) ?? 0} times in the journal`);
    if (statusOf.get(p.seq) !== 'ok') continue;
    for (const q of doc.design.workload.queries)
      for (let rep = 1; rep <= doc.design.workload.repetitions; rep++) {
        const n = executions.get(`${p.seq}|${q.name}|${rep}`) ?? 0;
        if (n !== 1) problems.push(`restart ${p.seq} ${q.name} #${rep} recorded ${n} times`);
      }
  }
  if (failedWithoutReason.length) problems.push(`restarts marked failed without a reason: ${failedWithoutReason.join(', ')}`);
  for (const r of state.restarts) if (r.status === 'verify-failed') problems.push(`restart ${r.seq} kept as verify-failed: ${r.reason}`);
  const fromJournal = resultsFromJournal(state);
  const inFile = doc.results;
  if (!inFile || !isDeepStrictEqual(inFile.restarts, fromJournal.restarts)) problems.push(`the file's results differ from its journal (${inFile?.restarts.length ?? 0} restarts in the file, ${fromJournal.restarts.length} in the journal)`);
  else if (!isDeepStrictEqual((inFile.discarded ?? []).map((d) => d.seq), (fromJournal.discarded ?? []).map((d) => d.seq))) problems.push('the file names other discarded restarts than its journal');
  return problems;
}

interface TrialPlan {
  restartsPerCell: number;
  cells: number;
  /** Changes to the trial's workload (its database is the trial's own). */
  workload?: (w: ExperimentDoc['design']['workload'], trial: string) => void;
  /** Injections this trial tries; returns how many it made. Called for each run of the trial in turn. */
  inject(run: Child, nth: number, rand: () => number, want: number): Promise<number>;
  /** Before the trial's runs: faults injected outside them (a detached run), with what went wrong at once. The runs then finish the file. */
  prelude?(file: string, rand: () => number): Promise<{ injected: number; problems: string[] }>;
  /** After the trial, what it must also show (checked besides the file, journal and host). */
  after?(file: string): string[];
}

/**
 * A fault that is an attack, not an interruption (a shipped file and journal): `each` attempts, each
 * survived when it did nothing it should not and said so; `setup` and `teardown` once per row.
 */
interface AttackPlan {
  attacks: true;
  setup(): Promise<{ attack(rand: () => number): Promise<string[]>; teardown(): Promise<string[]> }>;
}

const between = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

/**
 * Up to PER_TRIAL faults at random executions of the run (each later one counted on from the one before,
 * after the restart it interrupted began again), each a random few milliseconds after its execution was recorded.
 */
async function atExecutions(run: Child, rand: () => number, want: number, maxDelayMs: number, act: () => boolean): Promise<number> {
  let made = 0;
  const points = Array.from({ length: Math.min(PER_TRIAL, want) }, () => between(rand, 1, 12)).sort((a, b) => a - b);
  for (const [i, p] of points.entries()) {
    if (!(await nthExecution(run, p + i * 8))) break;
    await sleep(between(rand, 0, maxDelayMs));
    if (act()) made++;
  }
  return made;
}

/** Waits for the run's nth execution (counted in this run), or null when it ended first. */
const nthExecution = (run: Child, n: number) => run.waitFor((_e, all) => executionsIn(all) >= n);

/** Another process saves the file (edit.ts): resolves with its answer. */
function editInAnotherProcess(file: string, description: string): Promise<{ saved: boolean; tries: number; message: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'test/faults/edit.ts', file, description], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    p.on('close', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)!));
      } catch {
        resolve({ saved: false, tries: 0, message: `edit.ts said nothing readable: ${err.slice(-300)}` });
      }
    });
  });
}

const textOf = (p: string) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};

function plans(lab: Lab): Record<Fault, TrialPlan | AttackPlan> {
  // two-process-save: the description the other process saved last, per file.
  const edited = new Map<string, string>();
  let second: ReturnType<Lab['secondProfile']> | null = null;
  return {
    'ssh-session-killed': {
      restartsPerCell: 1,
      cells: 2,
      inject: (run, nth, rand, want) => (nth > 0 ? Promise.resolve(0) : atExecutions(run, rand, want, 300, () => lab.cutSsh())),
    },
    'mysqld-killed-mid-query': {
      restartsPerCell: 1,
      cells: 2,
      // The executions alternate SLEEP(0.15) and a count: a kill within 120 ms lands inside a query or between two.
      inject: (run, nth, rand, want) => (nth > 0 ? Promise.resolve(0) : atExecutions(run, rand, want, 120, () => lab.killMysqld())),
    },
    'mysqld-killed-mid-verify': {
      restartsPerCell: 1,
      cells: 2,
      async inject(run, nth, rand, want) {
        if (nth > 0) return 0;
        let made = 0;
        const starts = Array.from({ length: Math.min(PER_TRIAL, want) }, () => between(rand, 1, 2)).sort((a, b) => a - b);
        for (const [i, s] of starts.entries()) {
          const target = s + i;
          if (!(await run.waitFor((_e, all) => all.filter((e) => e.type === 'restart-started').length >= target))) break;
          // Right after the new server says it is ready: the restart script reads its facts and varlab its variables.
          const ready = lab.readyLines();
          const end = Date.now() + 120_000;
          while (lab.readyLines() <= ready && Date.now() < end && run.proc.exitCode === null) await sleep(5);
          await sleep(between(rand, 0, 40));
          if (lab.killMysqld()) made++;
        }
        return made;
      },
    },
    'server-fails-to-start': {
      restartsPerCell: 1,
      cells: 2,
      async inject(run, nth, rand, want) {
        if (nth > 0) return 0;
        let made = 0;
        // Before which restarts (0: the first) the port is taken.
        const befores = [...new Set(Array.from({ length: Math.min(PER_TRIAL, want) }, () => between(rand, 0, 1)))].sort((a, b) => a - b);
        for (const b of befores) {
          if (!(await run.waitFor((e, all) => (b === 0 ? e.type === 'run-started' : all.filter((x) => x.type === 'restart-finished').length >= b)))) break;
          const failedBefore = run.events.filter((e) => e.type === 'restart-finished' && e.status === 'failed').length;
          const failed = () => run.events.filter((e) => e.type === 'restart-finished' && e.status === 'failed').length > failedBefore || run.proc.exitCode !== null;
          const hold = await lab.holdPort(failed);
          if (!hold.held) continue;
          made++;
          const end = Date.now() + 120_000;
          while (!failed() && Date.now() < end) await sleep(20);
          hold.release();
        }
        return made;
      },
    },
    'varlab-killed-and-restarted': {
      restartsPerCell: 1,
      cells: 2,
      async inject(run, nth, rand, want) {
        if (nth >= Math.min(PER_TRIAL, want)) return 0;
        if (!(await nthExecution(run, between(rand, 1, 12)))) return 0;
        await sleep(between(rand, 0, 200));
        if (run.proc.exitCode !== null) return 0;
        killPid(run.proc.pid!);
        return 1;
      },
    },
    'drop-during-final-restore': {
      restartsPerCell: 1,
      cells: 2,
      async inject(run, nth, rand) {
        if (nth > 0) return 0;
        if (!(await run.waitFor((e) => e.type === 'progress' && e.done === e.planned && e.planned > 0))) return 0;
        // The stop and restore take about a second here: a cut later than that finds the run gone.
        await sleep(between(rand, 0, 150));
        return run.proc.exitCode === null && lab.cutSsh() ? 1 : 0;
      },
    },
    'journal-disk-full': {
      restartsPerCell: 1,
      cells: 2,
      async inject(run, nth, rand, want) {
        if (lab.diskProblem || nth >= Math.min(PER_TRIAL, want)) return 0;
        if (!(await nthExecution(run, between(rand, 1, 12)))) return 0;
        if (run.proc.exitCode !== null) return 0;
        lab.fillDisk(nth);
        // The run fails at its next write; the space comes back before the next run, as a user would free it.
        await run.exit;
        lab.freeDisk();
        return 1;
      },
    },
    'ssh-drop-during-setup': {
      restartsPerCell: 1,
      cells: 2,
      // A setup of its own database that lasts (three SLEEPs), re-runnable, whose skip table is its first
      // statement; a query that fails unless the setup's rows are all there. The SSH sessions are cut
      // while a SLEEP of the setup runs: the run reconnects, and must run the setup again whole (a skip
      // of the half-made table would fail the check query), not end.
      workload(w, trial) {
        w.database = `varlab_faults_${trial.replace(/[^a-z0-9]/gi, '_')}`;
        w.setupSql = 'CREATE TABLE IF NOT EXISTS t (n INT NOT NULL PRIMARY KEY) ENGINE=InnoDB;\nDO SLEEP(0.8);\nDO SLEEP(0.8);\nDO SLEEP(0.8);\nINSERT IGNORE INTO t VALUES (1),(2),(3);\n';
        w.queries = [{ name: 'whole', sql: 'SELECT IF((SELECT COUNT(*) FROM t) = 3, 1, (SELECT 1 UNION SELECT 2))' }];
      },
      async inject(run, nth, rand) {
        if (nth > 0) return 0;
        for (const end = Date.now() + 120_000; Date.now() < end && run.proc.exitCode === null; await sleep(50)) {
          if (run.events.some((e) => e.type === 'log' && e.message.startsWith('setup script ran'))) return 0;
          if (!lab.serverRuns('DO SLEEP')) continue;
          await sleep(between(rand, 0, 500));
          return lab.cutSsh() ? 1 : 0;
        }
        return 0;
      },
    },
    'disk-full-at-final-save': {
      restartsPerCell: 1,
      cells: 2,
      // Every restart is in the journal; the disk fills while mysqld is stopped and the host restored,
      // leaving room for the journal's last lines but not for the file. The run must not say its
      // results were saved, must not cut the file, and the next run rebuilds the file from the journal.
      async inject(run, nth, rand) {
        if (lab.diskProblem || nth > 0) return 0;
        if (!(await run.waitFor((e) => e.type === 'progress' && e.done === e.planned && e.planned > 0))) return 0;
        if (run.proc.exitCode !== null) return 0;
        lab.fillDisk(nth, between(rand, 0, 8192));
        await run.exit;
        lab.freeDisk();
        return 1;
      },
    },
    'two-process-save': {
      restartsPerCell: 1,
      cells: 2,
      // While the run saves its results into the file, another process saves the file (its description,
      // on the revision it opened) at random executions. Both must be in the file at the end: every
      // result (the check) and the other process's last description.
      async inject(run, nth, rand, want) {
        if (nth > 0) return 0;
        let made = 0;
        const points = Array.from({ length: Math.min(PER_TRIAL, want) }, () => between(rand, 1, 14)).sort((a, b) => a - b);
        for (const [i, p] of points.entries()) {
          if (!(await nthExecution(run, p))) break;
          const description = `saved by another process, ${i + 1} of ${points.length}`;
          const r = await editInAnotherProcess(run.file, description);
          if (!r.saved) throw new Error(`the other process could not save ${run.file}: ${r.message}`);
          edited.set(run.file, description);
          made++;
        }
        return made;
      },
      after(file) {
        const want = edited.get(file);
        const got = (JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc).description;
        return want === undefined || got === want ? [] : [`the other process's save is lost: the description is ${JSON.stringify(got)}, not ${JSON.stringify(want)}`];
      },
    },
    'detached-runner-killed': {
      restartsPerCell: 1,
      cells: 2,
      // The file is first run detached; its runner is SIGKILLed at a random point (what the OOM killer
      // does). Right after, status or attach must say it is gone (status: and that its host is put back,
      // or being put back), and attach brings its end in and
      // removes its directory (THP and the governor back, mysqld stopped, the locks free: the check
      // after the runs sees the host files, and the runs that finish the file would be refused on a
      // held lock). Then the file is run again, attached, to its end.
      async prelude(file, rand) {
        const service = lab.service();
        const started = await service.detach({ file, auth: lab.auth, consent: async () => {}, waitS: 120 });
        const journal = join(started.dir, 'journal');
        const k = between(rand, 0, 14);
        for (const end = Date.now() + 120_000; Date.now() < end; await sleep(20)) {
          const t = textOf(journal);
          if ((t.match(/^X /gm) ?? []).length >= k || /^E /m.test(t)) break;
        }
        await sleep(between(rand, 0, 300));
        const wasEnding = /^E /m.test(textOf(journal));
        const o = { prompt: async () => ({ accept: false }), documents: new DocumentService() };
        if (!started.pid || !running(started.pid)) {
          // It ended first: brought in, so the trial's runs find the file's run over.
          await attachDetached(file, o);
          return { injected: 0, problems: [] };
        }
        killPid(started.pid);
        const problems: string[] = [];
        const gone = /^the runner \(pid \d+\) is gone since .*; its mysqld is stopped and the host's settings are restored from the record$/;
        // Status waits a little for the end it begins; a mysqld slow to stop is still being stopped then, and status says so.
        const ending = /^the runner \(pid \d+\) is gone since .*; its end is being made on the target now: stopping its mysqld, then restoring the host's settings from the record$/;
        if (rand() < 0.5) {
          const st = await detachedStatus(file, o);
          if (!wasEnding && (st.state !== 'failed' || !(gone.test(st.message ?? '') || ending.test(st.message ?? '')))) problems.push(`status right after the kill: ${st.state}: ${st.message}`);
        }
        const a = await attachDetached(file, o);
        if (!wasEnding && (a.state !== 'failed' || !gone.test(a.message ?? ''))) problems.push(`attach after the kill: ${a.state}: ${a.message}`);
        if (!a.cleanedUp) problems.push(`attach did not remove the run's directory ${started.dir}`);
        return { injected: 1, problems };
      },
      inject: () => Promise.resolve(0),
    },
    'two-profiles-one-host': {
      restartsPerCell: 1,
      cells: 2,
      // While the run changes THP and the governor, a run of another file on a second server profile of
      // the same host, reached by another name, starts at a random execution: whether it changes
      // host-wide settings or only its mysqld's, it is refused naming the running file, and the record
      // keeps the host's originals (the check: host files as before).
      async inject(run, nth, rand, want) {
        if (nth > 0) return 0;
        second ??= lab.secondProfile();
        let made = 0;
        const points = Array.from({ length: Math.min(PER_TRIAL, want) }, () => between(rand, 1, 14)).sort((a, b) => a - b);
        for (const [i, p] of points.entries()) {
          if (!(await nthExecution(run, p))) break;
          const hostWide = rand() < 0.5;
          const other = lab.experiment(`${run.file.replace(/^.*\/|\.varlab\.json$/g, '')}-other-${i + 1}`, 1, 1, (w) => w);
          const doc = JSON.parse(readFileSync(other, 'utf8')) as ExperimentDoc;
          doc.design.target = second.target;
          // Host-wide through the governor: when the first run has just ended and this one goes ahead, the
          // suite's plain THP file (not sysfs: it reads back unbracketed until settled) would be recorded wrong.
          doc.design.factors = hostWide ? [{ tunable: 'governor', levels: ['performance'] }] : [{ tunable: 'ahi', levels: ['off'] }];
          doc.design.excludedCells = [];
          writeFileSync(other, JSON.stringify(doc, null, 2));
          if (run.proc.exitCode !== null) break;
          const started = await lab.service().start({ file: other, auth: second.auth, consent: async () => {} });
          const o = await started.done;
          const name = run.file.replace(/^.*\//, '').replace(/[.]/g, '\\.');
          const refused = o.state === 'failed' && new RegExp(`is busy: \\S*${name} is running there`).test(o.message ?? '');
          // The run may have ended meanwhile: then the other run goes ahead (and fails: its server is not there).
          if (!refused && run.proc.exitCode === null) throw new Error(`a ${hostWide ? 'governor' : 'mysqld-only'} run on the second profile was not refused: ${o.state}: ${o.message}`);
          if (refused) made++;
        }
        return made;
      },
    },
    'shipped-journal-symlinked-run-dir': {
      attacks: true,
      // A live detached run (the victim); a folder owned by another user of the target (mysql) whose
      // runs/ links to the victim's runs directory; a shipped file and journal naming the victim's run
      // id under it. Each attack is status, attach or cancel on the shipped file: refused by name, the
      // victim's runner still running, its directory still there. At the end the victim is cancelled
      // from its own file and the host is as before.
      async setup() {
        lab.freshHost();
        const before = lab.hostFiles();
        const victim = lab.experiment('victim', 3, 2, (w) => w);
        const vd = JSON.parse(readFileSync(victim, 'utf8')) as ExperimentDoc;
        vd.design.idleSeconds = 600;
        writeFileSync(victim, JSON.stringify(vd, null, 2));
        const started = await lab.service().detach({ file: victim, auth: lab.auth, consent: async () => {}, waitS: 120 });
        const runs = join(started.dir, '..');
        const planted = join(lab.env.dir, 'planted', 'mysqld-3306-0123456789');
        mkdirSync(planted, { recursive: true });
        execFileSync('chown', ['-R', 'mysql:mysql', join(lab.env.dir, 'planted')]);
        execFileSync('ln', ['-s', runs, join(planted, 'runs')]);
        execFileSync('chown', ['-h', 'mysql:mysql', join(planted, 'runs')]);
        const host = JSON.parse(readFileSync(victim.replace(/\.json$/, '.journal.jsonl'), 'utf8').split('\n').find((l) => l.includes('"t":"host"'))!).host as HostFingerprint;
        const shipped = shipDetachedRun({ dir: join(lab.env.dir, 'shipped-planted'), name: 'planted', target: lab.env.sshd.target, host, runId: started.runId, runDir: (id) => join(planted, 'runs', id) });
        return {
          async attack(rand) {
            const command = ['status', 'attach', 'cancel'][between(rand, 0, 2)];
            const r = varlabSync([command, shipped.file, '--identity', lab.env.sshd.keyFile, '--known-hosts', lab.env.sshd.knownHostsFile], lab.env.varlabHome);
            const problems: string[] = [];
            if (r.code === 0 || !/refusing .*: its real path is .* \(a symbolic link on the way\)/.test(r.stderr)) problems.push(`${command} was not refused by name (exit ${r.code}): ${r.stderr.slice(-300)}`);
            if (!started.pid || !running(started.pid)) problems.push(`${command}: the victim's runner is gone`);
            if (!existsSync(started.dir)) problems.push(`${command}: the victim's directory is gone`);
            return problems;
          },
          async teardown() {
            const problems: string[] = [];
            const c = varlabSync(['cancel', victim], lab.env.varlabHome);
            if (c.code !== 0) problems.push(`cancelling the victim from its own file: exit ${c.code}: ${c.stderr.slice(-300)}`);
            lab.settleHost();
            if (!isDeepStrictEqual(lab.hostFiles(), before)) problems.push('the host files differ from before the victim ran');
            return problems;
          },
        };
      },
    },
    'shipped-journal-dev-zero': {
      attacks: true,
      // A shipped journal naming /dev/zero as its key, its known_hosts or both; status, attach or cancel
      // on it: the journal's files are not read (said), and the command ends at once, with no memory grown.
      async setup() {
        const host = JSON.parse(varlabSync(['probe', lab.env.sshd.target, '--identity', lab.env.sshd.keyFile, '--known-hosts', lab.env.sshd.knownHostsFile, '--json'], lab.env.varlabHome).stdout) as HostFingerprint;
        // A user of this machine with no key of their own: nothing the journal names is read instead.
        const home = join(lab.env.dir, 'zero-home');
        mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
        let n = 0;
        return {
          async attack(rand) {
            const which = between(rand, 0, 2);
            const auth = { ...(which !== 1 ? { identity: '/dev/zero' } : {}), ...(which !== 0 ? { knownHosts: '/dev/zero' } : {}) };
            const shipped = shipDetachedRun({ dir: join(lab.env.dir, 'shipped-zero', String(++n)), name: 'zero', target: lab.env.sshd.target, host, auth });
            const command = ['status', 'attach', 'cancel'][between(rand, 0, 2)];
            const t0 = Date.now();
            const r = spawnSync(process.execPath, [...CLI, command, shipped.file], { env: { ...process.env, HOME: home, VARLAB_HOME: join(home, 'varlab'), SSH_AUTH_SOCK: '' }, encoding: 'utf8', timeout: 60_000 });
            const problems: string[] = [];
            if (r.error || r.status === null) problems.push(`${command} did not end within 60 s (${r.error?.message ?? r.signal})`);
            else if (!/named by the journal .* (is|are) not used/.test(r.stderr) || /not a regular file/.test(r.stderr)) problems.push(`${command} read the journal's /dev/zero or did not say it was not used (exit ${r.status}, ${Date.now() - t0} ms): ${r.stderr.slice(-300)}`);
            return problems;
          },
          teardown: async () => [],
        };
      },
    },
    'shipped-journal-impostor-host-key': {
      attacks: true,
      // An sshd of its own, whose real host key the user's ~/.ssh/known_hosts holds, then switched to
      // another key (an impostor at the same address); a shipped journal naming the client key and a
      // known_hosts holding the impostor's key. status, attach or cancel: refused (the host key changed),
      // and nothing logs in to the impostor.
      async setup() {
        const sshd = await startSshd();
        const home = join(lab.env.dir, 'impostor-home');
        mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
        writeFileSync(join(home, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKey('ed25519').publicKey}\n`);
        const host = JSON.parse(varlabSync(['probe', lab.env.sshd.target, '--identity', lab.env.sshd.keyFile, '--known-hosts', lab.env.sshd.knownHostsFile, '--json'], lab.env.varlabHome).stdout) as HostFingerprint;
        await sshd.useHostKeys(['rsa']);
        const impostorKnownHosts = join(lab.env.dir, 'impostor_known_hosts');
        writeFileSync(impostorKnownHosts, `[127.0.0.1]:${sshd.port} ${sshd.hostKey('rsa').publicKey}\n`);
        const logins = () => (sshd.log().match(/Accepted publickey/g) ?? []).length;
        let n = 0;
        return {
          async attack(rand) {
            const shipped = shipDetachedRun({ dir: join(lab.env.dir, 'shipped-impostor', String(++n)), name: 'teammate', target: sshd.target, host, auth: { identity: sshd.keyFile, knownHosts: impostorKnownHosts } });
            const command = ['status', 'attach', 'cancel'][between(rand, 0, 2)];
            const before = logins();
            const r = spawnSync(process.execPath, [...CLI, command, shipped.file], { env: { ...process.env, HOME: home, VARLAB_HOME: join(home, 'varlab'), SSH_AUTH_SOCK: '' }, encoding: 'utf8', timeout: 120_000 });
            const problems: string[] = [];
            if (r.status !== 1 || !/REMOTE HOST IDENTIFICATION HAS CHANGED/.test(r.stderr)) problems.push(`${command} was not refused for the changed host key (exit ${r.status}): ${r.stderr.slice(-300)}`);
            if (logins() !== before) problems.push(`${command} logged in to the impostor`);
            return problems;
          },
          teardown: async () => {
            await sshd.stop();
            return [];
          },
        };
      },
    },
  };
}

/** Run the suite; prints as it goes through `log`, returns one row per fault. */
export async function runFaultSuite(opts: SuiteOptions): Promise<{ rows: FaultRow[]; disk: string }> {
  const log = opts.log ?? (() => {});
  const rand = seededRandom(opts.seed);
  const env = await startRunEnv();
  const lab = new Lab(env);
  const rows: FaultRow[] = [];
  // The runs made in this process (detached, on the second profile) find the sandbox's profile and keep their records where the children do.
  const home = process.env.VARLAB_HOME;
  process.env.VARLAB_HOME = env.varlabHome;
  try {
    lab.mountDisk();
    if (lab.diskProblem) log(`note: ${lab.diskProblem}`);
    const all = plans(lab);
    let trialNo = 0;
    for (const fault of opts.faults ?? FAULTS) {
      const row: FaultRow = { fault, injected: 0, survived: 0, trials: 0, problems: [] };
      rows.push(row);
      if ((fault === 'journal-disk-full' || fault === 'disk-full-at-final-save') && lab.diskProblem) {
        row.notInjected = lab.diskProblem;
        continue;
      }
      const planned = all[fault];
      if ('attacks' in planned) {
        const a = await planned.setup();
        try {
          for (let i = 1; i <= opts.each && !opts.signal?.aborted; i++) {
            const problems = await a.attack(rand);
            row.trials++;
            row.injected++;
            if (!problems.length) row.survived++;
            else row.problems.push(...problems.map((p) => `${fault} #${i}: ${p}`));
            log(`  ${fault} #${i}: ${problems.length ? `NOT survived:\n    ${problems.join('\n    ')}` : 'survived'}`);
          }
        } finally {
          const left = await a.teardown();
          // What the row left behind undoes its last attack's survival.
          if (left.length) {
            if (row.survived === row.injected && row.survived > 0) row.survived--;
            row.problems.push(...left.map((p) => `${fault}: ${p}`));
            log(`  ${fault}: after the attacks: ${left.join('; ')}`);
          }
        }
        continue;
      }
      const plan = planned;
      let fruitless = 0;
      while (row.injected < opts.each && fruitless < 8 && !opts.signal?.aborted) {
        const name = `t${++trialNo}-${fault}`;
        lab.freshHost();
        const before = lab.hostFiles();
        const file = lab.experiment(name, plan.restartsPerCell, plan.cells, plan.workload);
        let injected = 0;
        const hangs: string[] = [];
        let last: Child | null = null;
        if (plan.prelude) {
          const pre = await plan.prelude(file, rand).catch((e: Error) => ({ injected: 0, problems: [`the detached part failed: ${e.message}`] }));
          injected += pre.injected;
          hangs.push(...pre.problems);
          // As after every run: THP reads back as the kernel shows it (the next run records the original from it).
          lab.settleHost();
        }
        for (let nth = 0; nth < MAX_RUNS; nth++) {
          const run = lab.run(file);
          last = run;
          const made = plan.inject(run, nth, rand, opts.each - row.injected - injected).catch((e: Error) => {
            log(`  ${name}: injecting failed: ${e.message}`);
            return 0;
          });
          // A run that hangs is a fault not survived: it is stopped (by pid) so that the suite goes on.
          let watchdog: NodeJS.Timeout | undefined;
          const hung = await Promise.race([run.exit.then(() => false), new Promise<boolean>((r) => (watchdog = setTimeout(() => r(true), RUN_LIMIT_MS)))]);
          // Cleared, or the suite would linger for minutes after its table.
          clearTimeout(watchdog);
          if (hung) {
            hangs.push(`run ${nth + 1} hung for ${RUN_LIMIT_MS / 1000} s after ${run.events.at(-1)?.type ?? 'no'} event (${JSON.stringify(run.events.at(-1) ?? {}).slice(0, 300)})`);
            killPid(run.proc.pid!);
            await run.exit;
          }
          injected += await made;
          lab.freeDisk();
          lab.settleHost();
          const o = run.outcome();
          if (o?.state === 'finished' || (o?.state === 'refused' && o.code === 'already-finished')) break;
        }
        row.trials++;
        if (!injected) {
          fruitless++;
          log(`  ${name}: no fault landed (the run ended before the chosen point); trying again`);
          continue;
        }
        fruitless = 0;
        const problems = [...hangs, ...check(lab, file, before, last!), ...(plan.after?.(file) ?? [])];
        row.injected += injected;
        if (!problems.length) row.survived += injected;
        else row.problems.push(...problems.map((p) => `${name}: ${p}`));
        log(`  ${name}: ${injected} injected, ${problems.length ? `NOT survived:\n    ${problems.join('\n    ')}` : 'survived'}`);
        // Stray servers of a failed trial would spoil the next one.
        for (const pid of lab.serversRunning()) killPid(pid);
      }
    }
    return { rows, disk: lab.diskKind };
  } finally {
    if (home === undefined) delete process.env.VARLAB_HOME;
    else process.env.VARLAB_HOME = home;
    lab.close();
    for (const pid of lab.serversRunning()) killPid(pid);
    try {
      lab.unmountDisk();
    } catch (e) {
      log(`note: could not unmount ${lab.disk}: ${(e as Error).message}`);
    }
    await env.stop();
  }
}

/** The one table: fault, injected, survived. */
export function faultTable(rows: FaultRow[]): string {
  const lines = [['fault', 'injected', 'survived'], ...rows.map((r) => [r.fault, r.notInjected ? 'not injected' : String(r.injected), r.notInjected ? '-' : String(r.survived)])];
  const w = [0, 1, 2].map((i) => Math.max(...lines.map((l) => l[i].length)));
  const fmt = (l: string[]) => `| ${l.map((c, i) => c.padEnd(w[i])).join(' | ')} |`;
  return [fmt(lines[0]), `|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`, ...lines.slice(1).map(fmt)].join('\n');
}
