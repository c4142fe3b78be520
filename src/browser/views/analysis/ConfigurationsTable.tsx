// The seeds' table of configurations: per cell, the spread between the best and the worst restart
// mean, averaged and largest over queries, with the coefficients of variation beside it. Sortable by
// any column; the most stable cell (smallest average spread) is highlighted when every cell has
// restarts enough to rank it, and otherwise the table says how many more it would take.
import { useMemo, useState } from 'react';
import type { Analysis, CellStats } from '../../../common/stats/index.js';
import { fmtPct, NullNotes, Reasons, V, TABLE_STYLE } from './format.js';
import type { Workload } from '../../../common/experiment/types.js';
import { measureWord } from '../../../common/experiment/words.js';

type Key = 'cell' | 'spread_avg_pct' | 'spread_max_pct' | 'between' | 'within';

const meanOf = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};

interface Row {
  cell: CellStats;
  between: number | null;
  within: number | null;
}

export function ConfigurationsTable({ analysis, cells, kind }: { analysis: Analysis; cells: string[]; kind?: Workload['kind'] }) {
  // A command's figures are its metric's (words.ts), not queries.
  const over = measureWord(kind, true);
  const [sort, setSort] = useState<{ key: Key; asc: boolean }>({ key: 'cell', asc: true });
  const stable = analysis.ranking.most_stable;
  const rows = useMemo(() => {
    const order = new Map(cells.map((c, i) => [c, i]));
    const list: Row[] = analysis.cells.map((c) => ({
      cell: c,
      between: meanOf(c.queries.map((q) => q.between_cov_pct)),
      within: meanOf(c.queries.map((q) => q.within_cov_pct)),
    }));
    const value = (r: Row): number | null =>
      sort.key === 'cell' ? order.get(r.cell.cell) ?? 0 : sort.key === 'between' ? r.between : sort.key === 'within' ? r.within : r.cell[sort.key];
    // n/a sorts last whichever way.
    return list.sort((x, y) => {
      const a = value(x);
      const b = value(y);
      if (a === null || b === null) return a === null ? (b === null ? 0 : 1) : -1;
      return sort.asc ? a - b : b - a;
    });
  }, [analysis, cells, sort]);
  const notes = new Reasons();
  const th = (key: Key, label: string, title?: string) => (
    <th
      aria-sort={sort.key === key ? (sort.asc ? 'ascending' : 'descending') : 'none'}
      style={{ cursor: 'pointer', textAlign: key === 'cell' ? 'left' : 'right', whiteSpace: 'nowrap' }}
      title={title ?? `sort by ${label}`}
      onClick={() => setSort((s) => ({ key, asc: s.key === key ? !s.asc : true }))}
      data-testid={`sort-${key}`}
    >
      {label} {sort.key === key ? (sort.asc ? '▲' : '▼') : ''}
    </th>
  );
  return (
    <div>
      <table className="plan-table" style={TABLE_STYLE} data-testid="configurations-table">
        <thead>
          <tr>
            {th('cell', 'cell', 'sort in plan order')}
            {th('spread_avg_pct', 'spread avg', `difference between the best and the worst restart mean, averaged over ${over}`)}
            {th('spread_max_pct', 'largest', `the largest difference between the best and the worst restart mean of any ${measureWord(kind)}`)}
            {th('between', 'between-restart CoV', `coefficient of variation of restart means, averaged over ${over}`)}
            {th('within', 'within-restart CoV', `coefficient of variation inside a restart, averaged over ${over}`)}
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const best = r.cell.cell === stable;
            return (
              <tr key={r.cell.cell} data-testid={best ? 'most-stable' : undefined} style={best ? { background: 'rgba(0, 158, 115, 0.15)', fontWeight: 600 } : undefined}>
                <td>{r.cell.cell}</td>
                <td style={{ textAlign: 'right' }}>
                  <V value={r.cell.spread_avg_pct} reason={r.cell.null_reasons?.spread_avg_pct} fmt={fmtPct} notes={notes} where={r.cell.cell} />
                </td>
                <td style={{ textAlign: 'right' }}>
                  <V value={r.cell.spread_max_pct} reason={r.cell.null_reasons?.spread_max_pct} fmt={fmtPct} notes={notes} where={r.cell.cell} />
                </td>
                <td style={{ textAlign: 'right' }}>
                  <V value={r.between} reason={`no ${measureWord(kind)} has two restarts`} fmt={fmtPct} notes={notes} where={r.cell.cell} />
                </td>
                <td style={{ textAlign: 'right' }}>
                  <V value={r.within} reason="no restart kept two executions" fmt={fmtPct} notes={notes} where={r.cell.cell} />
                </td>
                <td title={best ? analysis.ranking.test : undefined}>
                  {best ? '★ most stable' : ''}
                  {analysis.grown?.later.includes(r.cell.cell) ? (
                    <span className="small muted" data-testid="measured-later" title={analysis.grown.why}>
                      {best ? ' · ' : ''}measured later (run {analysis.grown.parts[r.cell.cell].join(', ')})
                    </span>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <NullNotes notes={notes} />
      {stable !== null && analysis.ranking.test ? (
        <p className="muted small" data-testid="most-stable-test">
          ★ {stable}: {analysis.ranking.test}.
        </p>
      ) : null}
      {stable === null && analysis.cells.length > 1 && analysis.ranking.reason ? (
        <p className="notice" data-testid="no-ranking">
          {analysis.ranking.reason.startsWith('no ranking: ') ? `No “most stable” cell: ${analysis.ranking.reason.replace(/^no ranking: /, '')}` : analysis.ranking.reason.replace(/^no cell/, 'No cell')}.
        </p>
      ) : null}
    </div>
  );
}
