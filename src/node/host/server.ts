// ServerControl: stop mysqld and wait until it is gone, apply the cell's tunables, start it through
// the wrapper they compose, poll until it accepts connections, verify every tunable on the live
// process, and put the host back from the restore record.
import mysql, { type Connection } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';
import type { Factor, ServerProfile, TunableCheck } from '../../common/experiment/types.js';
import { aliveTest, checkProfile, dropInPath, pidFileOf, restartSteps, stopScript, type PlanOptions } from './commands.js';
import { DEFAULT_RESTORE_RECORD, restoreHost, runAsRoot } from './restore.js';
import { asRoot, shellQuote, sudoWantsPassword } from './shell.js';
import { check, type LiveServer } from './tunables/tunable.js';
import type { Prompter, ServerControl, StartedServer, TargetSession } from './types.js';

export interface ServerControlOptions {
  /** The client account's password, if it has one; asked through `prompt` when needed, kept in memory only. */
  password?: string;
  prompt?: Prompter;
  /** Where the restore record lives on the host (tests use their own). */
  restoreRecord?: string;
  startTimeoutMs?: number;
  stopTimeoutS?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createServerControl(session: TargetSession, profile: ServerProfile, opts: ServerControlOptions = {}): ServerControl & { readonly pid: number | null } {
  checkProfile(profile);
  const record = opts.restoreRecord ?? DEFAULT_RESTORE_RECORD;
  let password = opts.password;
  let pid: number | null = null;
  let intelPstate: boolean | undefined;

  const tailLog = async (lines = 25): Promise<string> => {
    if (!profile.errorLog) return '(the profile has no error log)';
    const r = await session.exec(asRoot(`tail -n ${lines} ${shellQuote(profile.errorLog)}`, profile.sudo));
    return r.stdout.trim() || r.stderr.trim() || '(empty)';
  };

  const alive = async (p: number) => (await session.exec(`${aliveTest(String(p))} && echo alive`)).stdout.includes('alive');

  async function connect(database?: string): Promise<Connection> {
    for (let attempt = 0; ; attempt++) {
      const stream = await session.connectStream(profile);
      try {
        return await mysql.createConnection({ stream, user: profile.user, password: password ?? '', database, connectTimeout: 10000 });
      } catch (e) {
        const err = e as Error & { code?: string };
        stream.destroy();
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

  /** Poll until the server answers a ping; if the process dies first, say why from its error log. */
  async function waitReady(p: number, t0: number): Promise<void> {
    const timeout = opts.startTimeoutMs ?? 300000;
    let lastError = '';
    for (;;) {
      try {
        const conn = await connect();
        await conn.ping();
        await conn.end();
        return;
      } catch (e) {
        lastError = (e as Error).message;
        if ((e as ApiError).code === 'auth') throw e;
      }
      if (!(await alive(p))) throw new ApiError('connection', `mysqld (pid ${p}) on ${session.target} exited during start-up. Last lines of ${profile.errorLog ?? 'its error log'}:\n${await tailLog()}`);
      if (Date.now() - t0 > timeout) throw new ApiError('connection', `mysqld (pid ${p}) on ${session.target} did not accept connections within ${Math.round(timeout / 1000)} s (${lastError}). Last lines of its error log:\n${await tailLog()}`);
      await sleep(100);
    }
  }

  async function verify(p: number, cell: ReturnType<typeof restartSteps>['cell']): Promise<TunableCheck[]> {
    const conn = await connect();
    try {
      const live: LiveServer = {
        pid: p,
        conn,
        // /proc/PID files of a mysqld running as another user are readable by root only.
        proc: async (name) => (await session.exec(asRoot(`cat /proc/${p}/${name}`, profile.sudo))).stdout,
        hostFile: async (glob) => (await session.exec(`for f in ${glob}; do [ -r "$f" ] && cat "$f"; done; true`)).stdout,
        variable: async (name) => {
          const [rows] = await conn.query(`SELECT @@${name} AS v`);
          const v = (rows as { v: unknown }[])[0]?.v;
          return v === null || v === undefined ? null : String(v);
        },
      };
      const checks: TunableCheck[] = [];
      for (const t of cell) {
        try {
          checks.push(await t.module.verify(t.level, live, t.factor.name));
        } catch (e) {
          checks.push(check(t.factor.tunable, t.level, false, `could not verify: ${(e as Error).message}`));
        }
      }
      return checks;
    } finally {
      await conn.end().catch(() => {});
    }
  }

  async function stop(): Promise<void> {
    if (profile.kind === 'systemd') {
      await runAsRoot(session, `systemctl stop ${shellQuote(profile.service!)}`, profile.sudo, `stopping ${profile.service}`);
    } else {
      await runAsRoot(session, stopScript(profile, pid, opts.stopTimeoutS), profile.sudo, 'stopping mysqld');
    }
    pid = null;
  }

  return {
    get pid() {
      return pid;
    },
    async restart(factors: Factor[], levels: Record<string, string>): Promise<StartedServer> {
      // Validate everything before anything runs on the host.
      restartSteps(profile, factors, levels, { restoreRecord: record });
      if (intelPstate === undefined) intelPstate = (await session.exec('[ -e /sys/devices/system/cpu/intel_pstate/no_turbo ] && echo yes')).stdout.includes('yes');
      const planOpts: PlanOptions = { restoreRecord: record, intelPstate };
      const { steps, cell } = restartSteps(profile, factors, levels, planOpts);
      if (profile.kind === 'direct') await stop();
      let startedAt = Date.now();
      for (const s of steps) {
        if (s.what.startsWith('stop mysqld')) continue;
        const isStart = s.what.startsWith('start mysqld') || s.what.startsWith('write the systemd');
        if (isStart) startedAt = Date.now();
        const out = await runStep(s.command, s.what, isStart);
        if (isStart) {
          const m = /pid=(\d+)/.exec(out);
          if (!m || m[1] === '0') throw new ApiError('connection', `mysqld on ${session.target} did not start: ${out.trim() || 'no pid'}. Last lines of its error log:\n${await tailLog()}`);
          pid = Number(m[1]);
        }
      }
      const p = pid!;
      await waitReady(p, startedAt);
      const readyMs = Date.now() - startedAt;
      // The pid file is mysqld's own word on its pid (a wrapper could in principle have forked).
      const fromFile = Number((await session.exec(asRoot(`cat ${shellQuote(pidFileOf(profile))}`, profile.sudo))).stdout.trim());
      if (Number.isInteger(fromFile) && fromFile > 0) pid = fromFile;
      const checks = await verify(pid!, cell);
      return { pid: pid!, startedAt, readyMs, checks };
    },
    stop,
    async restore() {
      await restoreHost(session, profile.sudo, record);
      // The service goes back to its own ExecStart for the next (non-varlab) start.
      if (profile.kind === 'systemd') await runAsRoot(session, `rm -f ${shellQuote(dropInPath(profile))} && systemctl daemon-reload`, profile.sudo, 'removing the varlab systemd drop-in');
    },
    connect,
  };

  /** Run one step (commands in `steps` are already wrapped in sudo -n when they need root). */
  async function runStep(command: string, what: string, isStart: boolean): Promise<string> {
    const r = await session.exec(command, { timeoutMs: 120000 });
    if (r.code !== 0) {
      if (sudoWantsPassword(r.stderr)) throw new ApiError('sudo', `sudo on ${session.target} wants a password, and varlab runs sudo -n (it never types one): allow these commands without a password (NOPASSWD in sudoers) or log in as root. While: ${what}.`);
      const log = isStart ? `\nLast lines of its error log:\n${await tailLog()}` : '';
      throw new ApiError('internal', `${what} failed on ${session.target} (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim() || 'no output'}${log}`);
    }
    return r.stdout;
  }
}

