// Comparing experiments side by side: two or more files with the same queries (the same design on two
// MySQL versions or two hosts). The configurations table of each file, and per shared cell and query
// the effect against the baseline file: the ratio of restart means with its (1 − α) log-scale interval,
// raw and adjusted p (every comparison on the page is one family) and the verdict.
// Files are read, never run: no connection is made.
import { useMemo, useState } from 'react';
import type { ExperimentDoc } from '../../../common/experiment/types.js';
import { compareExperiments, compareMarkdown, labelsFor, methodLine, type ExperimentsComparison } from '../../../common/export/compare.js';
import { fmtEffect, fmtInterval, fmtP, fmtVerdict, levelPct } from '../../../common/export/format.js';
import { DEFAULTS, type Adjustment } from '../../../common/stats/index.js';
import { NumberField } from '../../components/NumberField.js';
import { AdjustmentField } from '../../components/AdjustmentField.js';
import { getClient } from '../../client.js';
import { useApp } from '../../store/index.js';

interface Entry {
  source: string;
  doc: ExperimentDoc;
}

const f = (x: number | null, d = 2) => (x === null ? '—' : x.toFixed(d));

export function CompareView() {
  const openDoc = useApp((s) => s.doc);
  const openPath = useApp((s) => s.path);
  const [entries, setEntries] = useState<Entry[]>([]);
  const [baseline, setBaseline] = useState<string | null>(null);
  const [alpha, setAlpha] = useState<number>(DEFAULTS.alpha);
  const [adjustment, setAdjustment] = useState<Adjustment>(DEFAULTS.adjustment);
  const [pathText, setPathText] = useState('');
  const [error, setError] = useState<string | null>(null);

  const labels = useMemo(() => labelsFor(entries.map((e) => e.source)), [entries]);
  const outcome = useMemo((): { result: ExperimentsComparison | null; problem: string | null } => {
    if (entries.length < 2) return { result: null, problem: 'Add two or more experiment files with results.' };
    try {
      const chosen = baseline && labels.includes(baseline) ? baseline : undefined;
      return { result: compareExperiments(entries.map((e, i) => ({ label: labels[i], doc: e.doc })), { baseline: chosen, alpha, adjustment }), problem: null };
    } catch (e) {
      return { result: null, problem: (e as Error).message };
    }
  }, [entries, labels, baseline, alpha, adjustment]);

  const add = (source: string, doc: ExperimentDoc) => {
    setError(null);
    setEntries((list) => [...list, { source, doc }]);
  };

  async function addPath(path: string) {
    const r = await getClient().call('experiment.open', { path });
    if (r.ok) add(r.value.path ?? path, r.value.doc);
    else setError(r.message);
  }

  async function addWithDialog() {
    const client = getClient();
    const chosen = await client.call('dialog.open', { title: 'Add an experiment to compare', extensions: ['json'] });
    if (chosen.ok && chosen.value) await addPath(chosen.value);
    else if (!chosen.ok) setError(chosen.message);
  }

  async function addFiles(files: FileList | null) {
    for (const file of Array.from(files ?? [])) {
      const r = await getClient().call('experiment.parse', { name: file.name, text: await file.text() });
      if (r.ok) add(file.name, r.value.doc);
      else setError(r.message);
    }
  }

  const result = outcome.result;
  return (
    <div className="compare-view" data-testid="compare-view">
      <div className="panel">
        <div className="row" style={{ alignItems: 'center' }}>
          <strong>Compare experiments</strong>
          {openDoc?.results && (
            <button onClick={() => add(openPath ?? `${openDoc.name}.varlab.json`, openDoc)} data-testid="compare-add-open">
              Add the open experiment
            </button>
          )}
          {getClient().transport === 'electron' ? (
            <button onClick={() => void addWithDialog()}>Add a file…</button>
          ) : (
            <input type="file" accept=".json" multiple data-testid="compare-file" onChange={(e) => void addFiles(e.target.files)} />
          )}
          <input placeholder="/path/to/experiment.varlab.json" value={pathText} onChange={(e) => setPathText(e.target.value)} data-testid="compare-path" style={{ flex: '1 1 260px' }} />
          <button disabled={!pathText.trim()} onClick={() => void addPath(pathText.trim()).then(() => setPathText(''))}>
            Add path
          </button>
        </div>
        {entries.length > 0 && (
          <ul className="small" style={{ margin: '8px 0 0', paddingLeft: 18 }}>
            {entries.map((e, i) => (
              <li key={i}>
                <label>
                  <input type="radio" name="compare-baseline" checked={(result?.baseline ?? labels[0]) === labels[i]} onChange={() => setBaseline(labels[i])} /> {labels[i]}
                </label>{' '}
                <span className="muted">
                  {e.doc.name}
                  {e.doc.results ? '' : ' (no results)'}
                </span>{' '}
                <button className="link" onClick={() => setEntries(entries.filter((_, j) => j !== i))}>
                  remove
                </button>
              </li>
            ))}
          </ul>
        )}
        {error && <p className="problem prewrap">{error}</p>}
        {outcome.problem && <p className="muted">{outcome.problem}</p>}
      </div>
      {result && (
        <>
          <div className="panel">
            <div className="row" style={{ alignItems: 'center' }}>
              <h3 style={{ margin: 0 }}>Files</h3>
              <button className="icon" onClick={() => void navigator.clipboard.writeText(compareMarkdown(result)).catch(() => setError('the clipboard refused'))}>
                Copy as Markdown
              </button>
            </div>
            <table className="data" data-testid="compare-files">
              <Head columns={['File', 'Experiment', 'Host', 'Date', '#Restarts']} />
              <tbody>
                {result.files.map((file) => (
                  <tr key={file.label}>
                    <td>
                      {file.label}
                      {file.label === result.baseline ? ' (baseline)' : ''}
                    </td>
                    <td>{file.name}</td>
                    <td>{file.host}</td>
                    <td>{file.date ?? '—'}</td>
                    <td className="num">{file.restarts}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="panel">
            <h3 style={{ marginTop: 0 }}>Configurations</h3>
            <table className="data" data-testid="compare-configurations">
              <thead>
                <tr>
                  <th>File</th>
                  <th>Cell</th>
                  <th className="num">Restarts</th>
                  <th className="num">Spread avg %</th>
                  <th className="num">Spread max %</th>
                  <th className="num">Between-restart CoV %</th>
                </tr>
              </thead>
              <tbody>
                {result.configurations.map((c) => (
                  <tr key={`${c.file} ${c.cell}`}>
                    <td>{c.file}</td>
                    <td>{c.cell}</td>
                    <td className="num">{c.n_restarts}</td>
                    <td className="num">{f(c.spread_avg_pct)}</td>
                    <td className="num">{f(c.spread_max_pct)}</td>
                    <td className="num">{f(c.between_cov_pct)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="panel">
            <h3 style={{ marginTop: 0 }}>Against {result.baseline}</h3>
            <div className="row" style={{ alignItems: 'flex-end', gap: 12 }}>
              <NumberField label="α" value={alpha} min={0.0001} max={0.5} integer={false} onChange={setAlpha} help="Significance level of the tests; intervals are at 1 − α" testid="compare-alpha" />
              <AdjustmentField value={adjustment} onChange={setAdjustment} testid="compare-adjustment" />
            </div>
            <p className="muted small">
              {methodLine(result)} (the restart is the unit of evidence). <span data-testid="compare-convention">{result.effect_convention}.</span>
            </p>
            <p data-testid="compare-summary">
              <strong>{result.summary}.</strong>
            </p>
            {result.notes.map((n) => (
              <p key={n} className="notice" data-testid="compare-note">
                Note: {n}.
              </p>
            ))}
            <table className="data" data-testid="compare-comparisons">
              <Head columns={['File', 'Cell', 'Query', '#Effect', `#${levelPct(result.alpha)}% interval`, '#p', '#adjusted p', 'Verdict']} />
              <tbody>
                {result.comparisons.map((c) => (
                  <tr key={`${c.file} ${c.cell} ${c.query}`} title={Object.values(c.null_reasons ?? {})[0]} data-verdict={c.verdict ?? 'none'}>
                    <td>{c.file}</td>
                    <td>{c.cell}</td>
                    <td>{c.query}</td>
                    <td className="num">{fmtEffect(c.effect_pct, '—')}</td>
                    <td className="num">{fmtInterval(c.ci_low_pct, c.ci_high_pct, '—')}</td>
                    <td className="num">{fmtP(c.p_value, '—')}</td>
                    <td className="num">{fmtP(c.p_adjusted, '—')}</td>
                    <td>{c.verdict === 'differs' ? <strong>differs</strong> : fmtVerdict(c, '—')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {result.skippedQueries.length > 0 && <p className="muted small">Not compared (missing in some files): {result.skippedQueries.map((s) => s.query).join(', ')}</p>}
          </div>
        </>
      )}
    </div>
  );
}

/** A table's header row; a column named with a leading # holds numbers (right-aligned). */
function Head({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (c.startsWith('#') ? <th key={c} className="num">{c.slice(1)}</th> : <th key={c}>{c}</th>))}
      </tr>
    </thead>
  );
}
