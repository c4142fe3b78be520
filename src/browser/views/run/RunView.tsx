// The live Run view: progress through the plan, the current cell, every execution on a WebGL
// timeline coloured by restart, per-restart means with their within-restart spread, the
// between-restart spread of each cell as restarts accumulate, and the current minimum detectable
// effect. Pause, resume, cancel. Redrawn at most once per animation frame, whatever the event rate.
import { useEffect, useMemo, useState } from 'react';
import { formatDuration } from '../../../common/plan.js';
import { Plot } from '../../plot/Plot.js';
import { useApp } from '../../store/index.js';
import { attachToRunning, checkUnfinished, control, startRun, useRunSession } from './session.js';
import './run.css';

function StartPanel() {
  const path = useApp((s) => s.path);
  const dirty = useApp((s) => s.dirty);
  const target = useApp((s) => s.doc?.design.target ?? 'local');
  const [identity, setIdentity] = useState('');
  const [knownHosts, setKnownHosts] = useState('');
  const [startOver, setStartOver] = useState(false);
  const error = useRunSession((s) => s.error);
  const unfinished = useRunSession((s) => (s.unfinished?.path === path ? s.unfinished : null));
  if (!path) return <p data-testid="run-needs-save">Save the experiment to a file first: the run saves its results into it and keeps its journal beside it.</p>;
  const ssh = target !== 'local';
  return (
    <div className="run-box" style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' }} data-testid="run-start">
      <span>
        Run <code>{path}</code> on <code>{target}</code>
      </span>
      {ssh && (
        <>
          <label>
            key file <input value={identity} onChange={(e) => setIdentity(e.target.value)} placeholder="~/.ssh/id_ed25519 (or ssh-agent)" />
          </label>
          <label>
            known_hosts <input value={knownHosts} onChange={(e) => setKnownHosts(e.target.value)} placeholder="optional extra file" />
          </label>
        </>
      )}
      {unfinished && (
        <span data-testid="run-unfinished">
          An unfinished run of this file: {unfinished.restartsDone} of {unfinished.restartsPlanned} restarts done.
        </span>
      )}
      {unfinished && (
        <label title="Keep the unfinished journal aside and run the whole plan again">
          <input type="checkbox" checked={startOver} onChange={(e) => setStartOver(e.target.checked)} /> start over
        </label>
      )}
      <button className="primary" disabled={dirty} title={dirty ? 'Save first: the run uses the file on disk' : undefined} onClick={() => void startRun(path, { identity: identity.trim() || undefined, knownHosts: knownHosts.trim() || undefined }, !startOver)} data-testid="run-start-button">
        {unfinished && !startOver ? 'Resume' : 'Run'}
      </button>
      {error && (
        <span className="error" style={{ color: '#b42318' }} data-testid="run-error">
          {error}
        </span>
      )}
    </div>
  );
}

