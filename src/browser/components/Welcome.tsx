// What the app shows with no experiment open: the quickstart, a new experiment, where comparing two
// builds starts, a template, a file, or a recent one.
import { useState } from 'react';
import { dbt3Template } from '../../common/dbt3/template.js';
import { SYSBENCH_LOGIN, sysbenchTemplate } from '../../common/templates/sysbench.js';
import { compareBuilds, newExperiment, newFromTemplate, openCommand, openExample, openPath } from '../store/actions.js';
import { baseName } from '../store/doc.js';
import { useApp } from '../store/index.js';
import { FirstRun } from './FirstRun.js';
import { withShortcut } from './shortcuts.js';

/** The scale factors offered (any from 0.01 to 10 can be written in the file or given to `varlab new --sf`). */
const SCALE_FACTORS = [0.01, 0.1, 1, 10];

export function Welcome() {
  const recent = useApp((s) => s.recent);
  const [sf, setSf] = useState(0.01);
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
        {/* The users' most common question: across the page, between the starts and the templates. */}
        <button className="big" style={{ gridColumn: '1 / -1' }} onClick={compareBuilds} data-testid="welcome-builds">
          Is build B faster than A?
          <small>Register both builds in Hosts, add the factor “Server build” to a new experiment, and run it with “Stop when answered”</small>
        </button>
        <div className="template-choice">
          <button className="big" onClick={() => void newFromTemplate(dbt3Template({ sf }))} data-testid="new-dbt3">
            DBT-3 at scale factor {sf}
            <small>The first field note: ASLR × AHI × preload on the 22 DBT-3 queries; the run makes the data</small>
          </button>
          <label className="small">
            Scale factor{' '}
            <select value={sf} onChange={(e) => setSf(Number(e.target.value))} data-testid="dbt3-sf">
              {SCALE_FACTORS.map((x) => (
                <option key={x} value={x}>
                  {x}
                </option>
              ))}
            </select>
          </label>
        </div>
        <button className="big" onClick={() => void newFromTemplate(sysbenchTemplate({ test: 'oltp_read_only' }))} title={SYSBENCH_LOGIN} data-testid="new-oltp_read_only">
          sysbench read-only
          <small>The second field note: 5 runs of 5 min per restart, the first a warm-up; tps and latency drawn live</small>
        </button>
        <button className="big" onClick={() => void newFromTemplate(sysbenchTemplate({ test: 'oltp_point_select' }))} title={SYSBENCH_LOGIN} data-testid="new-oltp_point_select">
          sysbench point select
          <small>The third field note: your baseline variance, select by primary key across restarts</small>
        </button>
        <button className="big" onClick={() => void openCommand()} title={withShortcut('Open', 'open')} data-testid="welcome-open">
          Open a file…
          <small>A .varlab.json file, or drop one onto this window</small>
        </button>
      </div>
      <p className="muted small" data-testid="sysbench-login">
        {SYSBENCH_LOGIN}
      </p>
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
