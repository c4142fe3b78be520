// ServerControl: a restart is one remote call. The procedure (computed once from the levels, the
// profile and the probed host) becomes one script that stops mysqld, puts back and sets host files,
// starts mysqld through the tunables' wrapper, waits on the target until it listens and reads the
// facts; then one server query reads the variables, and every level is judged from the facts.
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';
import type { Factor, HostNoise, ServerProfile, TunableCheck } from '../../common/experiment/types.js';
import { noiseWindow, type NoiseSample } from '../../common/noise.js';
import type { HostFingerprint } from '../../common/host.js';
import { checkProfile } from '../../common/profile.js';
import { restartProcedure, verifyCell, type RestartProcedure } from '../../common/restart.js';
import { sameValue } from '../../common/tunables/registry.js';
import { probeHost } from './probe.js';
import { hostDir, restoreHost, runScript } from './restore.js';
import { hostPaths, parseReply, restartScript, stopScript, type HostPaths, type Reply, type Script } from './script.js';
import { asRoot, sudoRefused, sudoWantsPassword } from './shell.js';
import { TIMER_PROBE_NAME, TIMER_PROBE_ROW } from '../workloads/queries.js';
import type { Prompter, RunHooks, ServerControl, StartedServer, TargetSession } from './types.js';

/**
 * Close a client connection without waiting on a dead one: a connection whose server died (or whose
 * stream was cut) never answers the QUIT that end() sends, and end() would wait forever.
 */
export async function closeConnection(conn: Connection): Promise<void> {
  const state = (conn as unknown as { connection?: { state?: string } }).connection?.state;
  if (state === 'error' || state === 'disconnected') {
    conn.destroy();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([conn.end().catch(() => {}), new Promise((r) => (timer = setTimeout(r, 5_000)))]);
  clearTimeout(timer);
  conn.destroy();
}

export interface ServerControlOptions {
  /** The client account's password, if it has one; asked through `prompt` when needed, kept in memory only. */
  password?: string;
  prompt?: Prompter;
  /** The probed host; probed on first use when not given. */
  host?: HostFingerprint;
  /** Where host files and restore records are on the target (tests use a temporary tree). */
  paths?: Partial<HostPaths>;
  startTimeoutS?: number;
  stopTimeoutS?: number;
  /**
   * The host's noise over a window this control saw whole: from the counters a start read once mysqld
   * was ready to the ones the next call (a restart's, or the stop's) read before anything else. The
   * caller knows which restart measured in it.
   */
  onWindow?: (noise: HostNoise) => void;
}

/**
 * The one line that says why mysqld did not start, from what the script reported and the new lines
 * of its error log: the first [ERROR] line, or nohup's own complaint, else the script's message.
 */
export function startCause(reply: Pick<Reply, 'fail' | 'log'>): string {
  const error = reply.log.find((l) => /\[ERROR\]/.test(l) && !/Aborting|Unknown\/unsupported storage engine/.test(l)) ?? reply.log.find((l) => /failed to run command|No such file or directory|Permission denied/.test(l));
  return (error ?? reply.fail?.message ?? 'no reason given').replace(/^.*?\[ERROR\]\s+(\[[^\]]*\]\s+){0,2}/, '').trim();
}

/**
 * Failures that will happen again the same way, so retrying them only repeats the message: the restart
 * script's failures of these kinds, or a server log line like these (case aside). Data, so the
 * detached runner's script tests the very same (detach/runner.ts).
 */
export const REPEATING_START_FAILURES = {
  kinds: ['no-binary', 'no-datadir', 'no-tool', 'no-allocator', 'set', 'record', 'systemd', 'drop-caches'],
  /** A POSIX extended regular expression, matched without case. */
  log: String.raw`unknown (variable|option)|Permission denied|failed to run command|No such file or directory|Can't (create|open)|errno: 13|Incorrect .* value|Could not open required defaults file`,
} as const;
const REPEATING_LOG = new RegExp(REPEATING_START_FAILURES.log, 'i');

export function startFailureRepeats(reply: Pick<Reply, 'fail' | 'log'>): boolean {
  if (reply.fail && (REPEATING_START_FAILURES.kinds as readonly string[]).includes(reply.fail.kind)) return true;
  return reply.log.some((l) => REPEATING_LOG.test(l));
}

