// The contract between the run engine and the host layer. The engine sees a target only through these.
import type { Duplex } from 'node:stream';
import type { Connection } from 'mysql2/promise';
import type { Prompt, PromptAnswer, TargetAuth } from '../../common/api.js';
import type { Factor, RestartResult, ServerProfile, TunableCheck } from '../../common/experiment/types.js';
import type { HostFingerprint } from '../../common/host.js';
import type { RestartProcedure } from '../../common/restart.js';
import type { HostPaths, Script } from './script.js';

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Ask the person at the keyboard (UI dialog or terminal prompt). */
export type Prompter = (prompt: Omit<Prompt, 'id'>) => Promise<Omit<PromptAnswer, 'id'>>;

export interface OpenTargetOptions {
  auth?: TargetAuth;
  prompt: Prompter;
  /** Where host files and restore records are on the target (tests use a temporary tree). */
  paths?: Partial<HostPaths>;
}

/** An open connection to a target: the machine varlab runs on (`local`) or one reached over SSH. */
export interface TargetSession {
  readonly target: string;
  readonly isLocal: boolean;
  /** Run one command line through the target's shell. Every value in it must already be validated and quoted. */
  exec(command: string, opts?: { timeoutMs?: number; input?: string; onStdout?: (chunk: string) => void }): Promise<ExecResult>;
  /** A byte stream to mysqld on the target: its unix socket when the profile has one, else its TCP port. */
  connectStream(profile: ServerProfile): Promise<Duplex>;
  /** Called once if the connection drops by itself (not on close()). */
  onDrop(listener: (err: Error) => void): () => void;
  /**
   * A process on the target that lives as long as this session does ("PID START BOOT", as PROC_IS
   * reads them), or null when none can be had. A run's lock names it, so that a run of another
   * machine whose connection is gone (its varlab killed) is seen to hold nothing at once, not after
   * the stale time (issue 24, item 7).
   */
  anchor(): Promise<string | null>;
  close(): Promise<void>;
}

export interface StartedServer {
  pid: number;
  /** Epoch ms when the start command was issued, and ms until it accepted connections. */
  startedAt: number;
  readyMs: number;
  /** One check per factor: what was read back from the live process or server. */
  checks: TunableCheck[];
  /** The server profile's own options (`--innodb-buffer-pool-size=512M`) read back on the live server. */
  options: TunableCheck[];
  /** The facts the checks were judged from, by factKey (a build's exe and version when it is registered). */
  facts: Record<string, string | null>;
  /** Milliseconds of the restart's steps this call went through: stopping and setting the host, the start until ready, reading the settings back. */
  steps: Pick<NonNullable<RestartResult['steps']>, 'stop' | 'start' | 'verify'>;
}

export interface RunHooks {
  /** Spend the idle time (milliseconds) with mysqld stopped; throws to give the restart up (a cancel). */
  idle?: (ms: number) => Promise<void>;
  /**
   * Keep the verify step's login open: the next connect() to this mysqld takes it over (COM_CHANGE_USER
   * to its account and database, none when it is that login already) instead of logging in again.
   * Anything else the control does closes it.
   */
  keepLogin?: boolean;
  /**
   * With keepLogin: the account and database the verify step logs in as (the measuring account, which
   * may read the global variables and the performance_schema consumers), so that the next connect()
   * as that same login takes it over as it is, without a switch. The profile's account when it is
   * refused, or without it.
   */
  verifyAs?: { user: string; password: string; database: string };
}

/** How mysqld is started, stopped, verified and the host restored, for one target and server profile. */
export interface ServerControl {
  /** The probed host the procedures are computed for (probed once, on first use). */
  host(): Promise<HostFingerprint>;
  /** The restart procedure for a cell: computed once, then run, shown (dry run) or compiled. */
  procedure(factors: Factor[], levels: Record<string, string>, extra?: { schemas?: string[]; workload?: boolean; idleSeconds?: number }): Promise<RestartProcedure>;
  /** The one script the procedure's target steps run as (or a part of them, around its idle step): what the dry run prints. */
  script(proc: RestartProcedure, part?: 'down' | 'up'): Promise<Script>;
  /**
   * Run the procedure's restart: one remote call (stop, restore, set, start, wait until ready, read facts),
   * then one query for the variables. With an idle step and `hooks.idle`, two calls with the idle between
   * them, spent by the caller (a cancel ends it at once); without, the idle is a sleep in the one call.
   */
  run(proc: RestartProcedure, hooks?: RunHooks): Promise<StartedServer>;
  /** procedure() then run(). */
  restart(factors: Factor[], levels: Record<string, string>): Promise<StartedServer>;
  stop(): Promise<void>;
  /** Put back every host-wide setting varlab changed, from the restore record on the host. */
  restore(): Promise<void>;
  /** A new client connection to the running server: as the profile's account, or as `as` (the measurement account). */
  connect(database?: string, as?: { user: string; password: string }): Promise<Connection>;
  /**
   * When `conn` is the verify step's login, handed over as it was by the last connect() (RunHooks.verifyAs),
   * the exact timer's probe its read back took (queries.ts exactTimerFromProbe), once; else undefined.
   */
  timerProbe?(conn: Connection): string | undefined;
}
