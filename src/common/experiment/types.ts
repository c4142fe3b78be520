// The experiment document (`*.varlab.json`): the design and, once run, the results.
// The JSON Schema in schema.ts describes the same shape for files on disk.
import type { HostFingerprint } from '../host.js';

export const FORMAT = 'varlab-experiment';
export const CURRENT_VERSION = 3;

export interface ExperimentDoc {
  format: typeof FORMAT;
  version: number;
  name: string;
  description?: string;
  design: Design;
  results?: Results;
}

export type OrderKind = 'random' | 'interleaved' | 'blocked';

export interface Design {
  factors: Factor[];
  /** Cell ids (see cellId in plan.ts) left out of the plan. */
  excludedCells: string[];
  restartsPerCell: number;
  workload: Workload;
  order: OrderKind;
  /** Seed for the random order, so a plan can be reproduced. */
  seed: number;
  /** Idle time before each start (mysqld stopped), held equal so background work (flushing, SSD GC, cooling) is alike for all. */
  idleSeconds: number;
  estimates: Estimates;
  /** `local`, `ssh://[user@]host[:port]`, or an alias from ~/.ssh/config. With `targets`: the first of them. */
  target: string;
  /**
   * Every host the same design runs on at once, when it runs on several (each with its own order and
   * journal; results tagged with their `host`). The first is `target`. Absent: the one host `target`.
   */
  targets?: string[];
  serverProfile?: ServerProfile;
  /** Stop when answered (issue 21): the group-sequential rule of stats/sequential.ts. */
  stopping?: Stopping;
}

export interface Stopping {
  /** The target effect E, in percent: "differs", or "equivalent within ±E %". */
  effect: number;
  /** The family-wise error over all looks and comparisons. */
  alpha: number;
  /** The power the maximum is planned for. */
  power: number;
  /** The most restarts per cell (rounds) the run may take. */
  maxRestartsPerCell: number;
}

export interface Factor {
  /** A tunable id from the catalog. */
  tunable: string;
  /** For the `variable` tunable: the server variable's name. */
  name?: string;
  levels: string[];
}

export interface Query {
  name: string;
  sql: string;
}

export interface Workload {
  kind: 'queries' | 'command';
  /** The database the queries run in; created by the setup script. */
  database: string;
  /** SQL run once before the first restart to create and fill the data. */
  setupSql: string;
  /**
   * Skip the setup when this table already exists in `database`. '' is the user's choice of no table
   * (the Designer's field emptied): the setup runs every time and the Designer proposes none; absent
   * (a file from before that choice was kept), the Designer proposes the setup script's last table.
   */
  setupSkipIfTable?: string;
  queries: Query[];
  /**
   * A data set varlab makes in `database` before the first restart, after the setup script: the
   * DBT-3 tables at a scale factor. Recognised when already loaded; resumed when a load was cut.
   */
  data?: DataSet;
  /** Executions of each query per restart (or runs of the command), warm-up included. */
  repetitions: number;
  /** The first executions of each query per restart, kept but excluded from analysis. */
  warmup: number;
  command?: BenchmarkCommand;
}

export interface DataSet {
  kind: 'dbt3';
  /** TPC-H scale factor, 0.01 to 10 (SF 1: about 6 million lineitem rows). */
  sf: number;
  /** The generator's seed (default 20170116): the same seed, the same rows. */
  seed?: number;
  /** A folder of dbgen `.tbl` files on this machine to load instead of generating rows. */
  folder?: string;
}

export interface BenchmarkCommand {
  /** The command run on the target per repetition; `{socket}`, `{port}`, `{database}`, `{user}` are substituted quoted. */
  line: string;
  parser: 'sysbench' | 'regex';
  /** For `regex`: one capture group holding the figure. */
  regex?: string;
  /** What the figure is: sysbench gives `tps`, `qps`, `latency_avg_ms`, `latency_p95_ms`. */
  metric: string;
  unit: string;
  higherIsBetter: boolean;
}

export interface Estimates {
  /** Seconds for one stop, start, verify and preload. */
  restartSeconds: number;
  /** Milliseconds for one execution, used until the journal measures it. */
  executionMs: number;
}

