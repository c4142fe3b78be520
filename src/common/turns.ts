// Calls that must not overlap, one queue per key: each starts once the call before it with the same key
// has ended, whether it answered or threw. A read-modify-write of a file (two saves of one experiment,
// two hosts probed at once writing the Hosts list), or a question on the one terminal, waits its turn
// instead of each reading the old state and one writing over the other.
export class Turns {
  private readonly tails = new Map<string, Promise<unknown>>();

  take<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(fn);
    const tail = next.catch(() => {});
    this.tails.set(key, tail);
    // A key no call waits on is dropped, so the map holds only files being written now.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves once every call taken so far has ended. */
  settled(): Promise<void> {
    return Promise.all(this.tails.values()).then(() => {});
  }
}

/** f, but each call starts only once the one before has ended (one queue for every call). */
export function oneAtATime<A, R>(f: (a: A) => Promise<R>): (a: A) => Promise<R> {
  const turns = new Turns();
  return (a) => turns.take('', () => f(a));
}
