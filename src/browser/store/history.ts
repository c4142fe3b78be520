// Undo and redo of design edits, as pure functions over a small immutable record so the store
// stays thin and the rules can be unit-tested without React.
//
// An edit may carry a key (e.g. `query.sql:3`): consecutive edits with the same key are one
// undo step, so typing a query is undone as a whole rather than one keystroke at a time.

export interface History<T> {
  past: T[];
  future: T[];
  /** The key of the last edit, for coalescing; null after an undo, redo or unkeyed edit. */
  lastKey: string | null;
}

/** Enough for a long session of design edits without holding on to unbounded memory. */
export const HISTORY_LIMIT = 200;

export const emptyHistory = <T>(): History<T> => ({ past: [], future: [], lastKey: null });

/** Record that `previous` was replaced by an edit with the given key. */
export function recordEdit<T>(h: History<T>, previous: T, key?: string): History<T> {
  if (key && key === h.lastKey) return { ...h, future: [] };
  const past = [...h.past, previous];
  if (past.length > HISTORY_LIMIT) past.splice(0, past.length - HISTORY_LIMIT);
  return { past, future: [], lastKey: key ?? null };
}

/** Step back: the value to show and the new history, or null when there is nothing to undo. */
export function undo<T>(h: History<T>, current: T): { value: T; history: History<T> } | null {
  if (h.past.length === 0) return null;
  const value = h.past[h.past.length - 1];
  return { value, history: { past: h.past.slice(0, -1), future: [current, ...h.future], lastKey: null } };
}

export function redo<T>(h: History<T>, current: T): { value: T; history: History<T> } | null {
  if (h.future.length === 0) return null;
  const [value, ...future] = h.future;
  return { value, history: { past: [...h.past, current], future, lastKey: null } };
}
