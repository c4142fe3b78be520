// The one API contract between a front end (the React UI, over Electron IPC or a WebSocket)
// and the backend (`createBackend()` in src/node). Every request is `method(args) → result`,
// every push is an event. Messages are JSON-safe: epoch milliseconds, plain arrays and objects.
import type { HostCheckItem } from './host-check.js';
import type { ExperimentDoc, ServerProfile, TunableCheck } from './experiment/types.js';
import type { RunEvent } from './events.js';
import type { HostFingerprint } from './host.js';
import type { TrustCheck } from './trust.js';

/** Failures travel as values, never as thrown IPC errors. */
export type Ok<T> = { ok: true; value: T };
export type Fail = { ok: false; code: ErrorCode; message: string; details?: FailDetails };
export type Result<T> = Ok<T> | Fail;

export type ErrorCode =
  | 'invalid-argument' // the request itself is malformed
  | 'invalid-file' // an experiment file does not parse or validate
  | 'secret-in-file' // refused: a password, passphrase or private key would be saved
  | 'not-found'
  | 'io' // the disk said no
  | 'unsupported' // this transport or platform cannot do it (e.g. native dialogs in browser mode)
  | 'host-key-changed'
  | 'host-key-rejected'
  | 'auth'
  | 'connection'
  | 'sudo'
  | 'verify-failed'
  | 'start-failed' // mysqld did not start for a reason that will repeat (no binary, a refused option, permissions): not retried
  | 'busy'
  | 'cancelled'
  | 'already-finished' // run.start on a file whose run finished, without fresh: true (its results would be replaced)
  | 'needs-consent' // the file would run commands beyond the built-in tunables the user has not agreed to on this target
  | 'path-refused' // a file or folder the request may not touch: varlab's own state, ~/.ssh, or (desktop app) not picked by the user
  | 'conflict' // experiment.save: the file changed on disk since the revision the save was based on
  | 'results-at-stake' // experiment.save: the design of a file with results would change; the user chooses (details.resultsAtStake)
  | 'design-changed' // run.start: the file's design differs from its unfinished journal's; start over or resume (details.designChanged)
  | 'timeout' // the request did not answer within its deadline (the backend goes on answering others)
  | 'internal';

/** What a refusal needs to offer the user a choice, beside its message. */
/** Stop when answered, asked for when a run starts: what it leaves out comes from the file's design.stopping. */
export interface UntilAnswered {
  /** The target effect E, in percent. */
  effect?: number;
  /** The most restarts per cell. */
  maxRestarts?: number;
}

export interface FailDetails {
  resultsAtStake?: ResultsAtStake;
  designChanged?: DesignChanged;
  /** needs-consent: the list the run would need agreed to (of the design as it would run, a journal's included). */
  consent?: TrustCheck;
  /** start-failed: the failure will happen again the same way (no binary, a refused option, permissions). */
  repeats?: boolean;
  /** needs-consent on run.attach or run.detachedStatus: a detached run this computer did not launch, its target(s) and the journal(s) that record it; the request names `target` once the user agreed. */
  follow?: { target: string; journals: string[] };
}

/** A save that would leave measurements behind: how many, and where they would be kept. */
export interface ResultsAtStake {
  path: string;
  restarts: number;
  executions: number;
  /** The copy of the file on disk (with its results) made if the user chooses to keep them beside it. */
  keepResultsAs: string;
  /** What the edit changes in the design, one line each. */
  changes: string[];
  /**
   * The edit removes some cells or queries only: `restarts` (whole) and `trimmed` (some queries' timings)
   * move to the copy, `staying` stay in the file. Absent: every restart moves.
   */
  moving?: { restarts: number; trimmed: number; staying: number };
}

/** The file's design is not the one its unfinished journal was started with. */
export interface DesignChanged {
  path: string;
  restartsDone: number;
  restartsPlanned: number;
  changes: string[];
  journal: string;
}

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
export const fail = (code: ErrorCode, message: string, details?: FailDetails): Fail => (details ? { ok: false, code, message, details } : { ok: false, code, message });

