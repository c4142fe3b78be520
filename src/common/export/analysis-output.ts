// What `varlab analyze` prints: the JSON (issue 5's fields, issue 12's additions) and the aligned text
// tables a person reads in a terminal. Here rather than in the command, so the command only reads its
// input and options, and the words match the report and the views (they share format.ts).
import type { Analysis } from '../stats/analysis.js';
import { ADJUSTMENT_NAMES, familySize } from '../stats/adjust.js';
import { MIN_RESTARTS, outOfReachText } from '../stats/evidence.js';
import { MDE_LABELS } from '../stats/mde.js';
import type { CellIntervals, IntervalSteady, RestartIntervals } from '../stats/intervals.js';
import { steadyText, type SteadyCounts } from '../stats/steady.js';
import { fewRestartsOf } from './context.js';
import type { Workload } from '../experiment/types.js';
import { executionsText, measuresText, measureWord, reasonFor } from '../experiment/words.js';
import { effectConvention, fmtEffect, fmtInterval, fmtP, fmtPctValue, fmtVerdict, inOrder, levelPct, NA, textTable } from './format.js';

/** The JSON of `analyze --json`: nulls kept, reasons beside them, the methods named. */
export function analysisJson(a: Analysis) {
  return {
    settings: a.settings,
    methods: a.methods,
    cells: a.cells,
    comparisons: a.comparisons,
    summary: a.summary,
    pairing: a.pairing,
    mde: a.mde.map((m) => ({ query: m.query, ...m.mde })),
    ranking: a.ranking,
    bimodal: a.bimodal,
    bimodal_unjudged: a.bimodal_unjudged,
    warmup_suggestion: a.warmup,
    ...(a.hosts ? { hosts: a.hosts } : {}),
    ...(a.grown ? { grown: a.grown } : {}),
  };
}

/** A grown design in one line: which cells a later run measured, and how they are compared. */
export function grownText(g: NonNullable<Analysis['grown']>): string {
  const runs = [...new Set(Object.values(g.parts).flat())].sort((x, y) => x - y);
  const later = g.later.length ? `; measured later: ${g.later.map((c) => `${c} (run ${g.parts[c].join(', ')})`).join(', ')}` : '';
  return `Grown design: measured in ${runs.length} runs (run --missing)${later}. ${g.why[0].toUpperCase()}${g.why.slice(1)}.`;
}

export interface TextHeader {
  name: string;
  cells: number;
  queries: number;
  executions: number;
  /** The workload's kind when known (an experiment's): a command's runs are not called executions. */
  kind?: Workload['kind'];
  /** The file ran with its stopping rule (design.stopping): the fixed-sample comparisons are said not valid under it. */
  ruled?: boolean;
  /** The timer note, a line per host (timer-note.ts timerLines): which timer measured when it is not the exact one. */
  timer?: string[];
}

const pct = (x: number | null) => fmtPctValue(x);
/** Cells and queries listed by name under the steady-state line; the rest are counted. */
const STEADY_ROWS = 20;

/**
 * The steady-state classes in a few words: totals over every restart, how many cell and query pairs
 * disagree, and a row (cell, query, classes, consistent, warm-up) for each pair that is not all flat,
 * inconsistent ones first. Shared by the text output and the report.
 */
export function steadyOverview(a: Analysis, kind?: Workload['kind']): { totals: string; inconsistent: string; rows: string[][] } {
  const one = measureWord(kind);
  const series = a.warmup.queries.flatMap((q) => q.cells);
  const sum: SteadyCounts = { flat: 0, warmup: 0, slowdown: 0, none: 0 };
  for (const s of series) for (const k of Object.keys(sum) as (keyof SteadyCounts)[]) sum[k] += s.steady[k];
  const unclassified = series.reduce((n, s) => n + s.unclassified, 0);
  const bad = series.filter((s) => s.consistent === false).length;
  const notFlat = series.filter((s) => s.steady.warmup + s.steady.slowdown + s.steady.none > 0);
  notFlat.sort((x, y) => Number(x.consistent !== false) - Number(y.consistent !== false));
  return {
    // Counted per query of each restart (a restart of 5 queries counts 5): said, so a total above the restarts run is not a surprise.
    totals: `${steadyText(sum)} (each ${one} of each restart: ${Object.values(sum).reduce((x, y) => x + y, 0)})${unclassified ? `, ${unclassified} too short to classify` : ''}`,
    inconsistent: `${bad} of ${series.length} cell and ${one} pair${series.length === 1 ? '' : 's'} inconsistent (restarts reaching different classes)`,
    rows: notFlat.map((s) => [s.cell, s.query, steadyText(s.steady), s.consistent === null ? NA : s.consistent ? 'yes' : 'no', s.suggested === null ? NA : String(s.suggested)]),
  };
}
const num = (x: number | null) => (x === null ? NA : Math.abs(x) >= 1000 || Number.isInteger(x) ? String(Math.round(x * 100) / 100) : x.toPrecision(4));

