import { readExperimentFile } from '../../node/files.js';
import { describeDataSet } from '../../common/dbt3/scale.js';
import { buildPlan, expandCells, formatDuration } from '../../common/plan.js';
import type { OrderKind } from '../../common/experiment/types.js';
import { numberOption, parse, UsageError, type Command } from '../io.js';
import { analyze, dataDirectories, DEFAULTS, learnedEstimate, targetEffectOf, measuredCosts, planningTable, planningTableText, loadText, runDate, tidyFromExperiment } from '../../common/stats/index.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';

const ORDERS: OrderKind[] = ['random', 'interleaved', 'blocked'];

export const plan: Command = {
  name: 'plan',
  usage:
    'varlab plan FILE [--order random|interleaved|blocked] [--json]\n' +
    'varlab plan FILE --effect E [--from EARLIER.varlab.json]\n\n' +
    'Prints the estimated duration, then, for a file with a run, the planning table: per query the MDE now, the\n' +
    'between-restart CoV, the restarts per cell needed to see the target effect (the design\'s stopping effect, else\n' +
    `${DEFAULTS.targetEffectPct}%) and the optimal repetitions, and the time that takes; then one line per scheduled restart:\n` +
    'its number, round, cell and queries. Times use the costs measured in the file\'s own run when it has one\n' +
    '("from the run of DATE"), else the design\'s estimates; the idle time is counted once, and what that run took\n' +
    'before its first restart and after its last is added once.\n' +
    '--order   overrides the order in the file\n' +
    '--json    an array with one object per scheduled restart: {seq, round, restartOfCell, cell, levels, queries}\n' +
    '--effect E  instead, plan FILE to see an E% effect: restarts per cell, repetitions, warm-up and time, from the\n' +
    '            variance components and costs measured in the run of FILE, or of EARLIER with --from',
  async run(argv, io) {
    const { values, positionals } = parse(argv, { order: { type: 'string' }, json: { type: 'boolean' }, effect: { type: 'string' }, from: { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    if (values.from !== undefined && values.effect === undefined) throw new UsageError('--from: goes with --effect E');
    if (values.effect !== undefined) {
      const effect = numberOption('effect', values.effect, { min: 0, max: 99.99 })!;
      if (!(effect > 0)) throw new UsageError('--effect: expected a percentage above 0');
      return planForEffect(positionals[0], effect, values.from, io);
    }
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
    const { estimate: est, basis, costs } = learnedEstimate(r.doc, schedule.length);
    const kind = order ?? design.order;
    io.out(`${r.doc.name}: ${design.stopping ? 'at most ' : ''}${schedule.length} restarts, ${kind} order, about ${formatDuration(est.seconds)} (costs ${basis})`);
    const dirs = dataDirectories(design);
    if (design.workload.data) io.out(`data step: ${describeDataSet(design.workload.database, design.workload.data)} (${loadText(design, costs)}${dirs > 1 ? `; ${dirs} builds' data directories` : ''})`);
    if (kind === 'blocked') io.out('warning: blocked order (A A A B B B) lets drift over time look like a difference between cells');
    if (r.doc.results?.restarts.some((x) => x.status === 'ok')) {
      const target = targetEffectOf(design);
      io.out(`planning the next run for a ${target}% effect (varlab plan FILE --effect E for another):`);
      for (const line of planningLines(r.doc, r.doc, target)) io.out(line);
    }
    const width = String(schedule.length).length;
    for (const s of schedule) io.out(`${String(s.seq).padStart(width)}  round ${s.round}  ${s.cell}  (${s.queries.length} queries)`);
    return 0;
  },
};

/** The planning table of `doc` at the variance components and costs measured in `measured` (the same file, or --from). */
function planningLines(doc: ExperimentDoc, measured: ExperimentDoc, effect: number): string[] {
  const a = analyze(tidyFromExperiment(measured), { warmup: measured.design.workload.warmup, targetEffectPct: effect });
  const t = planningTable(doc, a, effect, measuredCosts(measured));
  return [...planningTableText(t), `  ${t.pairing}.`, `  ${t.costs}`, `  ${t.suggestion}`, ...t.notes.map((n) => `  Note: ${n}.`)];
}

/**
 * `plan FILE --effect E`: the planning table (stats/planner.ts, as the Planning panel and the Markdown
 * report give it) on the run of FILE or of EARLIER: variance components and costs measured there, the
 * design of FILE planned with them.
 */
async function planForEffect(file: string, effect: number, from: string | undefined, io: Parameters<Command['run']>[1]): Promise<number> {
  const read = async (path: string): Promise<ExperimentDoc | null> => {
    const r = await readExperimentFile(path);
    if (!r.doc) for (const p of r.problems) io.err(`${path}: ${p}`);
    return r.doc;
  };
  const doc = await read(file);
  if (!doc) return 2;
  const measured = from === undefined ? doc : await read(from);
  if (!measured) return 2;
  const source = from ?? file;
  if (!measured.results?.restarts.some((r) => r.status === 'ok')) {
    io.err(`${source}: no measured run to plan from: run it first${from === undefined ? `, or give --from EARLIER.varlab.json` : ''}`);
    return 2;
  }
  io.out(`${doc.name}: plan for a ${effect}% effect, from the run of ${runDate(measured.results.startedAt ?? measured.results.restarts[0]?.startedAt)} (${source})`);
  for (const line of planningLines(doc, measured, effect)) io.out(line);
  return 0;
}
