// The workload: the database and the setup script that creates and fills it, the named queries
// (typed, pasted or imported from .sql files), repetitions and warm-up per restart, and the
// estimates the plan's duration is computed from.
import { useRef } from 'react';
import type { Design, Query, Workload } from '../../../common/experiment/types.js';
import { estimatePlan, formatShortDuration } from '../../../common/plan.js';
import { executionsText } from '../../../common/experiment/words.js';
import { learnedEstimate } from '../../../common/stats/planner.js';
import { getClient } from '../../client.js';
import { NumberField } from '../../components/NumberField.js';
import { useApp } from '../../store/index.js';
import { useDesignEdit } from './FactorsEditor.js';
import type { Problems } from './problems.js';
import { queriesFromSql, setupTable, withSetupSql } from './sql.js';
import { DEFAULT_SEED } from '../../../common/dbt3/scale.js';

function useWorkloadEdit() {
  const change = useDesignEdit();
  return (fn: (w: Workload) => Workload, key?: string) => change((d) => ({ ...d, workload: fn(d.workload) }), key);
}

function nextQueryName(queries: Query[]): string {
  for (let n = queries.length + 1; ; n++) if (!queries.some((q) => q.name === `Q${n}`)) return `Q${n}`;
}

function QueryEditor({ q, index, count, problems }: { q: Query; index: number; count: number; problems: Problems }) {
  const edit = useWorkloadEdit();
  const at = `design.workload.queries[${index}]`;
  const setQuery = (patch: Partial<Query>, key: string) =>
    edit((w) => ({ ...w, queries: w.queries.map((x, i) => (i === index ? { ...x, ...patch } : x)) }), `${key}:${index}`);
  const move = (delta: number) =>
    edit((w) => {
      const queries = w.queries.slice();
      [queries[index], queries[index + delta]] = [queries[index + delta], queries[index]];
      return { ...w, queries };
    });
  return (
    <div className="query" data-testid="query">
      <div className="query-head">
        <input className="query-name" value={q.name} aria-label="Query name" aria-invalid={!!problems[`${at}.name`]} onChange={(e) => setQuery({ name: e.target.value }, 'query.name')} data-testid="query-name" />
        <span className="factor-tools">
          <button className="icon" title="Move up" disabled={index === 0} onClick={() => move(-1)}>
            ↑
          </button>
          <button className="icon" title="Move down" disabled={index === count - 1} onClick={() => move(1)}>
            ↓
          </button>
          <button className="icon danger" title={`Delete ${q.name}`} onClick={() => edit((w) => ({ ...w, queries: w.queries.filter((_, i) => i !== index) }))} data-testid="delete-query">
            ✕
          </button>
        </span>
      </div>
      {problems[`${at}.name`] && <div className="problem">{problems[`${at}.name`]}</div>}
      <textarea className="sql" rows={Math.min(8, Math.max(2, Math.ceil(q.sql.length / 110)))} value={q.sql} spellCheck={false} onChange={(e) => setQuery({ sql: e.target.value }, 'query.sql')} aria-label={`SQL of ${q.name}`} data-testid="query-sql" />
      {problems[`${at}.sql`] && <div className="problem">{problems[`${at}.sql`]}</div>}
    </div>
  );
}

