// The export bar of an experiment with results: every plot into a folder (PNG at 1×/2×/3× or SVG,
// rendered headless by the backend exactly as `varlab export` does), the three CSVs, and the Markdown
// report written into the folder as report.md, copied to the clipboard (and downloaded, for when the
// clipboard is not allowed).
// Mount it where results are shown: <ExportBar /> uses the open experiment; <ExportView /> adds every
// plot with its own PNG/SVG buttons.
import { useMemo, useState } from 'react';
import type { ExperimentDoc } from '../../../common/experiment/types.js';
import { exportContext, type ExportContext } from '../../../common/export/context.js';
import type { Adjustment } from '../../../common/stats/adjust.js';
import { markdownReport } from '../../../common/export/markdown.js';
import { buildFigures } from '../../../common/figures/index.js';
import { getClient } from '../../client.js';
import { useApp } from '../../store/index.js';
import { FigurePlot } from './FigurePlot.js';
import { dataUrlToBase64, saveDataUrl, savedWords, textToDataUrl } from './save.js';

export interface ExportBarProps {
  /** The experiment; the open one when absent. */
  doc?: ExperimentDoc;
  /** Where it is saved; the open one's path when absent (null for an unsaved document). */
  path?: string | null;
  warmup?: number;
  baseline?: string;
  /** The analysis's α and p-value adjustment, so the exports say what the view says. */
  alpha?: number;
  adjustment?: Adjustment;
  /** A grown design: whether cells that no run measured together are compared (the view's choice). */
  acrossRuns?: boolean;
  /**
   * The context around an analysis already made with these settings (the Analysis view's, from its
   * worker): then the export does not analyse the experiment again on the UI thread. null: it is
   * being made (the export waits for it).
   */
  context?: ExportContext | null;
}

/**
 * `/data/run.varlab.json` → `/data/run-export`; an unsaved document (an example, a dropped file)
 * exports beside varlab's experiments (`documents`: ~/varlab, or VARLAB_HOME/experiments), as `<name>-export`.
 */
export function defaultExportDir(path: string | null, documents: string | undefined, name: string): string {
  const slug = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'experiment';
  if (path) {
    const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
    const base = path.slice(cut + 1).replace(/\.varlab\.json$|\.json$/i, '');
    return `${path.slice(0, cut)}${path[cut] ?? '/'}${base}-export`;
  }
  return `${documents ?? ''}/${slug}-export`;
}

function useExportContext(doc: ExperimentDoc | null, { warmup, baseline, alpha, adjustment, acrossRuns, context }: Pick<ExportBarProps, 'warmup' | 'baseline' | 'alpha' | 'adjustment' | 'acrossRuns' | 'context'>): { ctx: ExportContext | null; problem: string | null } {
  return useMemo(() => {
    if (context !== undefined) return context && context.doc === doc ? { ctx: context, problem: null } : { ctx: null, problem: 'the analysis is not ready yet' };
    if (!doc) return { ctx: null, problem: 'no experiment is open' };
    if (!doc.results?.restarts.length) return { ctx: null, problem: 'no results yet: run the experiment first' };
    try {
      return { ctx: exportContext(doc, { warmup, baseline, alpha, adjustment, acrossRuns }), problem: null };
    } catch (e) {
      return { ctx: null, problem: (e as Error).message };
    }
  }, [doc, warmup, baseline, alpha, adjustment, acrossRuns, context]);
}

