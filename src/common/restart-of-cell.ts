// "Restart k of a cell": the plots' "cell · r2", restarts.csv's restart_of_cell, the busy restarts the
// report and `varlab analyze` name, and where a stopping rule's look cut a journal. One numbering, so
// that every place that names a restart by its number within its cell names the same restart.

/** What a restart's number within its cell is taken from: its run order, its cell and, on several hosts, its host. */
export interface OfCell {
  seq: number;
  cell: string;
  host?: string;
}

/**
 * Each restart's number within its cell, from 1: over every restart given whatever its status (a
 * failed restart was a start of the server all the same, and restarts.csv lists it), in run order.
 * Each host numbers its own restarts (its own seq, its own cells), so the host is part of the key and
 * never of the order: the numbers do not depend on how the restarts are sorted or grouped for display.
 */
export function restartsOfCell<R extends OfCell>(restarts: readonly R[]): Map<R, number> {
  const count = new Map<string, number>();
  const out = new Map<R, number>();
  for (const r of [...restarts].sort((a, b) => a.seq - b.seq)) {
    const key = `${r.host ?? ''}\u0000${r.cell}`;
    const k = (count.get(key) ?? 0) + 1;
    count.set(key, k);
    out.set(r, k);
  }
  return out;
}