/**
 * The largest request or event a transport carries (bytes of JSON). The browser-mode server refuses
 * bigger WebSocket messages (ws buffers a whole message before parsing it), and the client says so
 * instead of sending them. 32 MiB holds a document with hundreds of thousands of executions.
 */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** An error that knows its API code; the backend turns it into a `Fail`. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FailDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface AppInfo {
  version: string;
  transport: 'electron' | 'websocket';
  platform: string;
  /** Where the user's home is, for suggesting paths in browser mode. */
  home: string;
  /**
   * The folder varlab keeps experiments in: the quickstart's (~/varlab, or VARLAB_HOME/experiments when
   * that is set). Save As of a file that has no path yet starts there.
   */
  documents: string;
  /** Whether a password or passphrase can be kept when the user asks: only the desktop app has a keychain; 'plain-text' is one that does not really encrypt (Linux without a secret service). */
  keychain: 'encrypted' | 'plain-text' | 'none';
}

export interface OpenedExperiment {
  /** Absolute path, or null for an unsaved document (an example, a dropped file in browser mode). */
  path: string | null;
  doc: ExperimentDoc;
  /** The content hash of the file on disk this document was read from (null when not from a file). */
  revision: string | null;
  /** Messages about what was migrated from an older version, shown once. */
  notices: string[];
  /** A journal beside the file holds restarts the file does not: the run can be resumed. */
  unfinishedRun?: { restartsDone: number; restartsPlanned: number };
}

export interface SaveResult {
  path: string;
  savedAt: number;
  revision: string;
  /** What is now in the file (a labels-only edit keeps the results on disk): the document to show. */
  doc: ExperimentDoc;
  /** Where results went when the user chose to keep them in a copy. */
  note?: string;
}

/**
 * experiment.save's way past a refusal, chosen by the user: `keep-results-copy` moves the results on
 * disk into the `…results-….varlab.json` copy before writing the new design; `overwrite` saves over a
 * file that changed on disk since it was loaded (its measurements are still never dropped unasked).
 */
export type SaveChoice = 'keep-results-copy' | 'overwrite';

/** An open experiment file changed on disk: a run saved results, a Save, or another program wrote it. */
export interface DocumentChanged {
  path: string;
  revision: string;
  cause: 'run' | 'save' | 'external';
  /** The document now in the file, or null when it does not parse (problems say why). */
  doc: ExperimentDoc | null;
  problems: string[];
}

/**
 * The transport's own state, told by the client side: `connecting` until a first connection is made
 * (a tab that never had one), `reconnecting` while one that was lost is being restored.
 */
export interface TransportState {
  state: 'connected' | 'connecting' | 'reconnecting';
  /** Attempts so far. */
  attempt?: number;
  /**
   * Why the attempts fail, once the page's own server was asked: it answers but refuses this tab's
   * connection (`refused`: the tab's token is of another launch), or nothing answers (`unreachable`).
   */
  why?: 'refused' | 'unreachable';
}

/** A question the backend needs a person to answer (host keys, passwords). */
export interface Prompt {
  id: string;
  kind: 'host-key' | 'password' | 'passphrase' | 'confirm';
  title: string;
  message: string;
  /** For host keys: `SHA256:…`. */
  fingerprint?: string;
}
export type PromptAnswer = { id: string; accept: boolean; secret?: string; remember?: boolean };

export interface TargetAuth {
  /** Path of a private key file on the machine varlab runs on. */
  identity?: string;
  /** An extra known_hosts file, checked besides ~/.ssh/known_hosts and varlab's own. */
  knownHosts?: string;
  /** Trust an unknown host key without asking (never a changed one). */
  acceptNewHostKey?: boolean;
}

export interface DryRun {
  /** The server profile the commands are for (from the file, or registered for the target by `varlab sandbox create`). */
  profile: ExperimentDoc['design']['serverProfile'] | null;
  /** Why there are no commands (no profile, an invalid level...). */
  problem?: string;
  /** Per included cell: its levels, the one script its restart runs on the target (exactly as the run sends it), then the server-side steps. */
  cells: { cell: string; levels: Record<string, string>; commands: string[] }[];
}

export interface EventBatch {
  runId: string;
  /** Increases by one per batch; a client that reconnects asks for batches after the last it saw. */
  seq: number;
  events: RunEvent[];
  /** Rebuilt from the journal: the whole run up to seq (a client starts its view afresh from it). */
  snapshot?: boolean;
}

