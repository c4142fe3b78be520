// The full factorial expansion as a grid: rows are the combinations of the first half of the
// factors, columns those of the rest. Clicking a cell excludes it from the plan (or brings it back).
import { useMemo } from 'react';
import { expandCells, factorKey } from '../../../common/plan.js';
import type { Design } from '../../../common/experiment/types.js';
import { tunable } from '../../../common/catalog.js';
import { useDesignEdit } from './FactorsEditor.js';
import { toggleCell } from './edits.js';
import { cellCountText, gridLayout } from './grid.js';

/** The catalog's label for a factor key (a server variable's key is its own name). */
const label = (key: string) => tunable(key)?.label ?? key;

export function MatrixGrid({ design, problem }: { design: Design; problem?: string }) {
  const change = useDesignEdit();
  const layout = useMemo(() => gridLayout(design), [design]);
  const cells = useMemo(() => expandCells(design), [design]);
  const excluded = new Set(cells.filter((c) => c.excluded).map((c) => c.id));
  const included = cells.length - excluded.size;
  const { rowFactors, rows, cols } = layout;
  const cornerSpan = Math.max(rowFactors.length, 1);
  return (
    <section className="panel" data-testid="matrix">
      <h2>
        Matrix <span className="count" data-testid="cell-count">{cellCountText(cells.length, excluded.size)}</span>
        <span className="muted small" data-testid="planned-count">
          {' '}
          · {excluded.size > 0 ? `${included} planned cell${included === 1 ? '' : 's'}` : 'each'} × {design.restartsPerCell} restart{design.restartsPerCell === 1 ? '' : 's'} = {included * design.restartsPerCell} restarts
        </span>
      </h2>
      <p className="muted small">Click a cell to exclude it from the plan; click again to bring it back.</p>
      {problem && <p className="problem">{problem}</p>}
      <div className="grid-scroll">
        <table className="grid">
          <thead>
            {layout.colHeaders.map((h) => (
              <tr key={h.key}>
                <th colSpan={cornerSpan} className="factor-name corner" title={label(h.key)}>
                  {h.key} →
                </th>
                {h.spans.map((s, i) => (
                  <th key={i} colSpan={s.span} className="col-level">
                    {s.level}
                  </th>
                ))}
              </tr>
            ))}
            <tr>
              {rowFactors.length === 0 ? (
                <th />
              ) : (
                rowFactors.map((f) => (
                  <th key={factorKey(f)} className="factor-name" title={label(factorKey(f))}>
                    {factorKey(f)} ↓
                  </th>
                ))
              )}
              <th colSpan={cols.length} className="grid-note" />
            </tr>
          </thead>
          <tbody>
            {rows.map((row, r) => (
              <tr key={r}>
                {rowFactors.length === 0 ? (
                  <th />
                ) : (
                  layout.rowSpans.map(({ key, spans }) =>
                    spans.has(r) ? (
                      <th key={key} rowSpan={spans.get(r)} className="row-level">
                        {row[key]}
                      </th>
                    ) : null,
                  )
                )}
                {cols.map((_, c) => {
                  const id = layout.cell(r, c);
                  const off = excluded.has(id);
                  return (
                    <td key={c} className="cell-td">
                      <button
                        className={`cell${off ? ' excluded' : ''}`}
                        data-testid="cell"
                        data-cell={id}
                        data-excluded={off}
                        aria-pressed={!off}
                        title={`${id}\n${off ? 'Excluded: click to include' : 'Click to exclude'}`}
                        onClick={() => change((d) => toggleCell(d, id))}
                      >
                        <span className="cell-no">{r * cols.length + c + 1}</span> {off ? 'excluded' : `${design.restartsPerCell}×`}
                      </button>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
