// The contract between the run engine and the host layer. The engine sees a target only through these.
import type { Duplex } from 'node:stream';
import type { Connection } from 'mysql2/promise';
import type { Prompt, PromptAnswer, TargetAuth } from '../../common/api.js';
import type { Factor, ServerProfile, TunableCheck } from '../../common/experiment/types.js';

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
  close(): Promise<void>;
}

export interface StartedServer {
  pid: number;
  /** Epoch ms when the start command was issued, and ms until it accepted connections. */
  startedAt: number;
  readyMs: number;
  /** One check per factor: what was read back from the live process or server. */
  checks: TunableCheck[];
}

/** How mysqld is started, stopped, verified and the host restored, for one target and server profile. */
export interface ServerControl {
  /** Stop mysqld if it runs (waiting until the process has exited), apply the cell's tunables, start it through the wrapper they compose, wait until it accepts connections, verify every tunable. */
  restart(factors: Factor[], levels: Record<string, string>): Promise<StartedServer>;
  stop(): Promise<void>;
  /** Put back every host-wide setting varlab changed, from the restore record on the host. */
  restore(): Promise<void>;
  /** A new client connection to the running server. */
  connect(database?: string): Promise<Connection>;
}