/** Said under the fixed-sample comparisons of a run that took the rule's looks (text and report alike). */
export const RULED_NOTE =
  'the run looked at its results as they came (stop when answered): these fixed-sample intervals, p-values and verdicts do not allow for the looks and overstate the evidence. The rule\'s verdict and its repeated intervals, which allow for the looks, are under Stop when answered below';

/** The analysis as lines of text: configurations, per query, MDE, bimodal starts, warm-up, comparisons, and what n/a means. */
export function analysisText(a: Analysis, head: TextHeader): string[] {
  const out: string[] = [];
  const s = a.settings;
  const indent = (lines: string[]) => out.push(...lines.map((l) => '  ' + l));
  // A command's figures are its metric's (tps), not queries; its runs are runs of the command (words.ts).
  const one = measureWord(head.kind);
  out.push(`${head.name}: ${head.cells} cell${head.cells === 1 ? '' : 's'}, ${measuresText(head.queries, head.kind)}, ${executionsText(head.executions, head.kind)}`);
  out.push(`warm-up ${s.warmup} dropped per restart; α ${s.alpha} (intervals at ${levelPct(s.alpha)}%), power ${s.power}; restarts for a ${s.targetEffectPct}% effect`);
  out.push(...(head.timer ?? []));

  const notes = new Map<string, string[]>();
  const note = (where: string, reasons: Record<string, string | undefined> | undefined) => {
    for (const [field, reason] of Object.entries(reasons ?? {})) {
      if (!reason) continue;
      const said = reasonFor(reason, head.kind);
      const list = notes.get(said) ?? [];
      list.push(`${where} ${field}`);
      notes.set(said, list);
    }
  };

  out.push('', `Configurations: difference between the best and the worst restart mean, average and largest over ${measureWord(head.kind, true)}`);
  const stable = a.ranking.most_stable;
  indent(
    textTable(
      ['cell', 'spread avg', 'largest', ''],
      a.cells.map((c) => {
        note(c.cell, c.null_reasons);
        const later = a.grown?.later.includes(c.cell) ? `measured later (run ${a.grown.parts[c.cell].join(', ')})` : '';
        return [c.cell, pct(c.spread_avg_pct), pct(c.spread_max_pct), [c.cell === stable ? '<- most stable' : '', later].filter(Boolean).join('; ')];
      }),
      [false, true, true, false],
    ),
  );
  if (a.grown) out.push(`  ${grownText(a.grown)}`);
  if (stable === null && a.cells.length > 1 && a.ranking.reason) out.push(`  Note: ${a.ranking.reason}.`);
  if (stable !== null && a.ranking.test) out.push(`  ${stable}: ${a.ranking.test}.`);

  out.push('', `Per ${one} (restart means are the unit of evidence)`);
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
  indent(
    textTable(
      ['cell', one, 'restarts', 'reps', oneUnit ? `mean (${oneUnit})` : oneUnit === null ? 'mean (unit not given: --unit)' : 'mean', 'within CoV', 'between CoV', 'ICC', 'spread', `MDE (${MDE_LABELS['per-cell']})`, `restarts for ${s.targetEffectPct}%`],
      rows,
      [false, false, true, true, true, true, true, true, true, true, true],
    ),
  );

  out.push('', `Minimum detectable effect ${MDE_LABELS.pooled} (what two cells of these results can tell apart; the Run view shows the same)`);
  const pooled = inOrder(a.mde, a.order, (m) => m.query);
  indent(
    textTable(
      [one, 'MDE', 'restarts per cell', 'cells', 'between CoV (pooled)'],
      pooled.map((m) => {
        if (m.mde.reason) note(`${m.query} MDE`, { [MDE_LABELS.pooled]: m.mde.reason });
        const cells = m.mde.left_out ? `${m.mde.cells} (${m.mde.left_out} left out: fewer than ${MIN_RESTARTS} restarts)` : String(m.mde.cells);
        return [m.query, pct(m.mde.pct), m.mde.pct === null ? NA : String(m.mde.restarts), m.mde.pct === null ? NA : cells, pct(m.mde.cov_pct)];
      }),
      [false, true, true, true, true],
    ),
  );
  // A planning number past the bound is no plan: say the target is out of reach, at which CoV, and what helps.
  const beyond = a.cells.flatMap((c) => c.queries).filter((q) => q.mde_pct !== null && q.restarts_for_target === null);
  if (beyond.length) {
    const mdes = pooled.map((m) => m.mde.pct).filter((x): x is number => x !== null);
    const worst = Math.max(...beyond.map((q) => q.between_cov_pct ?? 0));
    out.push(`  Note: ${outOfReachText(s.targetEffectPct, worst)}.`);
    const [low, high] = [pct(Math.min(...mdes)), pct(Math.max(...mdes))];
    if (mdes.length) out.push(`  With the restarts measured, the smallest detectable effect is ${low === high ? low : `${low} to ${high}`}; pass --target-effect near that to plan.`);
  }

  if (a.bimodal.length) {
    out.push('', 'Bimodal starts: restart means fall into separated levels (good start, bad start)');
    for (const b of a.bimodal) {
      const groups = b.groups.map((g) => `${g.count} restart${g.count === 1 ? '' : 's'} around ${num(g.mean)} (${g.restarts.join(', ')})`);
      out.push(`  ${b.cell} / ${b.query}: ${groups.join('; ')}`);
    }
  } else if (a.bimodal_unjudged.length < a.restarts.filter((r) => r.means.length).length) out.push('', 'Bimodal starts: none found');
  else out.push('', 'Bimodal starts: no verdict');
  if (a.bimodal_unjudged.length) {
    const cells = [...new Set(a.bimodal_unjudged.map((u) => u.cell))];
    const reasons = [...new Set(a.bimodal_unjudged.map((u) => u.reason))];
    out.push(`  Not judged (${cells.length === a.cells.length ? 'every cell' : cells.join(', ')}): ${reasons.join('; ')}`);
  }

  const w = a.warmup;
  if (w.suggested !== null) {
    const verdict = w.suggested > s.warmup ? `more than the ${s.warmup} dropped: consider --warmup ${w.suggested}` : `the ${s.warmup} dropped are enough`;
    out.push('', `Warm-up from the data: every restart is steady after ${executionsText(w.suggested, head.kind)} (${verdict})`);
  } else out.push('', `Warm-up from the data: no suggestion: ${reasonFor(w.reason ?? '', head.kind)}`);
  const steady = steadyOverview(a, head.kind);
  out.push(`  Steady state per restart: ${steady.totals}; ${steady.inconsistent}`);
  out.push(`  (${w.method})`);
  if (steady.rows.length) {
    indent(textTable(['cell', one, 'restarts', 'consistent', 'warm-up'], steady.rows.slice(0, STEADY_ROWS), [false, false, false, false, true]).map((l) => '  ' + l));
    if (steady.rows.length > STEADY_ROWS) out.push(`    … and ${steady.rows.length - STEADY_ROWS} more (analyze --json has every cell and ${one})`);
  }

  if (a.hosts) out.push('', ...hostsText(a, note, head.kind));

  if (s.baseline !== null) {
    out.push('', `Comparisons with ${s.baseline}`);
    out.push(`  Effect: the ${a.methods.comparison}, at ${levelPct(s.alpha)}%; p adjusted by ${ADJUSTMENT_NAMES[s.adjustment]} over the ${familySize(a.comparisons)} comparisons with a p-value`);
    out.push(`  ${effectConvention(oneUnit)}`);
    // A run that took the rule's looks: as the Analysis view and the report say it (the rule's verdicts follow under Stop when answered).
    if (a.summary) out.push(head.ruled ? `  Fixed-sample, not valid under the rule: ${a.summary}.` : `  ${a.summary}.`);
    out.push(`  ${pairingText(a)}`);
    const few = fewRestartsOf(a);
    if (few) out.push(`  Note: ${few}.`);
    if (head.ruled) out.push(`  Note: ${RULED_NOTE}.`);
    const cellAt = new Map(a.cells.map((c, i) => [c.cell, i]));
    const queryAt = new Map(a.order.map((q, i) => [q, i]));
    const ordered = [...a.comparisons].sort((x, y) => (cellAt.get(x.cell) ?? 0) - (cellAt.get(y.cell) ?? 0) || (queryAt.get(x.query) ?? 0) - (queryAt.get(y.query) ?? 0));
    // Paired comparisons show the unpaired (Welch) interval beside theirs, and what pairing removed.
    const paired = a.pairing.paired > 0;
    indent(
      textTable(
        ['cell', one, 'effect', `${levelPct(s.alpha)}% interval`, ...(paired ? ['pairing', 'unpaired interval', 'variance ratio'] : []), 'p', 'adjusted p', head.ruled ? 'fixed-sample verdict' : 'verdict'],
        ordered.map((c) => {
          note(`${c.cell} vs ${c.baseline} / ${c.query}`, c.null_reasons);
          const side = paired ? [c.pairing, fmtInterval(c.unpaired.ci_low_pct, c.unpaired.ci_high_pct), c.variance_ratio === null ? NA : c.variance_ratio.toFixed(2)] : [];
          return [c.cell, c.query, fmtEffect(c.effect_pct), fmtInterval(c.ci_low_pct, c.ci_high_pct), ...side, fmtP(c.p_value), fmtP(c.p_adjusted), fmtVerdict(c)];
        }),
        [false, false, true, true, ...(paired ? [false, true, true] : []), true, true, false],
      ),
    );
  }

  if (notes.size) {
    out.push('', 'n/a means:');
    for (const [reason, where] of notes) {
      const shown = where.slice(0, 3).join('; ') + (where.length > 3 ? `; and ${where.length - 3} more` : '');
      out.push(`  ${reason} (${shown})`);
    }
  }
  return out;
}