export function WorkloadEditor({ design, problems }: { design: Design; problems: Problems }) {
  const edit = useWorkloadEdit();
  const setStatus = useApp((s) => s.setStatus);
  const fileInput = useRef<HTMLInputElement>(null);
  const w = design.workload;
  const doc = useApp((s) => s.doc);
  // The table the setup script makes last: proposed for "Skip the setup when this table exists" (sql.ts setupTable).
  const proposed = setupTable(w.setupSql);
  // Emptied by the user: '' in the file, not the field left out, so the choice outlives this view (a
  // switch of views remounts it) and a reopening: the setup runs every time, and editing the script
  // proposes no table again (sql.ts withSetupSql keeps '').
  const setSkip = (t: string) => edit((x) => ({ ...x, setupSkipIfTable: t }), 'setupSkipIfTable');
  // Per restart at the costs the file's run measured, when it has one (as the Designer's summary).
  const learned = doc ? learnedEstimate({ ...doc, design }) : null;
  const estimate = learned?.estimate ?? estimatePlan(design);

  const addImported = (name: string, sql: string) => {
    const added = queriesFromSql(name, sql, w.queries.map((q) => q.name));
    if (added.length === 0) {
      setStatus({ kind: 'error', text: `${name} holds no SQL statement` });
      return;
    }
    edit((wl) => ({ ...wl, queries: [...wl.queries, ...queriesFromSql(name, sql, wl.queries.map((q) => q.name))] }));
    setStatus({ kind: 'info', text: `Imported ${added.length} quer${added.length === 1 ? 'y' : 'ies'} from ${name}` });
  };

  /** Electron: the native dialog and the backend reads the file; browser mode: a file input read here. */
  const importSql = async () => {
    const client = getClient();
    const r = await client.call('dialog.open', { title: 'Import queries', extensions: ['sql'] });
    if (!r.ok) {
      if (r.code === 'unsupported') fileInput.current?.click();
      else setStatus({ kind: 'error', text: `Cannot show the open dialog: ${r.message}` });
      return;
    }
    if (!r.value) return;
    const f = await client.call('experiment.readSql', { path: r.value });
    if (f.ok) addImported(f.value.name, f.value.sql);
    else setStatus({ kind: 'error', text: f.message });
  };

  if (w.kind === 'command') {
    return (
      <section className="panel" data-testid="workload">
        <h2>Workload</h2>
        <p>
          This experiment runs a benchmark command per repetition: <code>{w.command?.line}</code> ({w.command?.metric}, {w.command?.unit}).
        </p>
      </section>
    );
  }

  return (
    <section className="panel" data-testid="workload">
      <h2>Workload</h2>
      {w.data && (
        // The DBT-3 data step makes the tables the queries read: nothing for the setup script to do (design.workload.data).
        <p data-testid="workload-data">
          The data: DBT-3 at scale factor {w.data.sf} ({w.data.folder ? <>the .tbl files of <code>{w.data.folder}</code></> : `varlab's generator, seed ${w.data.seed ?? DEFAULT_SEED}`}), made in database{' '}
          <code>{w.database}</code> by the run&apos;s data step, once per data directory before its first restart measures; a load already there is recognised.
        </p>
      )}
      {/* Aligned at the top: a field's note or problem below it does not lift the others' labels. */}
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <label className="field" title="Where mysqld runs: local, ssh://[user@]host[:port], or an alias from ~/.ssh/config">
          <span>Target</span>
          <input
            value={design.target}
            aria-invalid={!!problems['design.target']}
            onChange={(e) => {
              const target = e.target.value;
              useApp.getState().edit((doc) => ({ ...doc, design: { ...doc.design, target } }), 'target');
            }}
            data-testid="target"
            spellCheck={false}
          />
          {problems['design.target'] && <span className="problem">{problems['design.target']}</span>}
        </label>
        <label className="field">
          <span>Database</span>
          <input value={w.database} aria-invalid={!!problems['design.workload.database']} onChange={(e) => { const database = e.target.value; edit((x) => ({ ...x, database }), 'database'); }} data-testid="database" spellCheck={false} />
          {problems['design.workload.database'] && <span className="problem">{problems['design.workload.database']}</span>}
        </label>
        <label className="field">
          <span>Skip the setup when this table exists</span>
          <input
            value={w.setupSkipIfTable ?? ''}
            placeholder="(always run it)"
            aria-invalid={!!problems['design.workload.setupSkipIfTable']}
            onChange={(e) => setSkip(e.target.value)}
            spellCheck={false}
            style={{ alignSelf: 'flex-start' }}
            data-testid="setup-skip"
          />
          {problems['design.workload.setupSkipIfTable'] && <span className="problem">{problems['design.workload.setupSkipIfTable']}</span>}
          {proposed && w.setupSkipIfTable === proposed && (
            <span className="muted small" data-testid="setup-skip-from">
              the last table the setup script creates: a later run on the same server keeps the data
            </span>
          )}
          {proposed && !w.setupSkipIfTable && (
            <span className="muted small" data-testid="setup-skip-from">
              empty: the script runs in every run, and fails once its tables exist.{' '}
              <button className="link" onClick={() => setSkip(proposed)} data-testid="setup-skip-use">
                Use {proposed}
              </button>{' '}
              (the last table it creates)
            </span>
          )}
        </label>
      </div>
      <label className="field">
        <span data-testid="setup-sql-label">
          {/* With a data step, it comes first, attached and detached (engine/restart.ts): the script may build on its tables. */}
          Setup script (run {w.data ? 'after the DBT-3 data step, ' : ''}before {design.factors.some((f) => f.tunable === 'build') ? "each build's first restart, in that build's own data directory," : 'the first restart'} unless the table above exists:{' '}
          {w.data ? 'it may build on the DBT-3 tables, e.g. an index on lineitem)' : 'create and fill the data)'}
        </span>
        <textarea className="sql" rows={6} value={w.setupSql} spellCheck={false} onChange={(e) => { const setupSql = e.target.value; edit((x) => withSetupSql(x, setupSql), 'setupSql'); }} data-testid="setup-sql" />
      </label>

      <h3>
        Queries <span className="muted small">({w.queries.length}, each timed on its own)</span>
      </h3>
      {problems['design.workload.queries'] && <p className="problem">{problems['design.workload.queries']}</p>}
      {w.queries.map((q, i) => (
        <QueryEditor key={i} q={q} index={i} count={w.queries.length} problems={problems} />
      ))}
      <div className="row">
        <button onClick={() => edit((x) => ({ ...x, queries: [...x.queries, { name: nextQueryName(x.queries), sql: '' }] }))} data-testid="add-query">
          + Query
        </button>
        <button onClick={() => void importSql()} title="One query per statement of a .sql file" data-testid="import-sql">
          Import .sql…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".sql"
          multiple
          hidden
          data-testid="import-sql-input"
          onChange={async (e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = '';
            for (const f of files) addImported(f.name, await f.text());
          }}
        />
      </div>

      <h3>Per restart</h3>
      <div className="row">
        <NumberField label="Repetitions" value={w.repetitions} min={1} max={1000000} onChange={(n) => edit((x) => ({ ...x, repetitions: n }), 'repetitions')} testid="repetitions" help="Executions of each query per restart, warm-up included." />
        <NumberField
          label="Warm-up executions"
          value={w.warmup}
          min={0}
          max={1000000}
          onChange={(n) => edit((x) => ({ ...x, warmup: n }), 'warmup')}
          problem={problems['design.workload.warmup']}
          testid="warmup"
          help="The first executions of each query per restart, kept but left out of the analysis."
        />
        <EstimateField value={design.estimates.restartSeconds} label="Restart estimate" unit="s" field="restartSeconds" max={86400} testid="restart-seconds" help="One stop, start, verify and preload." />
        <EstimateField value={design.estimates.executionMs} label="Execution estimate" unit="ms" field="executionMs" max={86400000} testid="execution-ms" help="One execution of a query, used until a run measures it." />
      </div>
      <p className="muted small" data-testid="workload-estimate">
        {executionsText(w.repetitions * w.queries.length, w.kind)} per restart ({w.warmup * w.queries.length} warm-up) · about {formatShortDuration(estimate.perRestartSeconds)} per restart with the idle time
        {learned?.costs.source === 'journal' ? ` (costs ${learned.basis})` : ''}
      </p>
    </section>
  );
}

/** One of the design's cost estimates (what the plan's time is worked out from until a run measures it). */
function EstimateField(p: { value: number; label: string; unit: string; field: 'restartSeconds' | 'executionMs'; max: number; testid: string; help: string }) {
  return (
    <NumberField
      label={p.label}
      unit={p.unit}
      integer={false}
      value={p.value}
      min={0}
      max={p.max}
      onChange={(n) => useApp.getState().edit((doc) => ({ ...doc, design: { ...doc.design, estimates: { ...doc.design.estimates, [p.field]: n } } }), p.field)}
      testid={p.testid}
      help={p.help}
    />
  );
}
