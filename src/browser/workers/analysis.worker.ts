// The analysis off the UI thread: a million executions take a few hundred milliseconds, which would
// freeze the window. Receives an experiment and options, answers with the Analysis (plain data).
import { analyze, tidyFromExperiment, type AnalysisOptions } from '../../common/stats/index.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';

export interface AnalysisRequest {
  id: number;
  doc: ExperimentDoc;
  options: AnalysisOptions;
}

export type AnalysisResponse = { id: number; ok: true; analysis: ReturnType<typeof analyze> } | { id: number; ok: false; message: string };

// The DOM lib types `self` as a Window; in a worker it is a DedicatedWorkerGlobalScope.
const scope = self as unknown as { onmessage: ((e: MessageEvent<AnalysisRequest>) => void) | null; postMessage(m: AnalysisResponse): void };

scope.onmessage = (e) => {
  const { id, doc, options } = e.data;
  try {
    scope.postMessage({ id, ok: true, analysis: analyze(tidyFromExperiment(doc), options) });
  } catch (err) {
    scope.postMessage({ id, ok: false, message: (err as Error).message });
  }
};
