// The server timer's figures of a batch of back-to-back executions, read after the batch and matched
// to the executions they belong to. A figure is taken only when it is provably the execution's: its
// statement id is where that execution must be, its text is the execution's statement, and (where the
// server says so) it sent as many rows as the client counted. An
// execution without such a figure gets none: it is measured again, never guessed.

/** One statement of the server's history for the measured connection. */
export interface HistoryRow {
  /** performance_schema's EVENT_ID, or query profiling's Query_ID. */
  id: number;
  /** The statement's text as the server kept it (possibly cut short: `sameStatement`). */
  text: string;
  /** Its time in milliseconds. */
  ms: number;
  /** Rows sent, where the server records them (performance_schema). */
  rows?: number;
}

/** One execution of the batch, as the client saw it. */
export interface SentExecution {
  sql: string;
  /** Rows the client counted; undefined where the client did not count (the detached runner). */
  rows?: number;
}

/**
 * How statement ids follow each other on the measured connection:
 * - `consecutive` (query profiling): every profiled statement takes the next Query_ID, and reading
 *   SHOW PROFILES takes none, so execution i of the batch is Query_ID after + 1 + i;
 * - `increasing` (performance_schema): EVENT_IDs grow but skip (stages and waits share the counter),
 *   and the history is a ring that loses its oldest rows first, so the batch's executions are the
 *   newest rows after the previous read, matched from the newest back; the statement that read the
 *   previous batch (or the history's mark) comes right before them and says the history is whole.
 */
export type IdOrder = 'consecutive' | 'increasing';

export interface BatchMatch {
  /** The server's time of each execution of the batch in milliseconds, or null: measured again. */
  ms: (number | null)[];
  /** The highest statement id seen: the next batch's `after`. */
  last: number;
}

/** The server keeps statement texts cut short (performance_schema at 1024 bytes, profiling at 300 characters). */
const KEPT_AT_LEAST = 200;

export function sameStatement(kept: string, sql: string): boolean {
  const sent = keptForm(sql);
  return kept === sent || (kept.length >= KEPT_AT_LEAST && sent.startsWith(kept));
}

/**
 * A statement as the server keeps its text: MariaDB and MySQL drop the whitespace before it and the
 * whitespace and semicolons after it (`SELECT 1 -- note\n` is kept as `SELECT 1 -- note`).
 */
export function keptForm(sql: string): string {
  return sql.replace(/^\s+/, '').replace(/[\s;]+$/, '');
}

/**
 * The row can be this execution's: its statement, a time, and the rows the client counted. (Not a
 * time within the client's round trip: the server ends its timer after the last packet is sent, so
 * on a busy host the client can have the result before the server's figure ends.)
 */
function fits(row: HistoryRow, x: SentExecution): boolean {
  if (!sameStatement(row.text, x.sql) || !Number.isFinite(row.ms) || row.ms < 0) return false;
  return x.rows === undefined || row.rows === undefined || row.rows === x.rows;
}

/**
 * Match a batch's executions to the history rows read after it. `after` is the highest id the
 * previous read saw on this connection (0 before the first): rows at or below it are older.
 */
export function matchBatch(sent: SentExecution[], history: HistoryRow[], after: number, order: IdOrder): BatchMatch {
  const rows = history.filter((r) => r.id > after).sort((a, b) => a.id - b.id);
  const last = rows.length ? rows[rows.length - 1].id : after;
  const ms: (number | null)[] = sent.map(() => null);
  if (order === 'consecutive') {
    const byId = new Map(rows.map((r) => [r.id, r]));
    sent.forEach((x, i) => {
      const r = byId.get(after + 1 + i);
      if (r && fits(r, x)) ms[i] = r.ms;
    });
    return { ms, last };
  }
  // From the newest back, while each row fits the next older execution.
  let i = sent.length - 1;
  let k = rows.length - 1;
  for (; i >= 0 && k >= 0 && fits(rows[k], sent[i]); i--, k--) ms[i] = rows[k].ms;
  // Rows ran out first: the history wrapped and lost the oldest executions, which are measured again.
  if (k < 0) return { ms, last };
  // Stopped at a row: when it is the statement that read the previous batch, every execution must
  // have been matched; anything else (a missing figure somewhere, a figure that is not its own, one
  // execution too many) leaves no figure that can be proved: all of them are measured again.
  const complete = i < 0 && !sameStatement(rows[k].text, sent[0]?.sql ?? '');
  return { ms: complete ? ms : sent.map(() => null), last };
}
