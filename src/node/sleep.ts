/** Wait `ms`, or less when `signal` aborts first (it never rejects: the caller looks at the signal). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((res) => {
    if (signal?.aborted) return res();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      res();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