export interface ServerProfile {
  /**
   * The target this profile starts mysqld on. Required in a file (version 3): a profile saved in a
   * file is never used on another target. Profiles registered per target (sandbox) may leave it out.
   */
  target?: string;
  kind: 'direct' | 'systemd';
  /** Path of mysqld or mariadbd on the target. */
  mysqld: string;
  defaultsFile?: string;
  datadir: string;
  socket: string;
  port: number;
  /** The OS user mysqld runs as (direct launch). */
  osUser?: string;
  /** The account the client logs in as; its password is asked for, never stored. */
  user: string;
  errorLog?: string;
  pidFile?: string;
  extraArgs: string[];
  /** For `systemd`: the unit name. */
  service?: string;
  /** Prefix commands that need root with `sudo -n`. */
  sudo: boolean;
  /** Server builds registered on this target: the levels of the `build` factor. */
  builds?: Build[];
}

/**
 * A server build registered on a target: a mysqld/mariadbd binary (or a wrapper script that execs
 * one) with its own data directory, made by that build. `exe` and `sha256` are what its live
 * process was seen to run when it was registered; every restart of the build is held to them.
 */
export interface Build {
  /** The level that names it: letters, digits, _ . - */
  name: string;
  /** What is started: the binary, or a script that execs it. */
  mysqld: string;
  /** The installation directory it came from (`--build NAME=BASEDIR`), passed as --basedir. */
  basedir?: string;
  /** Its own data directory: two builds never share one. */
  datadir: string;
  /** The resolved /proc/PID/exe of its live process when it was registered. */
  exe: string;
  /** sha256 of that executable's content. */
  sha256: string;
  /** `@@version (@@version_comment)` when it was registered. */
  version?: string;
}

/** A timing is taken where the server offers it; the source says where it came from. */
export type TimingSource = 'performance_schema' | 'profiling' | 'client' | 'sysbench' | 'regex';

export interface TunableCheck {
  tunable: string;
  level: string;
  ok: boolean;
  /** What was read from the live process or server, e.g. `personality 0x0040000`, `ON`. */
  observed: string;
  /** false: set, but nothing on this server reads it back (never counted as verified). */
  verifiable?: false;
}

/** How a check reads to a person: verified, not in effect, or set but not verifiable. */
export function checkWord(c: Pick<TunableCheck, 'ok' | 'verifiable'>): { mark: '✓' | '✗' | '–'; word: string } {
  if (!c.ok) return { mark: '✗', word: 'not in effect' };
  return c.verifiable === false ? { mark: '–', word: 'set, not verifiable' } : { mark: '✓', word: 'verified' };
}

export interface QueryTimings {
  query: string;
  unit: string;
  source: TimingSource;
  /** One value per repetition, in order; warm-up first. */
  values: number[];
  /** The client round trip per repetition, when the value is server-side. */
  client?: number[];
}

/**
 * One `--report-interval` line of a benchmark command (sysbench) as it printed it: the run of the
 * command it belongs to, the seconds since that run began, and the interval's figures.
 */
export interface IntervalRow {
  /** The run (repetition) of the command, from 1; the first `warmup` runs are warm-up. */
  rep: number;
  second: number;
  threads: number;
  tps: number;
  qps: number;
  /** The latency percentile sysbench prints per interval (`--percentile`, 95 by default), in ms. */
  latencyMs?: number;
  percentile?: number;
  errPerSec?: number;
}

/**
 * The steps of a restart whose wall time is journaled (issue 22): stopping mysqld and setting the
 * host, the idle time, starting it until ready (the script, `readyMs` of it the server's own), reading
 * the settings back, the setup or data step (first restart of a datadir), the measuring connection,
 * the preload, detecting the timer, and the measurements themselves.
 */
export const RESTART_STEPS = ['stop', 'idle', 'start', 'verify', 'setup', 'connect', 'preload', 'timer', 'measure'] as const;
export type RestartStep = (typeof RESTART_STEPS)[number];

export interface RestartResult {
  /** Position in the run plan, from 1 (each host of a run on several hosts has its own plan). */
  seq: number;
  cell: string;
  /** The target it ran on, when the design ran on several hosts (the `host` block factor). */
  host?: string;
  /**
   * The run it was measured in, when the design grew after its first run (run --missing): 2, 3…
   * Absent: the first run. Restarts of different parts share no round (they ran at other times).
   */
  part?: number;
  status: 'ok' | 'verify-failed' | 'failed';
  reason?: string;
  startedAt: number;
  finishedAt: number;
  checks: TunableCheck[];
  /** The server profile's own options (`--innodb-buffer-pool-size=512M`) as the live server reported them. */
  options?: TunableCheck[];
  preload?: { tables: number; indexes: number; rows: number; ms: number };
  queries: QueryTimings[];
  /** A benchmark command's interval lines, in the order printed (sysbench with --report-interval). */
  intervals?: IntervalRow[];
  /** Milliseconds each step took (the steps it went through): where a restart's time goes. */
  steps?: Partial<Record<RestartStep, number>>;
  /** What else the target's CPUs did over this restart's measured window (common/noise.ts); absent where it could not be read. */
  noise?: HostNoise;
}

