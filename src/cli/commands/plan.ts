import { readExperimentFile } from '../../node/files.js';
import { describeDataSet } from '../../common/dbt3/scale.js';
import { buildPlan, estimatePlan, expandCells, formatDuration } from '../../common/plan.js';
import type { OrderKind } from '../../common/experiment/types.js';
import { parse, UsageError, type Command } from '../io.js';

const ORDERS: OrderKind[] = ['random', 'interleaved', 'blocked'];

export const plan: Command = {
  name: 'plan',
  usage:
    'varlab plan FILE [--order random|interleaved|blocked] [--json]\n\n' +
    'Prints one line per scheduled restart: its number, round, cell and queries, and the estimated duration.\n' +
    '--order   overrides the order in the file\n' +
    '--json    an array with one object per scheduled restart: {seq, round, restartOfCell, cell, levels, queries}',
  async run(argv, io) {
    const { values, positionals } = parse(argv, { order: { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const order = values.order as OrderKind | undefined;
    if (order && !ORDERS.includes(order)) throw new UsageError(`--order: expected one of ${ORDERS.join(', ')}, got ${JSON.stringify(order)}`);
    const r = await readExperimentFile(positionals[0]);
    if (!r.doc) {
      for (const p of r.problems) io.err(`${positionals[0]}: ${p}`);
      return 2;
    }
    const design = r.doc.design;
    const schedule = buildPlan(design, order ?? design.order);
    const levels = new Map(expandCells(design).map((c) => [c.id, c.levels]));
    if (values.json) {
      io.out(JSON.stringify(schedule.map((s) => ({ seq: s.seq, round: s.round, restartOfCell: s.restartOfCell, cell: s.cell, levels: levels.get(s.cell), queries: s.queries })), null, 2));
      return 0;
    }
    const est = estimatePlan(design, schedule.length);
    const kind = order ?? design.order;
    io.out(`${r.doc.name}: ${schedule.length} restarts, ${kind} order, about ${formatDuration(est.seconds)}`);
    if (design.workload.data) io.out(`data step: ${describeDataSet(design.workload.database, design.workload.data)} (about ${formatDuration(est.dataSeconds)}, counted once)`);
    if (kind === 'blocked') io.out('warning: blocked order (A A A B B B) lets drift over time look like a difference between cells');
    const width = String(schedule.length).length;
    for (const s of schedule) io.out(`${String(s.seq).padStart(width)}  round ${s.round}  ${s.cell}  (${s.queries.length} queries)`);
    return 0;
  },
};