export interface RunStatus {
  runId: string;
  path: string;
  state: 'running' | 'paused' | 'finished' | 'failed' | 'cancelled';
  lastSeq: number;
  /** A detached run (issue 14): where it runs, and whether this process follows it now (its events arrive). */
  detached?: {
    target: string;
    following: boolean;
    /** Several hosts: a host whose runner did not start when the run was detached, and why (the others went on). */
    notStarted?: { target: string; message: string }[];
  };
}

/** Where a detached run is (run.detachedStatus, `varlab status`): looked at on its target. */
export interface DetachedStatus {
  path: string;
  runId: string;
  target: string;
  /** `gone`: the run's directory is not on the target (removed by hand), and its end never reached this journal. */
  state: 'running' | 'finished' | 'failed' | 'cancelled' | 'gone';
  planned: number;
  /** Restarts finished, on the target (some may not be in the file yet). */
  done: number;
  /** The restart running now, counted as the user counts: done + 1 (while running). */
  current?: number;
  message?: string;
  /** Every measurement of the run is in the local journal (attach saves it into the file). */
  imported: boolean;
  /**
   * A design detached on several hosts: each host's own status (the top fields are the run's as a
   * whole: its id, the targets joined with `, `, restarts summed; running while any host is).
   */
  hosts?: DetachedStatus[];
  /** Several hosts: a host that could not be looked at now, and why (its run may go on). */
  unreachable?: { target: string; message: string }[];
  /** Several hosts: hosts of the design whose runner never started (`varlab run FILE` runs them once the others ended). */
  notStarted?: string[];
}

/** An unfinished file's detached run, from its journal(s) alone: where, where it is recorded, and whether this computer launched it (then the app follows it by itself). */
export interface DetachedHere {
  target: string;
  journals: string[];
  launchedHere: boolean;
}

/** run.check: a finished run is not run again unless the user asks (fresh), and is told where its results stay. */
export type RunCheck =
  | {
      finished: false;
      /** detached: the unfinished run is detached on that target, its end not brought in yet (it is followed, not resumed). */
      unfinished?: {
        restartsDone: number;
        restartsPlanned: number;
        designChanges: string[];
        detached?: DetachedHere;
        /** On several hosts, each host's own count (each runs the whole design): what resuming takes is the slowest host's. */
        hosts?: { host: string; restartsDone: number; restartsPlanned: number }[];
        /** How its last attempt ended, when it failed or was cancelled (the journal's end: why it stopped, maybe before its first restart), as a sentence ("It failed: …"); several hosts: each such host's, named ("On ssh://a it failed: …; on …"). */
        ended?: string;
      };
    }
  | {
      finished: true;
      restartsDone: number;
      restartsPlanned: number;
      keepResultsAs: string;
      /** The design grew since (cells added, more restarts per cell): what a run of only the missing restarts would do (run.start with missing). */
      missing?: { cells: number; restarts: number; sentence: string };
    };

/** What `local.readiness` finds on the machine varlab runs on. */
export interface LocalReadiness {
  /** The server binary a sandbox would use, or null when none is installed. */
  mysqld: string | null;
  flavor: 'mariadb' | 'mysql' | null;
  /** First line of `mysqld --version`. */
  version: string | null;
  /** When there is no binary: one sentence saying what to install on this operating system. */
  installHint: string | null;
}

export interface QuickstartPrepared {
  /** The saved copy of the quickstart, for run.start. */
  path: string;
  sandboxDir: string | null;
  createdSandbox: boolean;
}

/** A server profile varlab keeps for a target: how to start mysqld there (a sandbox varlab made, or a server the user registered). */
export interface HostProfile extends ServerProfile {
  /** Set for sandboxes: the throwaway directory holding everything. */
  sandboxDir?: string;
  createdAt?: number;
}

/** One host of the Hosts view's list: where it is, what the last probe found, how mysqld is started there. */
export interface HostEntry {
  target: string;
  /** Key file and known_hosts file used with it (paths on this machine; never a secret). */
  auth?: Pick<TargetAuth, 'identity' | 'knownHosts'>;
  addedAt: number;
  lastProbe: HostFingerprint | null;
  profile: HostProfile | null;
}

