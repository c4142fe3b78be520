// Fan-out of backend events to every connected client, and the questions the backend asks them.
import { randomUUID } from 'node:crypto';
import type { EventName, Events, Prompt, PromptAnswer } from '../../common/api.js';
import type { Prompter } from '../host/types.js';

type Listener = (payload: never) => void;

export class EventHub {
  private listeners = new Map<EventName, Set<Listener>>();
  private pending = new Map<string, (answer: PromptAnswer) => void>();

  on<E extends EventName>(event: E, listener: (payload: Events[E]) => void): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener as Listener);
    this.listeners.set(event, set);
    return () => set.delete(listener as Listener);
  }

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    for (const l of this.listeners.get(event) ?? []) (l as (p: Events[E]) => void)(payload);
  }

  /** A Prompter that asks through the UI and waits for `prompt.answer`. */
  readonly prompt: Prompter = (p) =>
    new Promise((resolve) => {
      const id = randomUUID();
      this.pending.set(id, (a) => resolve({ accept: a.accept, secret: a.secret, remember: a.remember }));
      this.emit('prompt', { ...p, id } satisfies Prompt);
    });

  answer(a: PromptAnswer): boolean {
    const resolve = this.pending.get(a.id);
    if (!resolve) return false;
    this.pending.delete(a.id);
    resolve(a);
    return true;
  }

  async dispose(): Promise<void> {
    for (const [id, resolve] of this.pending) resolve({ id, accept: false });
    this.pending.clear();
    this.listeners.clear();
  }
}
