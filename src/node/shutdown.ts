// Ctrl-C and SIGTERM, the same way in the CLI and browser mode: the first one stops gracefully
// (every run cancelled, its host restored); one Ctrl-C often arrives more than once (the terminal
// signals the whole process group, npm forwards it again), so signals within a second of the first
// are that same interrupt; only a separate, later Ctrl-C means "leave at once".
const SAME_INTERRUPT_MS = 1000;

export function onInterrupt(graceful: (signal: NodeJS.Signals) => void, leaveNow: (signal: NodeJS.Signals) => void): () => void {
  let first = 0;
  const handler = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (first && now - first < SAME_INTERRUPT_MS) return;
    if (first) {
      if (signal === 'SIGINT') leaveNow(signal);
      return;
    }
    first = now;
    graceful(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
