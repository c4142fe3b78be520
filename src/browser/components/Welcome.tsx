// What the app shows with no experiment open: the quickstart, a new experiment, a file, or a
// recent one.
import { newExperiment, openCommand, openExample, openPath } from '../store/actions.js';
import { baseName } from '../store/doc.js';
import { useApp } from '../store/index.js';
import { FirstRun } from './FirstRun.js';
import { withShortcut } from './shortcuts.js';

export function Welcome() {
  const recent = useApp((s) => s.recent);
  return (
    <div className="welcome" data-testid="welcome">
      <h1>varlab</h1>
      <p className="lead">
        Measure whether a 1% change is real: benchmark MySQL and MariaDB across server restarts, and see how much of the spread is between restarts
        rather than within them.
      </p>
      <div className="welcome-actions">
        <button className="primary big" onClick={() => void openExample('quickstart')} data-testid="open-quickstart">
          Open the quickstart
          <small>ASLR × adaptive hash index × preload × NUMA, 16 cells, a small TPC-H-like data set</small>
        </button>
        <button className="big" onClick={() => void newExperiment()} data-testid="new-experiment">
          New experiment
          <small>Start from one factor and one query</small>
        </button>
        <button className="big" onClick={() => void openCommand()} title={withShortcut('Open', 'open')} data-testid="welcome-open">
          Open a file…
          <small>A .varlab.json file, or drop one onto this window</small>
        </button>
      </div>
      <FirstRun />
      {recent.length > 0 && (
        <section>
          <h3>Recent</h3>
          <ul className="recent">
            {recent.map((p) => (
              <li key={p}>
                <button className="link" onClick={() => void openPath(p)} title={p} data-testid="recent-file">
                  {baseName(p)}
                </button>{' '}
                <span className="muted small">{p}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