/** Why a restart script failed, as the one error the run reports (the cause first, then the new log lines). */
export function startFailure(target: string, profile: ServerProfile, sudo: boolean, r: { code: number; stderr: string }, reply: Reply): ApiError {
  if (sudo && sudoWantsPassword(r.stderr)) return sudoRefused(target, 'restarting mysqld');
  const cause = reply.fail || reply.log.length ? startCause(reply) : r.stderr.trim() || `the restart script ended with exit ${r.code} without saying mysqld was ready`;
  const log = reply.log.length ? `\nNew lines of ${profile.errorLog ?? 'its log'}:\n${reply.log.join('\n')}` : r.stderr.trim() && cause !== r.stderr.trim() ? `\n${r.stderr.trim()}` : '';
  const started = reply.fail?.kind === 'exited' || reply.fail?.kind === 'timeout';
  const message = `mysqld on ${target} did not ${started ? 'start' : 'restart'}: ${cause}${log}`;
  // A failure that will repeat is not a lost connection: it must not be retried, nor tried on the next restart.
  const repeats = startFailureRepeats(reply);
  return repeats ? new ApiError('start-failed', message, { repeats }) : new ApiError(reply.fail ? 'start-failed' : 'connection', message);
}

/** A server option that turns a performance_schema consumer on or off; read back from setup_consumers. */
export const CONSUMER = 'performance_schema_consumer_';

/**
 * Every performance_schema consumer under the name its option reads as (`performance_schema_consumer_<name>`)
 * and YES or NO: two columns, as SHOW GLOBAL VARIABLES gives them (the detached runner reads it with the client).
 */
export const CONSUMERS_SQL = `SELECT CONCAT('${CONSUMER}', REPLACE(LOWER(NAME), '-', '_')) AS n, ENABLED AS e FROM performance_schema.setup_consumers`;

/**
 * The performance_schema consumers the profile's options set, as judgeStart reads them
 * (`performance_schema_consumer_<name>` → YES or NO); none where performance_schema cannot be read.
 */
export async function consumerStates(conn: Connection, names: string[]): Promise<Record<string, string>> {
  if (!names.some((n) => n.startsWith(CONSUMER))) return {};
  try {
    const [rows] = await conn.query<RowDataPacket[]>(CONSUMERS_SQL);
    return Object.fromEntries(rows.map((r) => [String(r.n), String(r.e)]));
  } catch {
    return {};
  }
}

/** The server variables a restart's verify step reads: the factors' and the profile's own options. */
export function verifyVariables(proc: RestartProcedure): string[] {
  const verify = proc.steps.find((x) => x.kind === 'verify');
  if (verify?.kind !== 'verify') return [];
  return [...new Set([...verify.facts.filter((f) => f.kind === 'variable').map((f) => (f as { name: string }).name), ...verify.options.map((o) => o.variable)])];
}

/**
 * Judge a start from what was read back: the facts the restart script reported on the target and
 * the server variables (lower-case names). Pure, so the detached runner's facts are judged the same
 * way when they are imported.
 */
export function judgeStart(proc: RestartProcedure, targetFacts: Record<string, string>, live: Record<string, string>, host: HostFingerprint): { checks: TunableCheck[]; options: TunableCheck[]; facts: Record<string, string | null> } {
  const verify = proc.steps.find((x) => x.kind === 'verify');
  const facts: Record<string, string | null> = { ...targetFacts };
  if (verify?.kind !== 'verify') return { checks: verifyCell(proc, facts, host), options: [], facts };
  for (const f of verify.facts) if (f.kind === 'variable') facts[`variable:${f.name}`] = live[f.name] ?? null;
  const checks = verifyCell(proc, facts, host);
  const options: TunableCheck[] = verify.options.map((o) => {
    const observed = live[o.variable];
    if (observed === undefined) return { tunable: o.variable, level: o.value, ok: true, verifiable: false, observed: `set, not verifiable: ${o.option} is not a server variable on this server, nor anything else varlab reads back` };
    const consumer = o.variable.startsWith(CONSUMER) ? `performance_schema.setup_consumers ${o.variable.slice(CONSUMER.length)}` : null;
    return { tunable: o.variable, level: o.value, ok: sameValue(o.value, observed), observed: consumer ? `${consumer} ENABLED = ${observed}` : `@@${o.variable} = ${observed}` };
  });
  return { checks, options, facts };
}

/** Who a login is and to which database. */
interface Login {
  user: string;
  password: string;
  database: string | undefined;
}

