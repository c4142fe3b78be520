// What the app shows with no experiment open: the quickstart, a new experiment, where comparing two
// builds starts, a template, a file, or a recent one.
import { useState } from 'react';
import { MAX_SF, MIN_SF, sfFromText } from '../../common/dbt3/scale.js';
import { dbt3Template } from '../../common/dbt3/template.js';
import { SYSBENCH_LOGIN, sysbenchTemplate } from '../../common/templates/sysbench.js';
import { compareBuilds, newExperiment, newFromTemplate, openCommand, openExample, openPath } from '../store/actions.js';
import { baseName } from '../store/doc.js';
import { useApp } from '../store/index.js';
import { FirstRun } from './FirstRun.js';
import { withShortcut } from './shortcuts.js';

/** The scale factors one click away; any from MIN_SF to MAX_SF can be typed, as `varlab new --sf` takes them. */
const SCALE_FACTORS = ['0.01', '0.1', '1', '10'];

export function Welcome() {
  const recent = useApp((s) => s.recent);
  const [sfText, setSfText] = useState('0.01');
  const typed = sfFromText(sfText);
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
          <button className="big" disabled={typed.sf === undefined} onClick={() => typed.sf !== undefined && void newFromTemplate(dbt3Template({ sf: typed.sf }))} data-testid="new-dbt3">
            DBT-3 at scale factor {typed.sf ?? sfText.trim()}
            <small>The first field note: ASLR × AHI × preload on the 22 DBT-3 queries; the run makes the data</small>
          </button>
          <div className="small template-sf">
            <label>
              Scale factor{' '}
              <input
                type="text"
                inputMode="decimal"
                size={6}
                value={sfText}
                onChange={(e) => setSfText(e.target.value)}
                aria-invalid={typed.problem !== undefined}
                title={`Any scale factor from ${MIN_SF} to ${MAX_SF}, at most two decimals (SF 1: about 6 million lineitem rows)`}
                data-testid="dbt3-sf"
              />
            </label>{' '}
            {SCALE_FACTORS.map((x) => (
              <button key={x} className="link" onClick={() => setSfText(x)} aria-pressed={sfText.trim() === x} data-testid={`dbt3-sf-${x}`}>
                {x}
              </button>
            ))}
            {typed.problem !== undefined && (
              <div className="problem" role="alert" data-testid="dbt3-sf-problem">
                {typed.problem.charAt(0).toUpperCase() + typed.problem.slice(1)}.
              </div>
            )}
          </div>
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