/**
 * Which interval the comparisons use and why, and for a design run in rounds the variance ratio
 * paired/unpaired (issue 21): `Paired within rounds (…): variance paired/unpaired median 0.62 over 6 comparisons`.
 */
export function pairingText(a: Pick<Analysis, 'pairing'>): string {
  const p = a.pairing;
  if (!p.comparisons) return `Pairing: ${p.why}`;
  if (!p.paired) return `Unpaired (Welch): ${p.why}${p.not_compared ? ` (${p.not_compared} of ${p.comparisons} comparisons not made, their cells measured in different runs)` : ''}`;
  const ratio = p.variance_ratio_median === null ? '' : `; variance paired/unpaired: median ${p.variance_ratio_median.toFixed(2)} over ${p.paired} comparison${p.paired === 1 ? '' : 's'}`;
  const apart = p.not_compared ? `; ${p.not_compared} not compared, their cells measured in different runs` : '';
  const unpaired = p.comparisons - p.paired - (p.not_compared ?? 0);
  const some = p.paired < p.comparisons ? ` (${p.paired} of ${p.comparisons} comparisons${apart}${unpaired ? `; the other${unpaired === 1 ? '' : 's'} unpaired, with the reason in ${unpaired === 1 ? 'its' : 'their'} pairing_reason` : ''})` : '';
  return `Paired within rounds: ${p.why}, so the within-round difference removes the drift both cells share${some}${ratio}`;
}

