// The connection supervisor: one run's way to its target. It opens the target, takes the run lock
// there (one run per target), opens the server control, notices when the SSH session drops (and then
// destroys the mysql connections that ride on it, so nothing waits on a dead stream), reconnects with
// growing waits, and at the end of a run stops mysqld, puts the host back as it was found and lets
// the lock go.
import type { Connection } from 'mysql2/promise';
import { ApiError, type TargetAuth } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';
import type { HostNoise, ServerProfile } from '../../common/experiment/types.js';
import type { LockOwner, TargetLock } from '../host/lock.js';
import { closeConnection } from '../host/server.js';
import type { Prompter, ServerControl, TargetSession } from '../host/types.js';
import { defaultHostLayer, type HostLayer } from './hostlayer.js';

export interface ReconnectPolicy {
  /** Attempts before giving up; the wait doubles from firstDelayMs up to maxDelayMs. */
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = { attempts: 8, firstDelayMs: 500, maxDelayMs: 15_000 };

/** Errors that mean "the way to the target went away", as opposed to a problem with the experiment. */
export function isConnectionLoss(e: unknown): boolean {
  const err = e as { code?: string; fatal?: boolean };
  if (e instanceof ApiError) return e.code === 'connection';
  return ['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ERR_STREAM_DESTROYED'].includes(err?.code ?? '');
}

export interface SupervisorOptions {
  target: string;
  profile: ServerProfile | undefined;
  auth?: TargetAuth;
  prompt: Prompter;
  host?: HostLayer;
  reconnect?: Partial<ReconnectPolicy>;
  /** Log lines about reconnecting go to the run's events. */
  emit: (e: RunEvent) => void;
  /** The run's own sleep (ends early on cancel) and its cancel check. */
  sleep: (ms: number) => Promise<void>;
  checkCancel: () => void;
  /** Who holds the target's run lock. */
  owner: LockOwner;
  /** The design's factors that change host-wide settings (their labels): the run then holds the host's lock too. */
  hostWide?: string[];
  /** The host's noise over a window a server control saw whole (ServerControlOptions.onWindow). */
  onWindow?: (noise: HostNoise) => void;
  /** How often the lock is refreshed while the run goes on. */
  lockRefreshMs?: number;
}

export class ConnectionSupervisor {
  private hostLayer: HostLayer | null;
  private currentSession: TargetSession | null = null;
  private currentControl: ServerControl | null = null;
  /** The error the session dropped with, until the next connect. */
  dropped: Error | null = null;
  /** Rejects when the session drops or the run loses its lock, so a restart waiting on a dead stream is given up at once. */
  dropSignal: Promise<never> = new Promise(() => {});
  private failNow: (e: Error) => void = () => {};
  /** Nothing on the host was touched before the run held the target's lock: nothing to restore. */
  everConnected = false;
  private lock: TargetLock | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  /** mysql connections open in the current restart: destroyed when the session drops so nothing hangs. */
  private readonly conns = new Set<Connection>();
  /** The restart calls (ServerControl.run) still on the target: the end of a run restores the host only after them. */
  private readonly restarting = new Set<Promise<unknown>>();
  private readonly policy: ReconnectPolicy;

  constructor(private readonly opts: SupervisorOptions) {
    this.hostLayer = opts.host ?? null;
    this.policy = { ...DEFAULT_RECONNECT, ...opts.reconnect };
  }

  get host(): HostLayer {
    return (this.hostLayer ??= defaultHostLayer());
  }
  get session(): TargetSession {
    if (!this.currentSession) throw new ApiError('connection', `not connected to ${this.opts.target}`);
    return this.currentSession;
  }
  get control(): ServerControl {
    if (!this.currentControl) throw new ApiError('connection', `not connected to ${this.opts.target}`);
    return this.currentControl;
  }

  profile(): ServerProfile {
    const p = this.opts.profile;
    if (!p) throw new ApiError('invalid-argument', `no server profile for ${this.opts.target}: run \`varlab sandbox create ${this.opts.target}\` first`);
    return p;
  }