/** What `sandbox create` is asked for, from the CLI or the Hosts view. */
export interface SandboxRequest {
  target: string;
  auth?: TargetAuth;
  /** Parent directory on the target (default /var/tmp). */
  parent?: string;
  port?: number;
  /** innodb_buffer_pool_size: 512M, 2G. */
  bufferPool?: string;
  /** Server options NAME=VALUE, set at every start. */
  options?: string[];
  /** Remove the target's sandbox (or forget its registered server) first. */
  replace?: boolean;
  /** Server builds NAME=PATH (binary, wrapper script or installation directory), each with its own data directory. */
  builds?: string[];
}

/** A restart of the registered server with no factor, its own options read back, then stopped. */
export interface ServerCheck {
  pid: number;
  readyMs: number;
  /** The profile's server options as the live server reports them. */
  options: TunableCheck[];
}

/** Every request: its arguments and its result. */
export interface Requests {
  'app.info': { args: Record<string, never>; result: AppInfo };
  'experiment.example': { args: { name: string }; result: OpenedExperiment };
  'experiment.open': { args: { path: string }; result: OpenedExperiment };
  /** Open from text the UI already holds (a file dropped onto a browser window). */
  'experiment.parse': { args: { name: string; text: string }; result: OpenedExperiment };
  /** Save `doc` to `path`; `baseRevision` is the revision it was based on (null: a new file). */
  'experiment.save': { args: { path: string; doc: ExperimentDoc; baseRevision?: string | null; choice?: SaveChoice }; result: SaveResult };
  /** The UI no longer shows this file: stop watching it. */
  'experiment.close': { args: { path: string }; result: null };
  'experiment.recent': { args: Record<string, never>; result: string[] };
  'experiment.readSql': { args: { path: string }; result: { name: string; sql: string } };
  /** A native file dialog (desktop app only); `folder`: choose a folder to write into (an export). What it returns counts as picked. */
  'dialog.open': { args: { title?: string; extensions: string[]; folder?: boolean }; result: string | null };
  'dialog.save': { args: { title?: string; suggested: string; extensions: string[] }; result: string | null };
  'host.probe': { args: { target: string; auth?: TargetAuth }; result: HostFingerprint };
  /** What makes the host noisy for benchmarks, with advice (`varlab probe --check`): read-only, with a one-second sample. */
  'host.check': { args: { target: string; auth?: TargetAuth }; result: { host: HostFingerprint; check: HostCheckItem[] } };
  /** --dry-run: the commands each cell's restart would run on the target, run none. */
  'host.dryRun': { args: { design: ExperimentDoc['design']; target?: string; auth?: TargetAuth }; result: DryRun };
  /** The Hosts view's list: every host added or probed, with its server profile. */
  'host.list': { args: Record<string, never>; result: HostEntry[] };
  /** Probe a target and keep it in the list (with its key files), or refresh its last probe. */
  'host.add': { args: { target: string; auth?: TargetAuth }; result: HostEntry };
  /** Drop a host from the list (refused while a sandbox or server profile is registered for it). */
  'host.forget': { args: { target: string }; result: null };
  /** Make (or reuse) the target's sandbox; refused by name when a different one exists, unless replace. */
  'sandbox.create': { args: SandboxRequest; result: { entry: HostEntry; reused: boolean; replaced: HostProfile | null } };
  /**
   * Add builds (NAME=PATH) to the target's sandbox, each with its own data directory made by it, the
   * others left as they are; a target without a sandbox gets one made with them (`made`).
   */
  'sandbox.addBuilds': { args: { target: string; auth?: TargetAuth; builds: string[] }; result: { entry: HostEntry; made: boolean } };
  /** Remove one build from the target's sandbox: its data directory deleted, its registration gone. */
  'sandbox.removeBuild': { args: { target: string; auth?: TargetAuth; name: string }; result: HostEntry };
  /** Stop the target's sandbox, delete its directory and its profile. */
  'sandbox.remove': { args: { target: string; auth?: TargetAuth }; result: HostEntry };
  /** Register an existing server (direct launch or a systemd unit) as the target's server profile. */
  'profile.register': { args: { target: string; profile: ServerProfile; replace?: boolean; auth?: TargetAuth }; result: HostEntry };
  /** Forget the target's registered server (its data is left alone). */
  'profile.unregister': { args: { target: string }; result: HostEntry };
  /** Start the target's server as a run would (no factor), read its own options back on the live server, stop it. */
  'server.check': { args: { target: string; auth?: TargetAuth }; result: ServerCheck };
  'prompt.answer': { args: PromptAnswer; result: null };
  /**
   * Start (or resume) the run of a file. Refused with a reason before anything runs (already-finished,
   * needs-consent, design-changed, busy…); once started, every failure arrives as a run-finished event.
   * fresh: start over (a finished or unfinished run's results are kept in a copy, its journal archived);
   * resume: go on with the unfinished journal's design although the file's design changed.
   */
  'run.start': { args: { path: string; target?: string; auth?: TargetAuth; resume?: boolean; fresh?: boolean; /** Run only what the file's results miss (a grown design): run --missing. */ missing?: boolean; /** Keep running when this computer sleeps: the run goes on on its target (issue 14); this process follows it while it can. */ detach?: boolean; /** Stop when answered (the Run view's control): the rule's target effect and maximum, else the file's design.stopping; false: run the file's fixed design although it has a rule. */ untilAnswered?: UntilAnswered | false }; result: RunStatus };
  /** Follow the file's detached run (its events arrive as run.batch; its results reach the file when it has ended). */
  'run.attach': { args: { path: string; /** The target the user agreed to connect to (a run this computer did not launch: see FailDetails.follow). */ target?: string }; result: RunStatus };
  /** Stop following a detached run: it goes on on its target. */
  'run.stopFollowing': { args: { runId: string }; result: RunStatus };
  /** Where the file's detached run is, looked at on its target (writes nothing); null when the file has none. */
  'run.detachedStatus': { args: { path: string; /** As for run.attach. */ target?: string }; result: DetachedStatus | null };
  /** Has this file's run finished (and where its results are kept if it is run again from scratch), or is one unfinished? */
  'run.check': { args: { path: string; target?: string }; result: RunCheck };
  'run.pause': { args: { runId: string }; result: RunStatus };
  'run.resume': { args: { runId: string }; result: RunStatus };
  /** Cancel a run: one of this process, a followed detached run (stopped on its target), or a detached launch (its id from run.launch) before its runner started. */
  'run.cancel': { args: { runId: string }; result: RunStatus };
  'run.status': { args: Record<string, never>; result: RunStatus[] };
  /**
   * Batches after `afterSeq`, for a client that reconnected. When they are no longer kept in memory,
   * one batch rebuilt from the journal on disk (`snapshot: true`) replaces everything up to its seq.
   */
  'run.events': { args: { runId: string; afterSeq: number }; result: EventBatch[] };
  /** Export: write bytes the UI produced (a plot image) to a path the user chose. */
  'export.writeFile': { args: { path: string; base64: string }; result: { path: string } };
  /** Export: every plot of an experiment (a saved file, or the document the UI holds) rendered headless into dir. */
  'export.plots': { args: { path?: string; doc?: ExperimentDoc; dir: string; scale?: number; format?: 'png' | 'svg'; warmup?: number; baseline?: string; alpha?: number; adjustment?: 'holm' | 'bh'; acrossRuns?: boolean }; result: { files: string[] } };
  /** Export: executions.csv, restarts.csv and summary.csv into dir (and intervals.csv when the restarts have sysbench interval lines). */
  'export.csv': { args: { path?: string; doc?: ExperimentDoc; dir: string; warmup?: number; baseline?: string; alpha?: number; adjustment?: 'holm' | 'bh'; acrossRuns?: boolean }; result: { files: string[] } };
  /** Teammates' files: what a file would run beyond the built-in tunables, and whether the user agreed for this target. */
  /** With a path: the experiment as a run of it would run (resume/fresh as run.start takes them: a journal's design, the profile it would use). */
  'trust.check': { args: { path?: string; doc?: ExperimentDoc; target?: string; resume?: boolean; fresh?: boolean }; result: TrustCheck };
  /** digest: the TrustCheck digest of the list the user was shown; granted only when the list is still that one (else refused with the new list in details.consent). */
  'trust.grant': { args: { path?: string; doc?: ExperimentDoc; target?: string; resume?: boolean; fresh?: boolean; digest: string }; result: TrustCheck };
  /** First run on this machine: is a mysqld or mariadbd installed, and if not what to install. */
  'local.readiness': { args: Record<string, never>; result: LocalReadiness };
  /** Make (or reuse) the sandbox on `local` and save a short quickstart copy in dir (default ~/varlab); starts nothing. */
  'local.quickstart': { args: { dir?: string; port?: number }; result: QuickstartPrepared };
}

