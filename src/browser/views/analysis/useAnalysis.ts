// Runs the analysis in the worker (public/dist/analysis.worker.js) and hands back the latest answer.
// When no worker can be started (a build without it), the analysis runs here instead: slower for
// big files, but the view still works.
import { useEffect, useRef, useState } from 'react';
import { analyze, tidyFromExperiment, type Analysis, type AnalysisOptions } from '../../../common/stats/index.js';
import type { ExperimentDoc } from '../../../common/experiment/types.js';
import type { AnalysisRequest, AnalysisResponse } from '../../workers/analysis.worker.js';

export interface AnalysisState {
  analysis: Analysis | null;
  error: string | null;
  busy: boolean;
  /** Where the last answer was computed: the worker, or this thread when no worker could start. */
  where: 'worker' | 'inline' | null;
}

function startWorker(): Worker | null {
  try {
    return new Worker(new URL('./analysis.worker.js', import.meta.url), { type: 'module', name: 'varlab analysis' });
  } catch {
    return null;
  }
}

/**
 * One worker is started when the app loads, so its script is loaded and compiled by the time the first
 * analysis is asked for (that was a few hundred milliseconds of the Analysis view's first render); the
 * first view to need a worker takes it. A script that failed to load in the meantime is remembered.
 */
let spare: { worker: Worker; failed: boolean } | null = null;
if (typeof Worker !== 'undefined' && typeof window !== 'undefined') {
  const worker = startWorker();
  if (worker) {
    const s = { worker, failed: false };
    worker.onerror = (e) => {
      e.preventDefault();
      s.failed = true;
    };
    spare = s;
  }
}

function takeWorker(): Worker | null {
  const s = spare;
  spare = null;
  if (!s) return startWorker();
  if (s.failed) {
    s.worker.terminate();
    return null;
  }
  return s.worker;
}

function inline(doc: ExperimentDoc, options: AnalysisOptions): Pick<AnalysisState, 'analysis' | 'error'> {
  try {
    return { analysis: analyze(tidyFromExperiment(doc), options), error: null };
  } catch (e) {
    return { analysis: null, error: (e as Error).message };
  }
}

export function useAnalysis(doc: ExperimentDoc, options: AnalysisOptions): AnalysisState {
  const [state, setState] = useState<AnalysisState>({ analysis: null, error: null, busy: true, where: null });
  const worker = useRef<Worker | null | undefined>(undefined);
  const latest = useRef(0);
  const failed = useRef(false);
  const key = JSON.stringify(options);

  useEffect(() => {
    return () => {
      worker.current?.terminate();
      worker.current = undefined;
    };
  }, []);

  useEffect(() => {
    const id = ++latest.current;
    const opts = JSON.parse(key) as AnalysisOptions;
    setState((s) => ({ ...s, busy: true }));
    const runInline = () => {
      if (id !== latest.current) return;
      setState({ ...inline(doc, opts), busy: false, where: 'inline' });
    };
    if (worker.current === undefined && !failed.current) {
      worker.current = takeWorker();
      if (!worker.current) failed.current = true;
      if (worker.current) {
        worker.current.onmessage = (e: MessageEvent<AnalysisResponse>) => {
          const r = e.data;
          if (r.id !== latest.current) return;
          setState(r.ok ? { analysis: r.analysis, error: null, busy: false, where: 'worker' } : { analysis: null, error: r.message, busy: false, where: 'worker' });
        };
      }
    }
    const w = worker.current;
    if (!w || failed.current) {
      // Let the "analysing…" state paint first.
      const t = setTimeout(runInline, 0);
      return () => clearTimeout(t);
    }
    // A worker script that cannot load (not built) fails asynchronously: fall back for good.
    w.onerror = (e) => {
      e.preventDefault();
      failed.current = true;
      w.terminate();
      worker.current = null;
      runInline();
    };
    const request: AnalysisRequest = { id, doc, options: opts };
    w.postMessage(request);
  }, [doc, key]);

  return state;
}
