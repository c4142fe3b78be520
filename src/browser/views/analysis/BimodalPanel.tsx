// "Good start, bad start": series whose restart means fall into separated levels, with the groups and
// how many restarts fell in each. Averaging such restarts describes no start that actually happened.
import type { Analysis } from '../../../common/stats/index.js';
import { fmtNum } from './format.js';

export function BimodalPanel({ analysis }: { analysis: Analysis }) {
  if (!analysis.bimodal.length) {
    return (
      <p className="muted" data-testid="bimodal-none">
        No cell’s restart means fall into separated groups.
      </p>
    );
  }
  return (
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
  );
}