/**
 * A detached run's launch, for the file at `path` (absolute): first its run id alone, as soon as the
 * launch is admitted (run.cancel with it stops the launch: the data step ends at its next chunk,
 * mysqld is stopped and the host restored, and run.start answers `cancelled`); then its progress.
 */
export interface LaunchProgress {
  path: string;
  runId: string;
  event?: Extract<RunEvent, { type: 'data-progress' }>;
}

/** Every push from the backend. */
export interface Events {
  'run.batch': EventBatch;
  /**
   * Before a detached run exists: its id, then what its launch does here first, to the client that asked
   * (the DBT-3 data step runs over this computer's connection before the runner takes over, minutes at a big SF).
   */
  'run.launch': LaunchProgress;
  prompt: Prompt;
  'document.changed': DocumentChanged;
  /** Emitted by the client's transport itself (never by the backend): connected, or reconnecting. */
  transport: TransportState;
}

export type Method = keyof Requests;
export type EventName = keyof Events;
export type ArgsOf<M extends Method> = Requests[M]['args'];
export type ResultOf<M extends Method> = Requests[M]['result'];

/** The allow-list both transports check: a name not here is refused before it reaches the backend. */
export const METHODS = [
  'app.info',
  'experiment.example',
  'experiment.open',
  'experiment.parse',
  'experiment.save',
  'experiment.close',
  'experiment.recent',
  'experiment.readSql',
  'dialog.open',
  'dialog.save',
  'host.probe',
  'host.check',
  'host.dryRun',
  'host.list',
  'host.add',
  'host.forget',
  'sandbox.create',
  'sandbox.addBuilds',
  'sandbox.removeBuild',
  'sandbox.remove',
  'profile.register',
  'profile.unregister',
  'server.check',
  'prompt.answer',
  'run.start',
  'run.pause',
  'run.resume',
  'run.cancel',
  'run.status',
  'run.check',
  'run.events',
  'run.attach',
  'run.stopFollowing',
  'run.detachedStatus',
  'export.writeFile',
  'export.plots',
  'export.csv',
  'trust.check',
  'trust.grant',
  'local.readiness',
  'local.quickstart',
] as const satisfies readonly Method[];

