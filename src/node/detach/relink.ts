// A follower's link to the target of the detached run it follows, and following again when it drops.
//
// The run goes on there by itself and its journal keeps everything it measures; what drops is only this
// computer's way of reading it (a laptop that slept, a NAT that forgot the connection, sshd restarted).
// So a dropped link is not the end of following: the follower says so in one line, opens a new
// connection (soon at first, then every 30 s, for as long as it follows) and reads on from the offset its
// local journal holds, so no line is lost or read twice (follower.ts writes records and offset at once).
// A silent drop is noticed by the SSH keepalives (ssh/connect.ts: every 5 s, 3 unanswered) within about
// 20 s, whatever the run writes meanwhile: a read in flight fails then, and so does the next one.
import { ApiError } from '../../common/api.js';
import { timeOfDay, type LinkState } from '../../common/link.js';
import type { TargetSession } from '../host/types.js';
import { sleep } from '../sleep.js';

/** Waits before each new try to reach the target: a restarted sshd is back within seconds, a sleeping laptop's network later. */
export const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

/** Without a link this long, the user is told how things stand and how to follow the run later (once per loss). */
export const LONG_MS = 30_000;

/**
 * A lost link, worth trying again: the connection dropped or could not be made, or a command did not
 * come back (CommandTimedOut is a 'connection' error too). Not: a key or host key refused, or a read the
 * target refused; following stops on those and says why, as before.
 */
export function linkLost(e: unknown): e is ApiError {
  return e instanceof ApiError && e.code === 'connection';
}

export interface LinkOptions {
  target: string;
  /** The experiment file (for the line that says how to follow the run later). */
  path: string;
  /** A new session on the target (the same way the first was opened). */
  connect: () => Promise<TargetSession>;
  /** One line to the user (the Run view's log, `varlab attach`'s lines). */
  tell: (level: 'info' | 'warn', message: string) => void;
  /** The open session dropped (the follower wakes and finds out on its next read, at once). */
  dropped: () => void;
  /** Each change of the link, for the views (lost, each wait before a try, back): the lines of `tell` in a form a view can show as a state. */
  state?: (s: LinkState) => void;
}

export class Link {
  private open: TargetSession | null = null;
  /** When the link was found lost, and the tries since (0: the link is up). */
  private lostAt = 0;
  private tries = 0;
  private saidLong = false;

  constructor(
    private readonly o: LinkOptions,
    first: TargetSession,
  ) {
    this.open = this.watched(first);
  }

  private watched(s: TargetSession): TargetSession {
    s.onDrop(() => this.o.dropped());
    return s;
  }

  /**
   * The session to read through. After a loss, one try to open a new one: null when it failed (after
   * the wait before the next try, cut short by `signal`). `offset`: how much of the target's journal is
   * here, said when following goes on.
   */
  async session(signal: AbortSignal, offset: number): Promise<TargetSession | null> {
    if (this.open) return this.open;
    try {
      this.open = this.watched(await this.o.connect());
    } catch (e) {
      if (!linkLost(e)) throw e;
      this.tries++;
      if (!this.saidLong && Date.now() - this.lostAt >= LONG_MS) {
        this.saidLong = true;
        this.o.tell('warn', `${this.o.target} has not answered since ${timeOfDay(this.lostAt)} (${this.tries} ${this.tries === 1 ? 'try' : 'tries'}, the last: ${e.message}); still trying, every ${RETRY_MS[RETRY_MS.length - 1] / 1000} s. The run goes on there and keeps what it measures: stop following to stop trying, and \`varlab attach ${this.o.path}\` (or opening the file) follows it again later.`);
      }
      const wait = RETRY_MS[Math.min(this.tries, RETRY_MS.length) - 1];
      this.o.state?.({ state: 'lost', target: this.o.target, lostAt: this.lostAt, nextTryAt: Date.now() + wait });
      await sleep(wait, signal);
      return null;
    }
    const now = Date.now();
    this.o.state?.({ state: 'back', target: this.o.target, lostAt: this.lostAt, backAt: now });
    this.o.tell('info', `following the run on ${this.o.target} again since ${timeOfDay(now)}, ${Math.round((now - this.lostAt) / 1000)} s after the link was lost (its journal is here up to byte ${offset})`);
    this.tries = 0;
    return this.open;
  }

  /** A read found the link lost: said once, the session let go; the next `session` opens a new one. */
  lost(e: ApiError): void {
    const gone = this.open;
    this.open = null;
    void gone?.close().catch(() => {});
    this.lostAt = Date.now();
    this.tries = 0;
    this.saidLong = false;
    this.o.tell('warn', `link to ${this.o.target} lost at ${timeOfDay(this.lostAt)} (${e.message}); following again as soon as it answers (the run goes on there)`);
    this.o.state?.({ state: 'lost', target: this.o.target, lostAt: this.lostAt });
  }

  async close(): Promise<void> {
    const s = this.open;
    this.open = null;
    await s?.close().catch(() => {});
  }
}