/**
 * The host block factor in text: spread between hosts beside spread between restarts (per cell and
 * query), then the host × factor interactions, flagged ones first. Shared by the text and the report.
 */
export function hostsText(a: Analysis, note: (where: string, reasons: Record<string, string | undefined> | undefined) => void = () => {}, kind?: Workload['kind']): string[] {
  const h = a.hosts!;
  const one = measureWord(kind);
  const out = [`Hosts (${h.hosts.join(', ')}): the host is a block factor named ${h.factor}`, `  ${h.summary}.`];
  out.push(`  Spread between hosts beside spread between restarts (${a.methods.host_spread})`);
  const spread = [...h.spread].sort((x, y) => (x.cell < y.cell ? -1 : x.cell > y.cell ? 1 : a.order.indexOf(x.query) - a.order.indexOf(y.query)));
  out.push(
    ...textTable(
      ['cell', one, 'hosts', 'between hosts', 'between restarts'],
      spread.map((r) => {
        note(`${r.cell || '(no factors)'} / ${r.query}`, r.null_reasons);
        return [r.cell || '(no factors)', r.query, String(r.n_hosts), pct(r.between_host_cov_pct), pct(r.between_restart_cov_pct)];
      }),
      [false, false, true, true, true],
    ).map((l) => '    ' + l),
  );
  if (h.interactions.length) {
    out.push(`  Host × factor interactions (${a.methods.host_interaction})`);
    const rows = [...h.interactions].sort((x, y) => Number(!x.flagged) - Number(!y.flagged));
    out.push(
      ...textTable(
        ['factor', 'level', one, ...h.hosts.map((x) => `effect on ${x}`), 'F', 'p', 'adjusted p', ''],
        rows.map((i) => {
          note(`${i.factor}=${i.level} × host / ${i.query}`, i.null_reasons);
          return [i.factor, `${i.level} vs ${i.baseline_level}`, i.query, ...h.hosts.map((x) => fmtEffect(i.effects_pct[x] ?? null)), i.f === null ? NA : i.f.toFixed(2), fmtP(i.p_value), fmtP(i.p_adjusted), i.flagged ? 'differs between hosts' : ''];
        }),
        [false, false, false, ...h.hosts.map(() => true), true, true, true, false],
      ).map((l) => '    ' + l),
    );
  }
  return out;
}