/**
 * Every method of the contract is in METHODS: one added to Requests and not here does not compile
 * (naming it), rather than being refused by both transports as "unknown method" at run time.
 */
export const METHODS_COMPLETE: [Exclude<Method, (typeof METHODS)[number]>] extends [never] ? true : { notInMethods: Exclude<Method, (typeof METHODS)[number]> } = true;

/** The events the backend pushes (the transport event is the client's own). */
export const EVENTS = ['run.batch', 'run.launch', 'prompt', 'document.changed'] as const satisfies readonly EventName[];

export function isMethod(name: unknown): name is Method {
  return typeof name === 'string' && (METHODS as readonly string[]).includes(name);
}
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (EVENTS as readonly string[]).includes(name);
}

/** What the backend implements and every transport carries. */
export interface Backend {
  call<M extends Method>(method: M, args: ArgsOf<M>, origin?: CallOrigin): Promise<Result<ResultOf<M>>>;
  /** `to`: the one client an event is meant for (a question asked for its request); absent: every client. */
  on<E extends EventName>(event: E, listener: (payload: Events[E], to?: string) => void): () => void;
}

/** Who asked: the backend sends the questions a request raises (host keys, passwords) to this client only. */
export interface CallOrigin {
  clientId: string;
}

/** What the UI holds: the same shape whichever transport carries it. */
export interface Client {
  call<M extends Method>(method: M, args: ArgsOf<M>): Promise<Result<ResultOf<M>>>;
  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void;
  readonly transport: 'electron' | 'websocket';
}
