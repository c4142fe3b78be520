// The figures in src/common/figures draw from an ExportContext. exportContext() would analyse again on
// this thread; here the context is assembled around the analysis the worker already made, so the
// plots on screen are the very figures `varlab export` writes.
import type { ExperimentDoc } from '../../../common/experiment/types.js';
import { captionLine, type ExportContext } from '../../../common/export/context.js';
import { expandCells, factorKey } from '../../../common/plan.js';
import type { Analysis } from '../../../common/stats/index.js';

export function contextFor(doc: ExperimentDoc, analysis: Analysis): ExportContext {
  const restarts = [...(doc.results?.restarts ?? [])].sort((a, b) => a.seq - b.seq);
  const seen = new Map<string, number>();
  const numbered = restarts.map((r) => {
    const n = (seen.get(r.cell) ?? 0) + 1;
    seen.set(r.cell, n);
    return { ...r, restartOfCell: n };
  });
  const withData = analysis.cells.map((c) => c.cell);
  const planned = expandCells(doc.design).map((c) => c.id);
  const cells = [...planned.filter((c) => withData.includes(c)), ...withData.filter((c) => !planned.includes(c))];
  const units = new Set(restarts.flatMap((r) => r.queries.map((q) => q.unit)));
  return {
    doc,
    analysis,
    warmup: analysis.settings.warmup,
    baseline: analysis.settings.baseline,
    factors: doc.design.factors.map(factorKey),
    cells,
    // The workload's order, as the tables and the exported plots list them.
    queries: analysis.order,
    unit: units.size === 1 ? [...units][0] : '',
    restarts: numbered,
    caption: captionLine(doc),
  };
}
