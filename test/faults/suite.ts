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
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync, ftruncateSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { RunEvent } from '../../src/common/events.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan, seededRandom } from '../../src/common/plan.js';
import { readJournalText, resultsFromJournal } from '../../src/common/records.js';
import type { HostPaths } from '../../src/node/host/script.js';
import { processRuns as running } from '../../src/node/process.js';
import { startRunEnv, type RunEnv } from '../integration/run-env.js';

export const FAULTS = ['ssh-session-killed', 'mysqld-killed-mid-query', 'mysqld-killed-mid-verify', 'server-fails-to-start', 'varlab-killed-and-restarted', 'drop-during-final-restore', 'journal-disk-full', 'disk-full-at-final-save', 'ssh-drop-during-setup'] as const;
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

function plans(lab: Lab): Record<Fault, TrialPlan> {
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
  };
}

/** Run the suite; prints as it goes through `log`, returns one row per fault. */
export async function runFaultSuite(opts: SuiteOptions): Promise<{ rows: FaultRow[]; disk: string }> {
  const log = opts.log ?? (() => {});
  const rand = seededRandom(opts.seed);
  const env = await startRunEnv();
  const lab = new Lab(env);
  const rows: FaultRow[] = [];
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
      const plan = all[fault];
      let fruitless = 0;
      while (row.injected < opts.each && fruitless < 8 && !opts.signal?.aborted) {
        const name = `t${++trialNo}-${fault}`;
        lab.freshHost();
        const before = lab.hostFiles();
        const file = lab.experiment(name, plan.restartsPerCell, plan.cells, plan.workload);
        let injected = 0;
        const hangs: string[] = [];
        let last: Child | null = null;
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
        const problems = [...hangs, ...check(lab, file, before, last!)];
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