/** Restarts listed under the intervals' steady state; the rest are counted. */
const INTERVAL_ROWS = 40;

const seconds = (x: number | null) => (x === null ? NA : `${num(x)} s`);

/** A cell's steady state on its interval lines, in words: its classes, and the intervals to skip. */
export function intervalCellText(c: CellIntervals): string {
  const skip = c.suggested === null ? `no suggestion: ${c.reason}` : c.suggested === 0 ? 'steady from the first interval' : `steady after ${c.suggested} interval${c.suggested === 1 ? '' : 's'} (${seconds(c.suggestedSeconds)}): skip them`;
  return `${steadyText(c.steady)}${c.unclassified ? `, ${c.unclassified} too short to classify` : ''}; ${skip}`;
}

/** The columns of a restart's row, in the text, the report and the Analysis view alike. */
export const INTERVAL_COLUMNS = ['restart', 'cell', 'intervals', 'class', 'skipped', 'steady tps', 'run tps'] as const;

/** A restart's row under INTERVAL_COLUMNS. */
export function intervalRestartRow(r: RestartIntervals): string[] {
  const kind = r.kind === null ? 'too short' : r.kind === 'warmup' ? 'warm-up' : r.kind === 'none' ? 'no steady state' : r.kind;
  return [String(r.seq), r.cell, String(r.intervals), kind, seconds(r.discardSeconds), num(r.steadyTps), num(r.runTps)];
}

/** The heading line: how long an interval is, and what is classified. */
export function intervalsHeading(s: IntervalSteady): string {
  return `Intervals (${num(s.intervalSeconds)} s each): steady state per restart, on the interval tps`;
}

/**
 * The benchmark's interval lines (sysbench --report-interval) per restart: its steady-state class, the
 * intervals before its steady state, its steady tps beside its run tps; per cell, the intervals to skip.
 */
export function intervalsText(s: IntervalSteady): string[] {
  const out = ['', intervalsHeading(s), `  (${s.method})`];
  for (const c of s.cells) out.push(`  ${c.cell}: ${intervalCellText(c)}`);
  out.push(
    ...textTable(
      [...INTERVAL_COLUMNS],
      s.restarts.slice(0, INTERVAL_ROWS).map(intervalRestartRow),
      [true, false, true, false, true, true, true],
    ).map((l) => '  ' + l),
  );
  if (s.restarts.length > INTERVAL_ROWS) out.push(`    … and ${s.restarts.length - INTERVAL_ROWS} more restarts (analyze --json has every one)`);
  return out;
}
