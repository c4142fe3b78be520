// How restarts are ordered: randomized with a seed, interleaved (rotating each round) or blocked.
import { MIN_RESTARTS } from '../../../common/stats/evidence.js';
import { useMemo } from 'react';
import type { Design, OrderKind } from '../../../common/experiment/types.js';
import { orderPreview } from './order-preview.js';
import { NumberField } from '../../components/NumberField.js';
import { newSeed } from '../../store/doc.js';
import { useDesignEdit } from './FactorsEditor.js';

const ORDERS: { id: OrderKind; label: string; help: string }[] = [
  { id: 'random', label: 'Randomized', help: 'Each round a fresh seeded permutation of the cells: drift spreads evenly over all cells.' },
  { id: 'interleaved', label: 'Interleaved', help: 'A B C, then B C A, then C A B …: every cell once per round, rotating so none always runs first.' },
  { id: 'blocked', label: 'Blocked', help: 'A A A, B B B, C C C: all restarts of a cell in a row.' },
];

/** A seed from the browser's random source, so "new seed" never repeats a recent one by accident. */
function freshSeed(): number {
  const a = new Uint32Array(1);
  crypto.getRandomValues(a);
  return a[0] || newSeed();
}

/** The first rounds of the plan (order-preview.ts): levels for one factor, else cell numbers as in the grid. */
function OrderPreview({ design }: { design: Design }) {
  const { lines, byLevel } = useMemo(() => orderPreview(design), [design]);
  return (
    <div className="order-preview muted small" data-testid="order-preview" title={byLevel ? 'Each restart named by its level' : 'Cells numbered as in the grid, row by row'}>
      {lines.map((l) => (
        <div key={l.label}>
          <span className="order-preview-label">{l.label}:</span> <code>{l.cells.join(' ')}{l.more ? ' …' : ''}</code>
        </div>
      ))}
    </div>
  );
}

export function RunOrderEditor({ design }: { design: Design }) {
  const change = useDesignEdit();
  return (
    <section className="panel" data-testid="run-order">
      <h2>Run order</h2>
      <div className="radios" role="radiogroup" aria-label="Run order">
        {ORDERS.map((o) => (
          <label key={o.id} className={`radio${design.order === o.id ? ' on' : ''}`} title={o.help}>
            <input type="radio" name="order" value={o.id} checked={design.order === o.id} onChange={() => change((d) => ({ ...d, order: o.id }))} data-testid={`order-${o.id}`} />
            {o.label}
            <span className="muted small"> {o.help}</span>
          </label>
        ))}
      </div>
      <OrderPreview design={design} />
      {design.order === 'random' && (
        <div className="row">
          <NumberField label="Seed" value={design.seed} min={0} max={4294967295} onChange={(seed) => change((d) => ({ ...d, seed }), 'seed')} testid="seed" help="The same seed gives the same order everywhere." />
          <button onClick={() => change((d) => ({ ...d, seed: freshSeed() }))} data-testid="new-seed">
            New seed
          </button>
        </div>
      )}
      {design.order === 'blocked' && (
        <p className="warning" data-testid="blocked-warning" role="alert">
          ⚠ Blocked order runs all restarts of a cell in a row. Anything that drifts over time (temperature, background jobs, SSD state, the page cache)
          then looks like an effect of the cell. Use it only to compare with old results; prefer randomized or interleaved.
        </p>
      )}
      <div className="row">
        <NumberField
          label="Restarts per cell"
          value={design.restartsPerCell}
          min={1}
          max={10000}
          onChange={(n) => change((d) => ({ ...d, restartsPerCell: n }), 'restartsPerCell')}
          testid="restarts-per-cell"
          help="How many times each cell's server is started and measured: the between-restart spread needs several."
        />
        {design.restartsPerCell < MIN_RESTARTS && (
          <p className="warning" data-testid="few-restarts-warning">
            With {design.restartsPerCell} restart{design.restartsPerCell === 1 ? '' : 's'} per cell, Analysis shows the spread but no minimum detectable effect, and the planner has nothing to
            plan from: both need {MIN_RESTARTS} restarts per cell or more.
          </p>
        )}
        <NumberField
          label="Idle between restarts"
          unit="s"
          integer={false}
          value={design.idleSeconds}
          min={0}
          max={86400}
          onChange={(n) => change((d) => ({ ...d, idleSeconds: n }), 'idleSeconds')}
          testid="idle-seconds"
          help="Spent before each start, with mysqld stopped and the host set for the cell: the same before every restart, so background work (flushing, SSD GC, cooling) is alike for all."
        />
      </div>
    </section>
  );
}
