// Fan-out of backend events to the connected clients, and the questions the backend asks them.
//
// A question (a host key, a password, a key's passphrase) goes to the client whose request needs the
// answer, not to every window or browser tab: another page has no business seeing that a passphrase is
// asked for, nor answering it (issue 26). A question nobody answers ends after `promptMs` with a
// message saying so, instead of holding its request (and a run's connection) for ever. A run's event
// batches go to the clients that follow its file (that started it, attached to it or asked for its
// events), not to every window.
import { randomUUID } from 'node:crypto';
import { ApiError, type EventName, type Events, type Prompt, type PromptAnswer } from '../../common/api.js';
import type { Prompter } from '../host/types.js';

/** A listener gets each event's payload and, for an event meant for one client only, that client's id. */
export type HubListener<E extends EventName> = (payload: Events[E], to?: string) => void;
type Listener = (payload: never, to?: string) => void;

/** How long a question waits for its answer: five minutes (time to find a key's passphrase), not for ever. */
export const PROMPT_MS = 5 * 60_000;

const waited = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

interface Pending {
  /** The client asked; null: every client (the question was not asked for a request, or its client went). */
  client: string | null;
  prompt: Prompt;
  settle: (answer: PromptAnswer | Error) => void;
}

export class EventHub {
  private listeners = new Map<EventName, Set<Listener>>();
  private pending = new Map<string, Pending>();
  /** The clients that follow each experiment file's runs, by the file's absolute path. */
  private followers = new Map<string, Set<string>>();

  constructor(private readonly promptMs = PROMPT_MS) {}

  on<E extends EventName>(event: E, listener: HubListener<E>): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener as Listener);
    this.listeners.set(event, set);
    return () => set.delete(listener as Listener);
  }

  /** To every client, or to the one named by `to`. */
  emit<E extends EventName>(event: E, payload: Events[E], to?: string): void {
    for (const l of this.listeners.get(event) ?? []) (l as HubListener<E>)(payload, to);
  }

  /** The client follows the runs of this file from now on (it started one, attached to one, or asked for one's events). */
  follow(clientId: string, path: string): void {
    const set = this.followers.get(path) ?? new Set();
    set.add(clientId);
    this.followers.set(path, set);
  }

  /** An event of a run of this file, to the clients that follow it (none: nobody gets it; a client catches up with run.events). */
  toFollowers<E extends EventName>(event: E, payload: Events[E], path: string | undefined): void {
    for (const c of (path && this.followers.get(path)) || []) this.emit(event, payload, c);
  }

  /** A Prompter asking the client `clientId` (null: any client) through the UI, waiting for its `prompt.answer`. */
  promptFor(clientId: string | null): Prompter {
    return (p) =>
      new Promise((resolve, reject) => {
        const id = randomUUID();
        const timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new ApiError('timeout', `nobody answered "${p.title}" within ${waited(this.promptMs)}; ask again when someone is at the screen`));
        }, this.promptMs);
        timer.unref();
        const prompt: Prompt = { ...p, id };
        this.pending.set(id, {
          client: clientId,
          prompt,
          settle: (a) => {
            clearTimeout(timer);
            if (a instanceof Error) reject(a);
            else resolve({ accept: a.accept, secret: a.secret, remember: a.remember });
          },
        });
        this.emit('prompt', prompt, clientId ?? undefined);
      });
  }

  /** A question not asked for any one client's request: every client sees it. */
  readonly prompt: Prompter = this.promptFor(null);

  /** True when `a` answers an open question asked of `clientId` (or of every client). */
  answer(a: PromptAnswer, clientId?: string): boolean {
    const p = this.pending.get(a.id);
    if (!p || (p.client !== null && clientId !== undefined && p.client !== clientId)) return false;
    this.pending.delete(a.id);
    p.settle(a);
    return true;
  }

  /**
   * The client closed (a reloaded or closed window): its open questions go to every client instead, so
   * a run it started can still be answered from the window that follows it now.
   */
  clientGone(clientId: string): void {
    for (const [path, set] of this.followers) if (set.delete(clientId) && set.size === 0) this.followers.delete(path);
    for (const p of this.pending.values()) {
      if (p.client !== clientId) continue;
      p.client = null;
      this.emit('prompt', p.prompt);
    }
  }

  async dispose(): Promise<void> {
    for (const [id, p] of this.pending) p.settle({ id, accept: false });
    this.pending.clear();
    this.followers.clear();
    this.listeners.clear();
  }
}