export function ExportBar(props: ExportBarProps) {
  const openDoc = useApp((s) => s.doc);
  const openPath = useApp((s) => s.path);
  const info = useApp((s) => s.info);
  const doc = props.doc ?? openDoc;
  const path = props.path === undefined ? openPath : props.path;
  const { ctx, problem } = useExportContext(doc, props);
  const [dir, setDir] = useState<string | null>(null);
  const [scale, setScale] = useState(2);
  const [format, setFormat] = useState<'png' | 'svg'>('png');
  const [busy, setBusy] = useState<string | null>(null);
  const [result, setResult] = useState<{ kind: 'info' | 'error'; text: string } | null>(null);
  // Plots exported in this session, so the report can link them as `varlab export --markdown` does.
  const [plotsIn, setPlotsIn] = useState<{ dir: string; files: string[] } | null>(null);
  const folder = dir ?? (doc ? defaultExportDir(path, info?.documents, doc.name) : '');

  // A saved file is exported from disk; an unsaved one (an example, a dropped file) travels along.
  const source = () => (path && openDoc === doc && !useApp.getState().dirty ? { path } : { doc: doc! });

  async function run(what: string, fn: () => Promise<string>) {
    setBusy(what);
    setResult(null);
    try {
      setResult({ kind: 'info', text: await fn() });
    } catch (e) {
      setResult({ kind: 'error', text: (e as Error).message });
    } finally {
      setBusy(null);
    }
  }

  // The desktop app writes only into folders picked in its native dialog (or the one it proposes).
  const desktop = info?.transport === 'electron';
  async function chooseFolder() {
    const r = await getClient().call('dialog.open', { title: 'Export into folder', extensions: [], folder: true });
    if (r.ok && r.value) setDir(r.value);
    else if (!r.ok) setResult({ kind: 'error', text: r.message });
  }

  const exportPlots = () =>
    run('plots', async () => {
      const r = await getClient().call('export.plots', { ...source(), dir: folder, scale, format, warmup: props.warmup, baseline: props.baseline, alpha: props.alpha, adjustment: props.adjustment, acrossRuns: props.acrossRuns });
      if (!r.ok) throw new Error(r.message);
      setPlotsIn({ dir: folder, files: r.value.files.map((f) => f.split(/[\\/]/).pop() ?? f) });
      return `${r.value.files.length} plots written to ${folder}`;
    });

  const exportCsv = () =>
    run('csv', async () => {
      const r = await getClient().call('export.csv', { ...source(), dir: folder, warmup: props.warmup, baseline: props.baseline, alpha: props.alpha, adjustment: props.adjustment, acrossRuns: props.acrossRuns });
      if (!r.ok) throw new Error(r.message);
      return `${r.value.files.map((f) => f.split(/[\\/]/).pop()).join(', ')} written to ${folder}`;
    });

  const copyMarkdown = () =>
    run('markdown', async () => {
      // Written into the export folder as report.md, as `varlab export --markdown` writes it, whether or
      // not the plots were exported: it links them when they were exported to this folder.
      const linked = plotsIn && plotsIn.dir === folder;
      const titles = new Map(buildFigures(ctx!).map((f) => [f.file, f.title]));
      const images = linked ? plotsIn.files.map((file) => ({ title: titles.get(file.replace(/\.(png|svg)$/, '')) ?? file, path: file })) : undefined;
      const md = markdownReport(ctx!, { images });
      const sep = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
      const w = await getClient().call('export.writeFile', { path: `${folder.replace(/[\\/]+$/, '')}${sep}report.md`, base64: dataUrlToBase64(textToDataUrl(md, 'text/markdown')) });
      const written = w.ok ? `Markdown report written to ${w.value.path}${linked ? ' (linking the plots exported there)' : ''}` : `Markdown report not written into the folder: ${w.message}`;
      let copied = false;
      try {
        await navigator.clipboard.writeText(md);
        copied = true;
      } catch {
        // The clipboard needs a focused page and permission; the download below still works.
      }
      const saved = await saveDataUrl(`${doc!.name.replace(/[^A-Za-z0-9._-]+/g, '-')}-report.md`, textToDataUrl(md, 'text/markdown'));
      return [written, copied ? 'copied to the clipboard' : 'not copied: the clipboard refused', saved ? savedWords(saved) : ''].filter(Boolean).join('; ');
    });

  return (
    <div className="panel export-bar" data-testid="export-bar">
      <div className="row" style={{ alignItems: 'center' }}>
        <strong>Export</strong>
        <label className="field" style={{ flex: '1 1 320px' }}>
          <span className="muted small">Folder</span>
          <input data-testid="export-dir" value={folder} onChange={(e) => setDir(e.target.value)} spellCheck={false} />
        </label>
        {desktop && (
          <button data-testid="export-choose-dir" disabled={!!busy} onClick={() => void chooseFolder()}>
            Choose…
          </button>
        )}
        <label className="field">
          <span className="muted small">Plots as</span>
          <select data-testid="export-format" value={format} onChange={(e) => setFormat(e.target.value as 'png' | 'svg')}>
            <option value="png">PNG</option>
            <option value="svg">SVG</option>
          </select>
        </label>
        {format === 'png' && (
          <label className="field">
            <span className="muted small">Scale</span>
            <select data-testid="export-scale" value={scale} onChange={(e) => setScale(Number(e.target.value))}>
              <option value={1}>1×</option>
              <option value={2}>2×</option>
              <option value={3}>3×</option>
            </select>
          </label>
        )}
        <button className="primary" data-testid="export-plots" disabled={!ctx || !!busy} onClick={() => void exportPlots()}>
          {busy === 'plots' ? 'Rendering…' : 'Export all plots'}
        </button>
        <button data-testid="export-csv" disabled={!ctx || !!busy} onClick={() => void exportCsv()}>
          Export CSV
        </button>
        <button data-testid="export-markdown" disabled={!ctx || !!busy} onClick={() => void copyMarkdown()}>
          Copy as Markdown
        </button>
      </div>
      {problem && <p className="muted small">{problem}</p>}
      {result && (
        <p className={result.kind === 'error' ? 'problem prewrap' : 'muted small'} data-testid="export-result">
          {result.text}
        </p>
      )}
    </div>
  );
}

/** The export bar and every plot of the experiment, each with its own PNG/SVG buttons. */
export function ExportView(props: ExportBarProps) {
  const openDoc = useApp((s) => s.doc);
  const { ctx } = useExportContext(props.doc ?? openDoc, props);
  const figures = useMemo(() => (ctx ? buildFigures(ctx) : []), [ctx]);
  return (
    <div className="export-view" data-testid="export-view">
      <ExportBar {...props} />
      {figures.map((f) => (
        <FigurePlot key={f.id} figure={f} />
      ))}
    </div>
  );
}
