// `varlab analyze FILE`: within-restart against between-restart spread, the minimum detectable effect,
// bimodal starts, a warm-up read from the data, and comparisons with a baseline cell. FILE is an
// experiment file, a tidy CSV (`cell,restart,query,rep,value`) from any other tool, or a CSV that
// `varlab export` wrote; node/analysis-input.ts reads it, this module analyses and prints.
import { InputError, readAnalysisInput } from '../../node/analysis-input.js';
import { analyze as runAnalysis, DEFAULTS, type Analysis, type TidyData } from '../../common/stats/index.js';
import { fewRestartsOf } from '../../common/export/context.js';
import { effectConvention, fmtEffect, fmtInterval, fmtP, fmtPctValue, inOrder, NA, textTable } from '../../common/export/format.js';
import { numberOption, parse, UsageError, type CliIO, type Command } from '../io.js';

const USAGE = `varlab analyze FILE [--json] [--warmup W] [--alpha A] [--power P] [--target-effect PCT] [--baseline CELL] [--unit U]

FILE is an experiment file (*.varlab.json; only restarts with status ok count), a tidy CSV with the
header cell,restart,query,rep,value (rep counts from 1 within a restart and query; other columns are
ignored), or a CSV written by varlab export: executions.csv (its warm-up and units come along) or
restarts.csv (restart means: within-restart figures need the executions). Numbers are decimal.
  --warmup W          drop repetitions 1..W of every restart (default: the experiment's or executions.csv's warm-up, 0 for a CSV)
  --alpha A           significance level of the minimum detectable effect (default ${DEFAULTS.alpha})
  --power P           power of the minimum detectable effect (default ${DEFAULTS.power})
  --target-effect PCT the effect restarts_for_target is computed for, in percent (default ${DEFAULTS.targetEffectPct})
  --baseline CELL     compare every other cell with CELL (95% Welch interval on restart means)
  --unit U            the unit of a CSV's values (ms, tps…); an experiment file records its own
  --json              {"cells":[{"cell","spread_avg_pct","spread_max_pct","queries":[{"query","n_restarts",
                      "reps_per_restart","mean","within_cov_pct","between_cov_pct","sigma_within","sigma_between",
                      "icc","spread_pct","mde_pct","restarts_for_target","unit"}]}],"comparisons":[{"cell","baseline","query",
                      "effect_pct","ci_low_pct","ci_high_pct","p_value"}],"bimodal":[…],"warmup_suggestion":{…}}
                      A value that cannot be computed is null, with the reason in "null_reasons".
Exit 0 on success, 2 on bad options or input (each problem names the line or JSON path), 1 otherwise.`;

function probability(name: string, value: string | undefined): number | undefined {
  const n = numberOption(name, value, { min: 0, max: 1 });
  if (n !== undefined && (n <= 0 || n >= 1)) throw new UsageError(`--${name}: expected a number between 0 and 1 (exclusive), got ${JSON.stringify(value)}`);
  return n;
}

export const analyze: Command = {
  name: 'analyze',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean' },
      warmup: { type: 'string' },
      alpha: { type: 'string' },
      power: { type: 'string' },
      'target-effect': { type: 'string' },
      baseline: { type: 'string' },
      unit: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const file = positionals[0];
    const warmupOpt = numberOption('warmup', values.warmup, { integer: true, min: 0 });
    const alpha = probability('alpha', values.alpha);
    const power = probability('power', values.power);
    const target = numberOption('target-effect', values['target-effect'], { min: 0 });
    if (target === 0) throw new UsageError('--target-effect: expected a percentage above 0');
    if (values.unit !== undefined && !/^[\p{L}\p{N}/%µ._-]{1,20}$/u.test(values.unit)) throw new UsageError(`--unit: expected a short unit such as ms or tps, got ${JSON.stringify(values.unit)}`);

    let loaded;
    try {
      loaded = await readAnalysisInput(file, { unit: values.unit });
    } catch (e) {
      if (e instanceof InputError) {
        io.err(e.message);
        return 2;
      }
      throw e;
    }
    const { data } = loaded;
    if (loaded.form === 'restart-means' && warmupOpt) throw new UsageError(`--warmup: ${file} holds restart means, whose warm-up was dropped when they were written`);
    if (values.baseline !== undefined && !data.cells.includes(values.baseline)) {
      throw new UsageError(`--baseline: no cell ${JSON.stringify(values.baseline)} in ${file}; cells: ${data.cells.join(' | ')}`);
    }
    const a = runAnalysis(data, { warmup: warmupOpt ?? loaded.warmup, alpha, power, targetEffectPct: target, baseline: values.baseline });
    if (values.json) io.out(JSON.stringify(toJson(a), null, 2));
    else printText(a, data, loaded.name, io);
    return 0;
  },
};