/** The verify step's login, the variables it read back and, as the measuring login, the timer's probe of it. */
interface Verified {
  conn: Connection;
  login: Login;
  live: Record<string, string>;
  probe?: string;
}

export function createServerControl(session: TargetSession, profile: ServerProfile, opts: ServerControlOptions = {}): ServerControl & { readonly pid: number | null } {
  checkProfile(profile);
  const paths = hostPaths(opts.paths);
  const dir = hostDir(paths);
  let host: HostFingerprint | undefined = opts.host;
  let password = opts.password;
  let pid: number | null = null;
  /** The counters read at the last start, once mysqld was ready: the open window's beginning. */
  let opened: NoiseSample | null = null;
  /**
   * The verify step's login, kept open for the next connect() to the same mysqld: that one takes it
   * over as its own account and database (COM_CHANGE_USER, a fresh session) instead of logging in again,
   * or as it is when it is that login already (issue 22, a lean restart: over SSH each new login is a
   * channel of its own, each switch a round trip). Closed by anything else.
   */
  let spare: { conn: Connection; pid: number; login: Login; probe?: string } | null = null;
  /** The kept login connect() handed over as it was, with the timer's probe its read back took: for timerProbe(), once. */
  let handed: { conn: Connection; probe: string } | null = null;
  const dropSpare = async () => {
    const s = spare;
    spare = null;
    handed = null;
    if (s) await closeConnection(s.conn);
  };

  /** A call's reply: the window open since the last start ends at its first counters. */
  function closeWindow(reply: Reply): void {
    const from = opened;
    opened = null;
    const window = from && reply.noise.begin ? noiseWindow(from, reply.noise.begin) : null;
    if (window) opts.onWindow?.(window);
  }

  const hostFacts = async () => (host ??= await probeHost(session, paths));

  /**
   * Who connect() logs in as: the account `as` names, else the profile's with the password known now
   * (asked for once the server refused the one before, so read it at each login).
   */
  const loginOf = (database: string | undefined, as?: { user: string; password: string }): Login => ({ user: as?.user ?? profile.user, password: as ? as.password : (password ?? ''), database });

  async function connect(database?: string, as?: { user: string; password: string }): Promise<Connection> {
    const kept = spare;
    spare = null;
    handed = null;
    if (kept && kept.pid === pid) {
      // Already this login (the verify step logged in as the measuring account): a fresh session still,
      // since the verify only read global values; no switch, no round trip.
      const want = loginOf(database, as);
      if (kept.login.user === want.user && kept.login.password === want.password && kept.login.database === want.database) {
        handed = kept.probe !== undefined ? { conn: kept.conn, probe: kept.probe } : null;
        return kept.conn;
      }
      try {
        await kept.conn.changeUser(want);
        return kept.conn;
      } catch {
        kept.conn.destroy(); // an account the switch cannot log in as: a login of its own says why
      }
    } else if (kept) await closeConnection(kept.conn);
    for (let attempt = 0; ; attempt++) {
      const stream = await session.connectStream(profile);
      try {
        return await mysql.createConnection({ stream, ...loginOf(database, as), connectTimeout: 10000 });
      } catch (e) {
        const err = e as Error & { code?: string };
        stream.destroy();
        if (as) throw new ApiError(err.code === 'ER_ACCESS_DENIED_ERROR' ? 'auth' : 'connection', `cannot log in to mysqld on ${session.target} as ${as.user}: ${err.message}`);
        if (err.code === 'ER_ACCESS_DENIED_ERROR' && opts.prompt && attempt === 0) {
          const a = await opts.prompt({ kind: 'password', title: `MySQL password for ${profile.user}`, message: `Password of the MySQL account ${profile.user} on ${session.target}:` });
          if (a.accept && a.secret !== undefined) {
            password = a.secret;
            continue;
          }
        }
        throw new ApiError(err.code === 'ER_ACCESS_DENIED_ERROR' ? 'auth' : 'connection', `cannot log in to mysqld on ${session.target} as ${profile.user}: ${err.message}`);
      }
    }
  }

  /** The script said it listens; the handshake may still wait a moment for the accept loop. */
  async function connectReady(): Promise<Connection> {
    const until = Date.now() + 30_000;
    for (;;) {
      try {
        return await connect();
      } catch (e) {
        if ((e as ApiError).code === 'auth' || Date.now() > until) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** Global variables by name, in one query; a name the server does not know is simply absent. */
  async function variables(conn: Connection, names: string[]): Promise<Record<string, string>> {
    if (!names.length) return {};
    const [rows] = await conn.query<RowDataPacket[]>('SHOW GLOBAL VARIABLES WHERE Variable_name IN (?)', [names]);
    return Object.fromEntries(rows.map((r) => [String(r.Variable_name ?? r.variable_name).toLowerCase(), String(r.Value ?? r.value)]));
  }

  /** False once this server refused the one-query read back (MySQL 8 has no information_schema.GLOBAL_VARIABLES). */
  let oneQueryReadBack = true;

  /**
   * What the verify step reads back from the server: the variables, and the performance_schema
   * consumers when the profile's options set any; with `probe` (the login is the measuring one), the
   * exact timer's probe of this connection too (queries.ts TIMER_PROBE_ROW: the timer step's query
   * rides in this one). In one query where the server has information_schema.GLOBAL_VARIABLES
   * (MariaDB): over SSH every query is a round trip through the channel (issue 22, a lean restart).
   * Else the two reads of before, the consumers none where performance_schema cannot be read, no probe.
   */
  async function readBack(conn: Connection, names: string[], probe = false): Promise<{ live: Record<string, string>; probe?: string }> {
    const consumers = names.some((n) => n.startsWith(CONSUMER));
    if (oneQueryReadBack && (consumers || probe)) {
      const parts = [
        ...(names.length ? ['SELECT VARIABLE_NAME AS n, VARIABLE_VALUE AS e FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME IN (?)'] : []),
        ...(consumers ? [CONSUMERS_SQL] : []),
        ...(probe ? [TIMER_PROBE_ROW] : []),
      ];
      try {
        const [rows] = await conn.query<RowDataPacket[]>(parts.join(' UNION ALL '), names.length ? [names] : []);
        const live = Object.fromEntries(rows.map((r) => [String(r.n).toLowerCase(), String(r.e)]));
        const found = live[TIMER_PROBE_NAME];
        delete live[TIMER_PROBE_NAME];
        return { live, ...(found !== undefined ? { probe: found } : {}) };
      } catch (e) {
        if ((e as { fatal?: boolean }).fatal) throw e; // the connection itself is gone: no query would do
        oneQueryReadBack = false;
      }
    }
    return { live: { ...(await variables(conn, names)), ...(await consumerStates(conn, names)) } };
  }

  /**
   * The verify step's login to the server just started, and what it read back: as the account the
   * caller names (the measuring one, which may read the global variables and the consumers), else as
   * the profile's, as before. A login as that account that fails (refused, or the server not yet
   * accepting) falls back to the profile's, which waits for the server; the caller's own connect()
   * as the account then says why it is refused.
   */
  async function verifyLogin(names: string[], as?: RunHooks['verifyAs']): Promise<Verified> {
    let conn: Connection | undefined;
    let login: Login | undefined;
    let measuring = false;
    if (as) {
      try {
        conn = await connect(as.database, as);
        login = loginOf(as.database, as);
        measuring = true;
      } catch {
        conn = undefined;
      }
    }
    if (!conn || !login) {
      conn = await connectReady();
      login = loginOf(undefined);
    }
    try {
      // Read as the measuring login, the timer's probe comes with the variables.
      const read = await readBack(conn, names, measuring);
      return { conn, login, live: read.live, ...(read.probe !== undefined ? { probe: read.probe } : {}) };
    } catch (e) {
      await closeConnection(conn);
      throw e;
    }
  }

  async function procedure(factors: Factor[], levels: Record<string, string>, extra: { schemas?: string[]; workload?: boolean; idleSeconds?: number } = {}): Promise<RestartProcedure> {
    return restartProcedure({ profile, factors, levels, host: await hostFacts(), startTimeoutS: opts.startTimeoutS, stopTimeoutS: opts.stopTimeoutS, ...extra });
  }

  async function script(proc: RestartProcedure, part?: 'down' | 'up'): Promise<Script> {
    return restartScript({ proc, profile, host: await hostFacts(), paths, recordDir: dir, part });
  }

  async function run(proc: RestartProcedure, hooks: RunHooks = {}): Promise<StartedServer> {
    await dropSpare();
    const idle = proc.steps.find((x) => x.kind === 'idle');
    const idleS = idle?.kind === 'idle' ? idle.seconds : 0;
    const timeoutMs = ((opts.stopTimeoutS ?? 600) + (opts.startTimeoutS ?? 300) + 60) * 1000;
    let part: 'up' | undefined;
    let stopMs: number | undefined;
    if (idleS > 0 && hooks.idle) {
      // mysqld stopped and the host set in one call; the idle here, where a cancel ends it; then the start.
      const down = await script(proc, 'down');
      const t = Date.now();
      const r = await session.exec(asRoot(down.text, down.sudo), { timeoutMs });
      stopMs = Date.now() - t;
      const reply = parseReply(r.stdout);
      closeWindow(reply);
      if (reply.fail || r.code !== 0) {
        pid = null;
        throw startFailure(session.target, profile, down.sudo, r, reply);
      }
      pid = null;
      await hooks.idle(idleS * 1000);
      part = 'up';
    }
    const s = await script(proc, part);
    const names = verifyVariables(proc);
    // The verify step's login and read back begin as soon as the script says mysqld is ready, while
    // the script still reads the facts and the host's counters and its reply comes back (issue 22, a
    // lean restart: over SSH a login is a channel of its own and round trips that would wait for it).
    let early: Promise<Verified> | null = null;
    let said = '';
    const onStdout = (chunk: string) => {
      if (early) return;
      said += chunk;
      if (!/^@ready \d/m.test(said)) return;
      early = verifyLogin(names, hooks.keepLogin ? hooks.verifyAs : undefined);
      early.catch(() => {}); // awaited below, or closed when the call fails
    };
    const dropEarly = async () => {
      const e = early;
      early = null;
      if (e) await e.then((v) => closeConnection(v.conn)).catch(() => {});
    };
    const startedAt = Date.now();
    let r: Awaited<ReturnType<TargetSession['exec']>>;
    try {
      r = await session.exec(asRoot(s.text, s.sudo), { timeoutMs: timeoutMs + (part ? 0 : Math.ceil(idleS) * 1000), onStdout });
    } catch (e) {
      await dropEarly();
      throw e;
    }
    const reply = parseReply(r.stdout);
    if (!part) closeWindow(reply);
    // Ready is the script's own word (a fact that could not be read afterwards is the verification's business).
    if (reply.fail || !reply.pid || reply.readyMs === null) {
      pid = null;
      await dropEarly();
      throw startFailure(session.target, profile, s.sudo, r, reply);
    }
    pid = reply.pid;
    opened = reply.noise.end ?? null;
    const readyMs = reply.readyMs;
    const scriptMs = Date.now() - startedAt;
    // One call for stop and start: its lap says where the start began.
    const lap = part ? undefined : reply.laps.stop;
    const verifyFrom = Date.now();
    const { conn, login, live, probe } = await (early ?? verifyLogin(names, hooks.keepLogin ? hooks.verifyAs : undefined));
    if (hooks.keepLogin) {
      conn.on('error', () => {}); // mysqld gone while it waits: the next connect() finds out and logs in anew
      spare = { conn, pid: reply.pid, login, ...(probe !== undefined ? { probe } : {}) };
    } else await closeConnection(conn);
    const { checks, options, facts } = judgeStart(proc, reply.facts, live, await hostFacts());
    const stop = stopMs ?? lap;
    const steps = { ...(stop !== undefined ? { stop } : {}), start: scriptMs - (lap ?? 0), verify: Date.now() - verifyFrom };
    return { pid, startedAt, readyMs, checks, options, facts, steps };
  }

  async function stop(): Promise<void> {
    await dropSpare();
    const out = await runScript(session, stopScript(profile, opts.stopTimeoutS, paths), profile.kind === 'systemd' ? `stopping ${profile.service}` : 'stopping mysqld', ((opts.stopTimeoutS ?? 600) + 60) * 1000);
    closeWindow(parseReply(out));
    pid = null;
  }

  return {
    get pid() {
      return pid;
    },
    host: hostFacts,
    procedure,
    script,
    run,
    async restart(factors: Factor[], levels: Record<string, string>): Promise<StartedServer> {
      return run(await procedure(factors, levels));
    },
    stop,
    timerProbe(conn: Connection) {
      const h = handed;
      handed = null;
      return h && h.conn === conn ? h.probe : undefined;
    },
    async restore() {
      await dropSpare();
      await restoreHost(session, profile, paths);
    },
    connect,
  };
}
