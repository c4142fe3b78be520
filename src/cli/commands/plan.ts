import { readExperimentFile } from '../../node/files.js';
import { describeDataSet } from '../../common/dbt3/scale.js';
import { buildPlan, estimatePlan, expandCells, formatDuration } from '../../common/plan.js';
import type { OrderKind } from '../../common/experiment/types.js';
import { numberOption, parse, UsageError, type Command } from '../io.js';
import { analyze, measuredCosts, suggestPlan, tidyFromExperiment } from '../../common/stats/index.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';

const ORDERS: OrderKind[] = ['random', 'interleaved', 'blocked'];

export const plan: Command = {
  name: 'plan',
  usage:
    'varlab plan FILE [--order random|interleaved|blocked] [--json]\n' +
    'varlab plan FILE --effect E [--from EARLIER.varlab.json]\n\n' +
    'Prints one line per scheduled restart: its number, round, cell and queries, and the estimated duration.\n' +
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

/** `1 h 05 min` style, with the date of a run as people read it: `2026-11-20 10:00 UTC`. */
const runDate = (ms: number | undefined) => (ms === undefined ? 'an unknown date' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`);

/**
 * `plan FILE --effect E`: the planner (stats/planner.ts, as the Planning panel uses it) on the run of
 * FILE or of EARLIER: variance components and costs measured there, the design of FILE planned with them.
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
  const warmup = measured.design.workload.warmup;
  const a = analyze(tidyFromExperiment(measured), { warmup, targetEffectPct: effect });
  const costs = measuredCosts(measured);
  const p = suggestPlan(doc, a, effect, costs);
  const cells = expandCells(doc.design).filter((c) => !c.excluded).length;
  io.out(`${doc.name}: plan for a ${effect}% effect, from the run of ${runDate(measured.results.startedAt ?? measured.results.restarts[0]?.startedAt)} (${source})`);
  io.out(`  costs ${costs.source === 'journal' ? 'measured' : 'from the design\'s estimates (the run measured no durations)'}: ${costs.restartSeconds.toFixed(1)} s per restart beyond its executions, ${(costs.executionSeconds * 1000).toFixed(1)} ms per execution, idle ${doc.design.idleSeconds} s`);
  for (const q of p.queries) {
    const need = q.restartsNeeded === null ? `n/a (${q.reasons.restartsNeeded})` : String(q.restartsNeeded);
    io.out(`  ${q.query}: between-restart CoV ${q.mde.cov_pct === null ? 'n/a' : `${q.mde.cov_pct.toFixed(2)}%`}, restarts per cell needed ${need}`);
  }
  io.out(`  restarts per cell: ${p.restartsPerCell ?? 'none can show it'}`);
  io.out(`  repetitions per restart: ${p.repetitions} (warm-up ${warmup}${p.measuredRepetitions === null ? '; kept from the design' : `, then ${p.measuredRepetitions} measured`})`);
  io.out(`  time: ${p.seconds === null ? 'n/a' : `about ${formatDuration(p.seconds)} for ${cells} cells`} (the design as it is: ${formatDuration(p.currentSeconds)})`);
  for (const r of p.reasons) io.out(`  Note: ${r}.`);
  if (p.outOfReach) io.out(`  Note: ${p.outOfReach.text}.`);
  return 0;
}
