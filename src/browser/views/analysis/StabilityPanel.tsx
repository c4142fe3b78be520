// Which factors make restarts agree: the between-restart CoV per cell (against the within-restart
// CoV), and per factor level averaged over the cells at that level (the main effect on stability).
import { useMemo } from 'react';
import type { ExportContext } from '../../../common/export/context.js';
import { covCellsFigure, covLevelsFigure } from '../../../common/figures/build.js';
import { levelsOf } from '../../../common/export/context.js';
import { FigurePlot } from '../export/FigurePlot.js';
import { fmtPct, V, TABLE_STYLE } from './format.js';

const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

export function StabilityPanel({ ctx }: { ctx: ExportContext }) {
  const cellsFig = useMemo(() => covCellsFigure(ctx), [ctx]);
  const levelsFig = useMemo(() => (ctx.factors.length ? covLevelsFigure(ctx) : null), [ctx]);
  const cellCov = (cell: string) =>
    meanOf((ctx.analysis.cells.find((c) => c.cell === cell)?.queries ?? []).map((q) => q.between_cov_pct).filter((x): x is number => x !== null));
  return (
    <div data-testid="stability">
      <FigurePlot figure={cellsFig} />
      {levelsFig ? (
        <>
          <FigurePlot figure={levelsFig} />
          <table className="plan-table" style={TABLE_STYLE} data-testid="levels-table">
            <thead>
              <tr>
                <th style={{ textAlign: 'left' }}>factor</th>
                <th style={{ textAlign: 'left' }}>level</th>
                <th style={{ textAlign: 'right' }}>cells</th>
                <th style={{ textAlign: 'right' }}>between-restart CoV (mean over cells{ctx.doc.design.workload.kind === 'command' ? '' : ' and queries'})</th>
              </tr>
            </thead>
            <tbody>
              {ctx.factors.flatMap((f, fi) =>
                ctx.factorLevels[fi].map((level) => {
                  const covs = ctx.cells.filter((c) => levelsOf(ctx, c)[fi] === level).map(cellCov).filter((x): x is number => x !== null);
                  return (
                    <tr key={`${f}=${level}`}>
                      <td>{f}</td>
                      <td>{level}</td>
                      <td style={{ textAlign: 'right' }}>{covs.length}</td>
                      <td style={{ textAlign: 'right' }}>
                        <V value={meanOf(covs)} reason="no cell at this level has two restarts" fmt={fmtPct} />
                      </td>
                    </tr>
                  );
                }),
              )}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}