function Progress() {
  const live = useRunSession((s) => s.live);
  useRunSession((s) => s.frame);
  const pct = live.planned ? (100 * live.done) / live.planned : 0;
  const active = live.state === 'running' || live.state === 'paused';
  return (
    <div className="run-box" style={{ display: 'grid', gap: 6 }} data-testid="run-progress">
      <div style={{ display: 'flex', gap: 16, alignItems: 'center', flexWrap: 'wrap' }}>
        <strong data-testid="run-state">{live.state}</strong>
        <span data-testid="run-count">
          {live.done} of {live.planned} restarts
        </span>
        {active && <span>{formatDuration(live.remainingMs / 1000)} left</span>}
        <span>{live.executions.toLocaleString('en')} executions</span>
        {live.current && (
          <span data-testid="run-current">
            restart {live.current.seq}: <code>{live.current.cell}</code>
          </span>
        )}
        <span style={{ flex: 1 }} />
        <button disabled={live.state !== 'running'} onClick={() => void control('run.pause')} title="Takes effect when the current restart ends">
          Pause
        </button>
        <button disabled={live.state !== 'paused'} onClick={() => void control('run.resume')}>
          Resume
        </button>
        <button className="danger" disabled={!active} onClick={() => void control('run.cancel')} data-testid="run-cancel">
          Cancel
        </button>
      </div>
      <div className="run-bar">
        <div style={{ width: `${pct}%` }} />
      </div>
      {live.current?.checks && (
        <small>
          verified:{' '}
          {live.current.checks.map((c) => (
            <span key={c.tunable} style={{ color: c.ok ? '#1a7f37' : '#b42318', marginRight: 10 }} title={c.observed}>
              {c.tunable}={c.level} {c.ok ? '✓' : '✗'}
            </span>
          ))}
        </small>
      )}
      {live.interval && live.interval.seq === live.current?.seq && (
        <small data-testid="run-interval">
          run {live.interval.rep}, {live.interval.second} s: {live.interval.tps.toFixed(1)} tps, {live.interval.qps.toFixed(1)} qps
          {live.interval.latencyMs !== undefined ? `, latency ${live.interval.latencyMs} ms (percentile)` : ''}
        </small>
      )}
      {live.timerNote && <small style={{ color: '#9a6700' }}>⚠ {live.timerNote}</small>}
      {!live.timerNote && live.source && <small>times from the server: {live.source}</small>}
    </div>
  );
}

const PALETTE = ['#3271d4', '#d4573b', '#2f9e6e', '#8a5cd1', '#c49a1a', '#1b9aaa', '#c2417d', '#6b7785'];

