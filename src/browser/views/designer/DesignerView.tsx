// The matrix designer: factors, the grid of cells, the run order and the workload.
import { useMemo } from 'react';
import { buildPlan, formatDuration } from '../../../common/plan.js';
import { executionsText } from '../../../common/experiment/words.js';
import { learnedEstimate } from '../../../common/stats/planner.js';
import { useApp } from '../../store/index.js';
import { FactorsEditor } from './FactorsEditor.js';
import { MatrixGrid } from './MatrixGrid.js';
import { designProblems } from './problems.js';
import { RunOrderEditor } from './RunOrderEditor.js';
import { WorkloadEditor } from './WorkloadEditor.js';

export function DesignerView() {
  const doc = useApp((s) => s.doc)!;
  const notices = useApp((s) => s.notices);
  const design = doc.design;
  const problems = useMemo(() => designProblems(design), [design]);
  // At the costs the file's own run measured when it has one (issue 21: the estimates learn), as the Plan view.
  const learned = useMemo(() => learnedEstimate(doc, buildPlan(design).length), [doc, design]);
  const estimate = learned.estimate;
  return (
    <div className="designer" data-testid="designer">
      {notices.length > 0 && (
        <div className="notice" data-testid="notices">
          {notices.map((n) => (
            <div key={n}>{n}</div>
          ))}
        </div>
      )}
      {doc.description && <p className="description muted">{doc.description}</p>}
      <p className="summary" data-testid="design-summary">
        {/* With "Stop when answered" the restarts per cell are the rule's most, as the Plan and Run views say. */}
        {design.stopping ? 'at most ' : ''}
        {estimate.restarts} restarts · {executionsText(estimate.executions, design.workload.kind)} · about <strong>{formatDuration(estimate.seconds)}</strong>
        {learned.costs.source === 'journal' && <span className="muted" data-testid="design-estimate-basis"> (costs {learned.basis})</span>}
        {design.stopping && (
          <span className="muted" data-testid="design-stopping">
            {' '}
            · stop when answered: target ±{design.stopping.effect} %, α {design.stopping.alpha}, at most {design.stopping.maxRestartsPerCell} restarts per cell (the Run view sets it)
          </span>
        )}
      </p>
      <div className="designer-columns">
        <div className="col">
          <FactorsEditor design={design} problems={problems} />
        </div>
        <div className="col wide">
          <MatrixGrid design={design} problem={problems['design.excludedCells']} />
          <RunOrderEditor design={design} />
        </div>
      </div>
      <WorkloadEditor design={design} problems={problems} />
    </div>
  );
}