  /** A connection being opened (a cancel may stop waiting for it; the end of the run still waits, bounded). */
  private connecting: Promise<void> | null = null;

  /**
   * `beforeLock`: read-only questions for the target before the run takes its lock (the run's first
   * connection: a refusal there leaves the host untouched, with nothing to stop or restore).
   */
  connect(beforeLock?: (session: TargetSession) => Promise<void>): Promise<void> {
    const p = this.open(beforeLock);
    this.connecting = p;
    void p.finally(() => {
      if (this.connecting === p) this.connecting = null;
    }).catch(() => {});
    return p;
  }

  private async open(beforeLock?: (session: TargetSession) => Promise<void>): Promise<void> {
    this.dropped = null;
    const session = await this.host.openTarget(this.opts.target, { auth: this.opts.auth, prompt: this.opts.prompt });
    this.dropSignal = new Promise<never>((_, reject) => {
      this.failNow = (err) => {
        for (const c of this.conns) c.destroy();
        reject(err);
      };
      session.onDrop((err) => {
        this.dropped = err;
        this.failNow(err);
      });
    });
    this.dropSignal.catch(() => {});
    this.currentSession = session;
    await beforeLock?.(session);
    // Before anything on the host is touched: a target another run holds is refused here.
    this.lock = await this.host.lockTarget(session, this.profile(), this.opts.owner, this.opts.hostWide ?? []);
    if (this.lock.said) this.opts.emit({ type: 'log', at: Date.now(), level: 'warn', message: this.lock.said });
    this.everConnected = true;
    this.startHeartbeat();
    this.currentControl = this.watchRestarts(await this.host.createServerControl(session, this.profile(), { prompt: this.opts.prompt, onWindow: this.opts.onWindow }));
  }

  /**
   * The control with its restart calls kept while they are on the target. A restart a cancel gave up on
   * may be in its one remote call (stop the last mysqld, set the host, start the next): a stop and
   * restore beside it could end before it sets the host and starts mysqld, which would then stay so.
   */
  private watchRestarts(control: ServerControl): ServerControl {
    const watched: ServerControl = Object.create(control) as ServerControl;
    watched.run = (proc, hooks) => {
      const call = control.run(proc, hooks);
      const settled = call.then(
        () => {},
        () => {},
      );
      this.restarting.add(settled);
      void settled.then(() => this.restarting.delete(settled));
      return call;
    };
    return watched;
  }

  /** The lock is refreshed while the run goes on; a run that lost it (away too long, taken over) stops at once. */
  private startHeartbeat(): void {
    this.stopHeartbeat();
    const lock = this.lock;
    this.heartbeat = setInterval(() => {
      lock?.refresh().catch((e: unknown) => {
        if (e instanceof ApiError && e.code === 'busy') this.failNow(e);
      });
    }, this.opts.lockRefreshMs ?? 30_000);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Give up whatever the current restart waits on (cancel): its mysql connections are destroyed. */
  abandon(): void {
    for (const c of this.conns) c.destroy();
  }

  /** A mysql connection of the current restart: destroyed if the session drops, reported here instead of as an unhandled error. */
  track(conn: Connection): Connection {
    this.conns.add(conn);
    conn.on('error', () => {});
    return conn;
  }

  async release(conn: Connection): Promise<void> {
    this.conns.delete(conn);
    await closeConnection(conn);
  }

  async alive(): Promise<boolean> {
    try {
      return (await this.session.exec('true', { timeoutMs: 10_000 })).code === 0 && !this.dropped;
    } catch {
      return false;
    }
  }

  /** After a drop: close what is left, then open the target again with growing waits. */
  async reconnect(reason: string): Promise<void> {
    await this.close();
    const p = this.policy;
    const target = this.opts.target;
    let delay = p.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      this.opts.checkCancel();
      this.opts.emit({ type: 'log', at: Date.now(), level: 'warn', message: `${reason}; reconnecting to ${target} (attempt ${attempt} of ${p.attempts}) in ${(delay / 1000).toFixed(1)} s` });
      await this.opts.sleep(delay);
      this.opts.checkCancel();
      try {
        await this.connect();
        this.opts.emit({ type: 'log', at: Date.now(), level: 'info', message: `reconnected to ${target}` });
        return;
      } catch (e) {
        // A changed host key, refused auth or a bad profile will not get better by waiting.
        if (e instanceof ApiError && e.code !== 'connection') throw e;
        if (attempt >= p.attempts) throw new ApiError('connection', `could not reconnect to ${target} after ${attempt} attempts: ${(e as Error).message}`);
        reason = (e as Error).message;
      }
      delay = Math.min(p.maxDelayMs, delay * 2);
    }
  }