/** The JSON of issue 5 (plus bimodal starts and the warm-up suggestion), nulls kept, reasons beside them. */
export function toJson(a: Analysis) {
  return {
    settings: a.settings,
    cells: a.cells,
    comparisons: a.comparisons,
    bimodal: a.bimodal,
    warmup_suggestion: a.warmup,
  };
}

// ---------------------------------------------------------------------------------------------
// Text output: aligned tables a person reads in a terminal.

const table = textTable;
/** Beyond this many restarts per cell a plan is no plan (see PlanningPanel for the same limit). */
const PLAN_LIMIT_RESTARTS = 1000;
const pct = (x: number | null) => fmtPctValue(x);
const num = (x: number | null) => (x === null ? NA : Math.abs(x) >= 1000 || Number.isInteger(x) ? String(Math.round(x * 100) / 100) : x.toPrecision(4));

function printText(a: Analysis, data: TidyData, name: string, io: CliIO) {
  const s = a.settings;
  io.out(`${name}: ${data.cells.length} cells, ${data.queries.length} queries, ${data.values.length.toLocaleString('en-US')} executions`);
  io.out(`warm-up ${s.warmup} dropped per restart; MDE at α ${s.alpha}, power ${s.power}; restarts for a ${s.targetEffectPct}% effect`);

  const notes = new Map<string, string[]>();
  const note = (where: string, reasons: Record<string, string | undefined> | undefined) => {
    for (const [field, reason] of Object.entries(reasons ?? {})) {
      if (!reason) continue;
      const list = notes.get(reason) ?? [];
      list.push(`${where} ${field}`);
      notes.set(reason, list);
    }
  };

  io.out('\nConfigurations: difference between the best and the worst restart mean, average and largest over queries');
  const stable = a.cells.filter((c) => c.spread_avg_pct !== null).sort((x, y) => x.spread_avg_pct! - y.spread_avg_pct!)[0];
  for (const l of table(
    ['cell', 'spread avg', 'largest', ''],
    a.cells.map((c) => {
      note(c.cell, c.null_reasons);
      return [c.cell, pct(c.spread_avg_pct), pct(c.spread_max_pct), c === stable && a.cells.length > 1 ? '<- most stable' : ''];
    }),
    [false, true, true, false],
  ))
    io.out('  ' + l);

  io.out('\nPer query (restart means are the unit of evidence)');
  // People read queries in the workload's order (Q1, Q3, Q6, Q12), not sorted as text; the JSON stays sorted.
  const units = [...new Set(a.cells.flatMap((c) => c.queries.map((q) => q.unit)))];
  const oneUnit = units.length === 1 ? units[0] : undefined;
  const rows: string[][] = [];
  for (const c of a.cells) {
    for (const q of inOrder(c.queries, a.order, (x) => x.query)) {
      note(`${c.cell} / ${q.query}`, q.null_reasons);
      rows.push([
        c.cell,
        q.query,
        String(q.n_restarts),
        num(q.reps_per_restart),
        num(q.mean) + (oneUnit === undefined && q.unit ? ` ${q.unit}` : ''),
        pct(q.within_cov_pct),
        pct(q.between_cov_pct),
        q.icc === null ? NA : q.icc.toFixed(2),
        pct(q.spread_pct),
        pct(q.mde_pct),
        q.restarts_for_target === null ? NA : String(q.restarts_for_target),
      ]);
    }
  }
  for (const l of table(
    ['cell', 'query', 'restarts', 'reps', oneUnit ? `mean (${oneUnit})` : oneUnit === null ? 'mean (unit not given: --unit)' : 'mean', 'within CoV', 'between CoV', 'ICC', 'spread', 'MDE', `restarts for ${s.targetEffectPct}%`],
    rows,
    [false, false, true, true, true, true, true, true, true, true, true],
  ))
    io.out('  ' + l);

  // A planning number in the tens of thousands is not a plan: say the target is out of reach.
  const all = a.cells.flatMap((c) => c.queries);
  const huge = all.filter((q) => q.mde_pct !== null && (q.restarts_for_target === null || q.restarts_for_target > PLAN_LIMIT_RESTARTS));
  if (huge.length) {
    const most = Math.max(...huge.map((q) => q.restarts_for_target ?? Infinity));
    const mdes = all.map((q) => q.mde_pct).filter((x): x is number => x !== null);
    io.out(
      `  Note: a ${s.targetEffectPct}% effect is below what this workload can resolve: ${Number.isFinite(most) ? `up to ${most.toLocaleString('en-US')}` : 'more than a million'} restarts per cell would be needed. ` +
        `With the restarts measured, the smallest detectable effect is ${fmtPctValue(Math.min(...mdes))} to ${fmtPctValue(Math.max(...mdes))}; pass --target-effect near that to plan.`,
    );
  }

  if (a.bimodal.length) {
    io.out('\nBimodal starts: restart means fall into separated levels (good start, bad start)');
    for (const b of a.bimodal) {
      const groups = b.groups.map((g) => `${g.count} restart${g.count === 1 ? '' : 's'} around ${num(g.mean)} (${g.restarts.join(', ')})`);
      io.out(`  ${b.cell} / ${b.query}: ${groups.join('; ')}`);
    }
  } else io.out('\nBimodal starts: none found');

  const w = a.warmup;
  if (w.suggested !== null) {
    const verdict = w.suggested > s.warmup ? `more than the ${s.warmup} dropped: consider --warmup ${w.suggested}` : `the ${s.warmup} dropped are enough`;
    io.out(`\nWarm-up from the data: every restart is steady after ${w.suggested} execution${w.suggested === 1 ? '' : 's'} (${verdict})`);
  } else io.out(`\nWarm-up from the data: no suggestion: ${w.reason}`);

  if (s.baseline !== null) {
    io.out(`\nComparisons with ${s.baseline} (95% Welch interval on restart means)`);
    io.out(`  ${effectConvention(oneUnit)}`);
    const few = fewRestartsOf(a);
    if (few) io.out(`  Note: ${few}.`);
    const cellAt = new Map(a.cells.map((c, i) => [c.cell, i]));
    const queryAt = new Map(a.order.map((q, i) => [q, i]));
    const ordered = [...a.comparisons].sort((x, y) => (cellAt.get(x.cell) ?? 0) - (cellAt.get(y.cell) ?? 0) || (queryAt.get(x.query) ?? 0) - (queryAt.get(y.query) ?? 0));
    for (const l of table(
      ['cell', 'query', 'effect', '95% interval', 'p'],
      ordered.map((c) => {
        note(`${c.cell} vs ${c.baseline} / ${c.query}`, c.null_reasons);
        return [c.cell, c.query, fmtEffect(c.effect_pct), fmtInterval(c.ci_low_pct, c.ci_high_pct), fmtP(c.p_value)];
      }),
      [false, false, true, true, true],
    ))
      io.out('  ' + l);
  } else if (a.cells.length > 1) io.out('\nComparisons: pass --baseline CELL to compare every cell with one of them');

  if (notes.size) {
    io.out('\nn/a means:');
    for (const [reason, where] of notes) {
      const shown = where.slice(0, 3).join('; ') + (where.length > 3 ? `; and ${where.length - 3} more` : '');
      io.out(`  ${reason} (${shown})`);
    }
  }
}
