// "Good start, bad start": series whose restart means fall into separated levels, with the groups and
// how many restarts fell in each. Averaging such restarts describes no start that actually happened.
// A cell with too few restarts to show two levels gets no verdict either way: it says how many more.
import type { Analysis } from '../../../common/stats/index.js';
import { fmtNum } from './format.js';

export function BimodalPanel({ analysis }: { analysis: Analysis }) {
  const unjudged = analysis.bimodal_unjudged;
  const judged = analysis.restarts.filter((r) => r.means.length).length - unjudged.length;
  const cells = [...new Set(unjudged.map((u) => u.cell))];
  const reasons = [...new Set(unjudged.map((u) => u.reason))];
  const notJudged = unjudged.length ? (
    <p className="small muted" data-testid="bimodal-unjudged">
      Not judged ({cells.length === analysis.cells.length ? 'every cell' : cells.join(', ')}): {reasons.join('; ')}.
    </p>
  ) : null;
  if (!analysis.bimodal.length) {
    return (
      <>
        {judged > 0 ? (
          <p className="muted" data-testid="bimodal-none">
            No judged cell’s restart means fall into separated groups.
          </p>
        ) : null}
        {notJudged}
      </>
    );
  }
  return (
    <>
      <ul data-testid="bimodal" style={{ margin: 0, paddingLeft: 18 }}>
        {analysis.bimodal.map((b) => (
          <li key={`${b.cell}/${b.query}`} data-testid="bimodal-flag">
            <strong>{b.cell}</strong> / {b.query}: {b.groups.length} levels —{' '}
            {b.groups.map((g, i) => (
              <span key={i}>
                {i ? '; ' : ''}
                {g.count} restart{g.count === 1 ? '' : 's'} around {fmtNum(g.mean)} (restarts {g.restarts.join(', ')})
              </span>
            ))}
          </li>
        ))}
      </ul>
      {notJudged}
    </>
  );
}