  async close(): Promise<void> {
    this.stopHeartbeat();
    await this.currentSession?.close().catch(() => {});
    this.currentSession = null;
    this.currentControl = null;
  }

  /**
   * Stop mysqld, put back every host-wide setting and let the target's lock go. A connection that is
   * gone, or drops during it, is opened again and the stop and restore run again (both are safe to
   * repeat), with growing waits, until they are done or `withinMs` has passed (a server that does not
   * stop, a host that does not answer). Returns a problem, or null.
   */
  async leaveHostAsFound(withinMs = 120_000): Promise<string | null> {
    // A connection still being opened (the run was cancelled while waiting for it) may yet take the lock and touch the host.
    if (this.connecting) await Promise.race([this.connecting.catch(() => {}), new Promise((r) => setTimeout(r, 30_000).unref())]);
    if (!this.everConnected) {
      await this.close();
      return null;
    }
    let timer: NodeJS.Timeout | undefined;
    let late = false;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        const s = Math.round(withinMs / 1000);
        // Not run beside a restart call still under way (afterRestartCalls): said as what it waited for.
        reject(new Error(this.restarting.size ? `a restart under way on the target (its stop, settings and start of mysqld in one call) did not end within ${s} s, so mysqld was not stopped nor the host restored after it` : `stopping mysqld and restoring the host did not finish within ${s} s`));
      }, withinMs);
    });
    try {
      await Promise.race([this.afterRestartCalls().then(() => this.stopAndRestore(() => late)), limit]);
      return null;
    } catch (e) {
      return `the host may not be as it was found: ${(e as Error).message}`;
    } finally {
      clearTimeout(timer);
      await this.lock?.release().catch(() => {});
      this.lock = null;
      await this.close();
    }
  }

  /**
   * Until no restart call is on the target (within the restore's own limit): whatever order a cancelled
   * restart and the restore would end in, the stop and restore come last. A call ends by itself (its
   * script's own limits); the restart it belonged to starts nothing after it (restart.ts checks the cancel).
   */
  private async afterRestartCalls(): Promise<void> {
    while (this.restarting.size) await Promise.all([...this.restarting]);
  }

  private async stopAndRestore(late: () => boolean): Promise<void> {
    let delay = this.policy.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!this.currentControl || this.dropped) {
          await this.close();
          await this.connect();
        }
        await this.control.stop();
        await this.control.restore();
        return;
      } catch (e) {
        // Only a way to the target that went away is worth another try; a refused restore would refuse again.
        const lost = this.dropped !== null || isConnectionLoss(e) || !(await this.alive());
        if (!lost || late() || attempt >= this.policy.attempts) throw e;
        this.opts.emit({ type: 'log', at: Date.now(), level: 'warn', message: `stopping mysqld and restoring the host on ${this.opts.target} was interrupted (${(e as Error).message}); reconnecting to finish it (attempt ${attempt + 1} of ${this.policy.attempts}) in ${(delay / 1000).toFixed(1)} s` });
        await this.close();
        // Not the run's sleep: a cancel must not cut short the waits of the restore that follows it.
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(this.policy.maxDelayMs, delay * 2);
      }
    }
  }
}