function Charts() {
  const live = useRunSession((s) => s.live);
  const frame = useRunSession((s) => s.frame);
  const [chosen, setChosen] = useState<string | null>(null);
  const query = chosen && live.queries.includes(chosen) ? chosen : (live.queries[0] ?? null);

  // The timeline hands Plotly the growing arrays themselves (no copy of 100,000 points per frame);
  // datarevision tells it to read them again.
  const timeline = useMemo(() => {
    const s = query ? live.series.get(query) : undefined;
    return {
      data: [
        {
          type: 'scattergl',
          mode: 'markers',
          x: s?.x ?? [],
          y: s?.y ?? [],
          marker: { size: 4, color: s?.seq ?? [], colorscale: 'Viridis', showscale: true, colorbar: { title: { text: 'restart' }, thickness: 10 } },
          hovertemplate: 'execution %{x}<br>%{y:.3f} ' + (s?.unit ?? '') + '<br>restart %{marker.color}<extra></extra>',
        },
      ],
      layout: { title: { text: `${query ?? ''}: every execution, coloured by restart` }, xaxis: { title: { text: 'execution' } }, yaxis: { title: { text: s?.unit ?? '' } }, datarevision: frame, uirevision: query ?? '' },
    };
  }, [live, query, frame]);

  const cellColour = useMemo(() => new Map(live.cells.map((c, i) => [c, PALETTE[i % PALETTE.length]])), [live.cells]);

  const means = useMemo(() => {
    if (!query) return { data: [], layout: {} };
    const byCell = new Map<string, { x: number[]; y: number[]; e: number[] }>();
    for (const p of live.restartMeans(query)) {
      const t = byCell.get(p.cell) ?? { x: [], y: [], e: [] };
      t.x.push(p.seq);
      t.y.push(p.mean);
      t.e.push(p.sd);
      byCell.set(p.cell, t);
    }
    return {
      data: [...byCell].map(([cell, t]) => ({
        type: 'scatter',
        mode: 'markers',
        name: cell,
        x: t.x,
        y: t.y,
        error_y: { type: 'data', array: t.e, visible: true, thickness: 1 },
        marker: { color: cellColour.get(cell), size: 7 },
        hovertemplate: `${cell}<br>restart %{x}: %{y:.3f} ± %{error_y.array:.3f}<extra></extra>`,
      })),
      // Sixteen cell names do not fit beside the plot: the colour and the hover name the cell.
      layout: { title: { text: 'restart means ± within-restart SD (warm-ups excluded)' }, xaxis: { title: { text: 'restart' } }, showlegend: false, datarevision: frame, uirevision: query },
    };
  }, [live, query, frame, cellColour]);

  const spread = useMemo(() => {
    if (!query) return { data: [], layout: {} };
    const byCell = live.spreadByCell(query);
    return {
      data: [...byCell].map(([cell, pts]) => ({ type: 'scatter', mode: 'lines+markers', name: cell, x: pts.map((p) => p.restarts), y: pts.map((p) => p.cvPct), line: { color: cellColour.get(cell) }, hovertemplate: `${cell}<br>after %{x} restarts: CV %{y:.2f}%<extra></extra>` })),
      layout: { title: { text: 'between-restart CV of each cell as restarts accumulate' }, xaxis: { title: { text: 'restarts of the cell' }, dtick: 1 }, yaxis: { title: { text: 'CV of restart means (%)' } }, showlegend: false, datarevision: frame, uirevision: query },
    };
  }, [live, query, frame, cellColour]);

  // frame: the live data changed in place.
  const mdes = useMemo(() => live.queries.map((q) => ({ q, m: live.mde(q) })), [live, frame]);

  if (!query) return <p>Waiting for the first execution…</p>;
  return (
    <>
      <div style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' }}>
        <label>
          query{' '}
          <select value={query} onChange={(e) => setChosen(e.target.value)} data-testid="run-query">
            {live.queries.map((q) => (
              <option key={q}>{q}</option>
            ))}
          </select>
        </label>
        <span data-testid="run-mde">
          minimum detectable effect now (α 0.05, power 0.8):{' '}
          {mdes.map(({ q, m }) => (
            <span key={q} style={{ marginRight: 12 }} title={m ? `with ${m.restartsPerCell} restarts per cell` : 'needs 2 restarts of a cell'}>
              {q}: <strong>{m ? `${m.pct.toFixed(1)}%` : '—'}</strong>
            </span>
          ))}
        </span>
      </div>
      <div className="run-timeline">
        <Plot data={timeline.data} layout={timeline.layout} className="run-plot" testId="run-timeline" />
      </div>
      <div className="run-pair">
        <div>
          <Plot data={means.data} layout={means.layout} className="run-plot" testId="run-means" />
        </div>
        <div>
          <Plot data={spread.data} layout={spread.layout} className="run-plot" testId="run-spread" />
        </div>
      </div>
    </>
  );
}

function Log() {
  const live = useRunSession((s) => s.live);
  useRunSession((s) => s.frame);
  const lines = live.log.slice(-12);
  if (!lines.length) return null;
  return (
    <div className="run-box run-log" data-testid="run-log">
      {lines.map((l, i) => (
        <div key={`${l.at}-${i}`} style={{ color: l.level === 'error' ? '#b42318' : l.level === 'warn' ? '#9a6700' : undefined }}>
          {new Date(l.at).toLocaleTimeString()} {l.message}
        </div>
      ))}
    </div>
  );
}

export function RunView() {
  const path = useApp((s) => s.path);
  const runId = useRunSession((s) => s.runId);
  const state = useRunSession((s) => s.live.state);
  useRunSession((s) => s.frame);
  const active = runId !== null && (state === 'running' || state === 'paused');
  useEffect(() => {
    void attachToRunning(path);
  }, [path]);
  // Whenever the view shows the start panel for a saved file: is there a run to resume?
  useEffect(() => {
    if (path && !active) void checkUnfinished(path);
  }, [path, active]);
  return (
    <div className="run" data-testid="run-view">
      {!active && <StartPanel />}
      {runId && <Progress />}
      {runId && <Charts />}
      {runId && <Log />}
    </div>
  );
}
