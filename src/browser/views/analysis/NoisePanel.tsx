// The host's noise in the Analysis view (issue 22, Deliver 5): each cell's noise over its measured
// windows beside its between-restart CoV, and every restart that ran on a busy host with why; the
// same summary as `varlab analyze` and the report (common/noise.ts).
import type { Analysis } from '../../../common/stats/analysis.js';
import { findCell } from '../../../common/stats/analysis.js';
import type { RestartResult } from '../../../common/experiment/types.js';
import { BUSY_HOST, busyLine, cellsOfRestarts, meanBetweenCov, noiseSummary } from '../../../common/noise.js';

const fx = (x: number | null, d = 1) => (x === null ? '–' : x.toFixed(d));

/** True when some restart's noise was read (results from before it was have none). */
export const hasNoise = (restarts: readonly RestartResult[] | undefined) => !!restarts?.some((r) => r.noise);

export function NoisePanel({ analysis, restarts, cells }: { analysis: Analysis; restarts: readonly RestartResult[]; cells: string[] }) {
  const s = noiseSummary(restarts, cellsOfRestarts(restarts, cells), (c) => meanBetweenCov(findCell(analysis, c)?.queries));
  if (!s) return null;
  return (
    <div data-testid="analysis-noise">
      <p className={s.busy.length ? 'warning' : 'muted'} data-testid="analysis-noise-summary">
        {s.busy.length ? '⚠ ' : ''}Read at {s.read} of {s.restarts} measured restarts; {s.busy.length ? `${s.busy.length} ran on a busy host` : 'none ran on a busy host'}. Busy: other processes used {BUSY_HOST.othersCpus} of a CPU or more, steal was above {BUSY_HOST.stealPct} %, or the load average was above the CPU count. A cell whose restarts ran on a busy host may owe part of its between-restart spread to the host.
      </p>
      {/* The headers wrap: on one line each, the table was wider than the view at 1000 px and hid the between-restart CoV it is there to stand beside. */}
      <table className="data wrap-head">
        <thead>
          <tr>
            {['cell', 'restarts read', 'busy', 'others CPU % median', 'others CPU % max', 'steal % max', 'load max', 'between-restart CoV %'].map((h) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {s.cells.map((c) => (
            <tr key={c.cell} data-testid="analysis-noise-row">
              <td>{c.cell}</td>
              <td className="num">
                {c.read}/{c.restarts}
              </td>
              <td className="num">{c.busy ? `⚠ ${c.busy}` : '0'}</td>
              <td className="num">{fx(c.others_cpu_pct_median)}</td>
              <td className="num">{fx(c.others_cpu_pct_max)}</td>
              <td className="num">{fx(c.steal_pct_max)}</td>
              <td className="num">{fx(c.load_max, 2)}</td>
              <td className="num">{fx(c.between_cov_pct, 2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {s.busy.length ? (
        <ul data-testid="analysis-noise-busy">
          {s.busy.slice(0, 50).map((b) => (
            <li key={`${b.host ?? ''}${b.seq}`}>{busyLine(b)}</li>
          ))}
          {s.busy.length > 50 ? <li>… and {s.busy.length - 50} more (varlab analyze --json lists them all)</li> : null}
        </ul>
      ) : null}
    </div>
  );
}
