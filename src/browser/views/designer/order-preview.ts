// The run order's preview: the first rounds of the plan, each restart named by its cell. With one factor,
// by its level (`base patched / patched base`: a build comparison reads at once); with several, by the
// cell's number in the grid, row by row (every level of every factor would not fit a line).
import type { Design } from '../../../common/experiment/types.js';
import { buildPlan, expandCells, factorKey } from '../../../common/plan.js';

export interface PreviewLine {
  label: string;
  cells: string[];
  more: boolean;
}

/** At most this many restarts a line, and three rounds (a blocked plan: its first restarts). */
const PER_LINE = 20;

export function orderPreview(design: Design): { lines: PreviewLine[]; byLevel: boolean } {
  const byLevel = design.factors.length === 1;
  const cells = expandCells(design);
  const name = new Map(cells.map((c, i) => [c.id, byLevel ? c.levels[factorKey(design.factors[0])] : String(i + 1)]));
  const plan = buildPlan(design);
  const names = (rs: typeof plan) => rs.map((r) => name.get(r.cell) ?? '?');
  // A blocked plan has no rounds: show its first restarts as they run.
  if (design.order === 'blocked') return { byLevel, lines: [{ label: 'first restarts', cells: names(plan.slice(0, PER_LINE)), more: plan.length > PER_LINE }] };
  const lines = [1, 2, 3]
    .map((round) => names(plan.filter((r) => r.round === round)))
    .filter((c) => c.length > 0)
    .map((c, i) => ({ label: `round ${i + 1}`, cells: c.slice(0, PER_LINE), more: c.length > PER_LINE }));
  return { byLevel, lines };
}