/** The host's noise over a restart's measured window, read from /proc on the target at its two ends. */
export interface HostNoise {
  /** The window's length. */
  seconds: number;
  /** The 1-minute load average at its end. */
  load: number;
  cpus: number;
  /** CPU steal, % of all CPUs' time. */
  stealPct: number;
  /** CPU time of processes other than mysqld and varlab's own, % of all CPUs' time. */
  othersCpuPct: number;
  ctxPerS: number;
  /** The mean current CPU frequency, where the host says (cpufreq). */
  cpuMhz?: number;
}

/**
 * A server timer that is not the exact one, held against the client's round trip at the start of a
 * run: `n` executions of `query` back to back; per execution the client's time less the server's.
 */
export interface TimerVsClient {
  source: TimingSource;
  query: string;
  n: number;
  /** Median of client − server, milliseconds: what the server's figure leaves out (network, driver, its own constant). */
  offsetMs: number;
  /** Standard deviation of client − server, milliseconds. */
  spreadMs: number;
  at: number;
}

/** A statement timer other than performance_schema's exact one, as a run found it (its note is said from these). */
export interface RunTimer {
  /** The host, in results from several hosts. */
  host?: string;
  /** The run of a grown design it was found in (run --missing), as a restart's `part`; absent: the first run. */
  part?: number;
  source: TimingSource;
  /** Why the exact timer was not the one. */
  why: string;
  vsClient?: TimerVsClient;
}

export interface Results {
  host?: HostFingerprint;
  startedAt?: number;
  finishedAt?: number;
  /**
   * The timer note in words (common/timer-note.ts timerNoteText; on several hosts each host's, as
   * `HOST: NOTE`, joined by "; "), for people who read the file. varlab reads `timers`; only a file
   * written before those has nothing else.
   */
  timerNote?: string;
  /** A timer that is not performance_schema's, against the client's round trip at the start of the run (results from one host). */
  timerVsClient?: TimerVsClient;
  /** The timer each host (and each run of a grown design) measured with when it was not the exact one, as the run found it: what the note says. */
  timers?: RunTimer[];
  /** Restarts thrown away and run again (interrupted mid-way), kept for the record. */
  discarded?: { seq: number; cell: string; reason: string; at: number; host?: string }[];
  /** Stop when answered (design.stopping): the look at which the run stopped before its maximum, and why; one per host that did. */
  stopped?: StoppedAnswered[];
  /**
   * The data step of each data directory the run set up (records.ts `data`): what a detached run's launch
   * loaded before its runner's restarts, which those restarts' `setup` step does not hold; the planner
   * counts it with the set-up of its data directory (stats/planner.ts measuredCosts).
   */
  dataSteps?: DataStepResult[];
  /** What the run that last wrote these results said (its log, as the Run view showed it live); the first and newest lines of a long one (records.ts LOG_KEPT). */
  log?: RunLogLine[];
  restarts: RestartResult[];
}

/**
 * A data step as the file keeps it: when it ended, its milliseconds, its build's data directory (absent:
 * the profile's own), and what it loaded or recognised: the journal's `data` record whole, so the file a
 * teammate receives says which data the numbers were measured on. Files written before it was kept hold
 * the first five fields only (the rest are optional for them).
 */
export interface DataStepResult {
  at: number;
  ms: number;
  datadir?: string;
  recognised: boolean;
  host?: string;
  database?: string;
  sf?: number;
  seed?: number;
  /** Where the rows came from: varlab's generator, or a folder of .tbl files. */
  source?: string;
  /** Chunks of a cut load it went on from. */
  resumedChunks?: number;
  /** Rows per table, as counted after the load (or found, when recognised). */
  rows?: Record<string, number>;
  method?: 'load-data-local' | 'insert';
  /** Each check query's result: its rows and checksum, and whether they are the expected ones. */
  checks?: DataCheck[];
}

/** One query run once after the load, its result checked against the expected one when known. */
export interface DataCheck {
  query: string;
  rows: number;
  checksum: string;
  expected: boolean;
  ms: number;
}

/** One line of a run's log; `host` in a run on several hosts. */
export interface RunLogLine {
  at: number;
  level: 'info' | 'warn' | 'error';
  message: string;
  host?: string;
}

/** A run that stopped at a look of its stopping rule because every comparison was decided. */
export interface StoppedAnswered {
  /** The round (restarts per cell) of the look. */
  round: number;
  because: string;
  at: number;
  host?: string;
}
