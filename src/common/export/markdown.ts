// The Markdown report: everything someone needs to judge (and reproduce) the numbers, pasteable into a
// bug report or a GitHub issue as it is: the design, the host, the configurations table, comparisons
// with the baseline, the minimum detectable effect, and links to the exported plots.
import type { RestartResult } from '../experiment/types.js';
import { executionsText, executionWord, measureWord, reasonFor } from '../experiment/words.js';
import type { ExportContext } from './context.js';
import { conventionOf, fewRestartsOf, fixed, hostLine, levelsOf, resultsDate } from './context.js';
import { fmtEffect, fmtInterval, fmtP, fmtVerdict, levelPct } from './format.js';
import { formatDuration } from '../plan.js';
import { timerLines } from '../timer-note.js';
import { dataSetLines } from '../dbt3/words.js';
import { ruleBaseline, ruleVerdictsFor, stopsOf } from '../stats/replay.js';
import { intervalNames, ruleVerdictLabel, sequentialVerdictText } from '../stats/sequential.js';
import { grownText, INTERVAL_COLUMNS, intervalCellText, intervalRestartRow, intervalsHeading, pairingText, steadyOverview } from './analysis-output.js';
import { intervalSteady } from '../stats/intervals.js';
import { STEADY_METHOD } from '../stats/steady.js';
import { cellsOfRestarts, meanBetweenCov, noiseLines, noiseSummary } from '../noise.js';
import { ADJUSTMENT_NAMES, familySize } from '../stats/adjust.js';
import { outOfReachText, PLAN_LIMITS } from '../stats/evidence.js';
import { MDE_LABELS } from '../stats/mde.js';
import { planningTable } from '../stats/planner.js';
import { findCell, findComparison } from '../stats/analysis.js';

export interface MarkdownOptions {
  /** Relative paths (from the report) of exported images, shown as links with their titles. */
  images?: { title: string; path: string }[];
  /** How long the report may be: comparisons beyond this many rows are summarized. Default 200. */
  maxComparisonRows?: number;
}

/** A table cell: pipes and newlines would break the table, so they are escaped. */
export function mdCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function tableMd(header: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const sep = header.map((_, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---'));
  return [header, sep, ...rows].map((r, i) => `| ${(i === 1 ? r : r.map(mdCell)).join(' | ')} |`).join('\n');
}

/** What the report calls a workload's figures: a query, or a command's metric (words.ts). */
const one = (ctx: ExportContext, plural = false) => measureWord(ctx.doc.design.workload.kind, plural);
const code = (s: string) => '`' + s.replace(/`/g, "'") + '`';

function designSection(ctx: ExportContext): string[] {
  const d = ctx.doc.design;
  const w = d.workload;
  const lines = ['## Design', ''];
  lines.push(tableMd(['factor', 'levels'], d.factors.map((f, i) => [ctx.factors[i], f.levels.join(', ')])));
  lines.push('');
  const planned = ctx.cells.length;
  lines.push(`- Cells with results: ${planned}${d.excludedCells.length ? ` (${d.excludedCells.length} excluded from the design)` : ''}`);
  // Run until answered: the restarts per cell are the rule's most, and the run may have stopped before it (as the Designer says).
  const stops = ctx.doc.results?.stopped ?? [];
  const perCell = d.stopping
    ? `at most ${d.restartsPerCell} (stop when answered, target ±${d.stopping.effect} %${stops.length ? `; stopped at round ${stops.map((x) => x.round).join(', ')}` : ''})`
    : String(d.restartsPerCell);
  lines.push(`- Restarts per cell: ${perCell}, run order: ${d.order}${d.order === 'random' ? ` (seed ${d.seed})` : ''}, idle ${d.idleSeconds} s between restarts`);
  if (w.kind === 'command' && w.command) {
    lines.push(`- Workload: the command ${code(w.command.line)}, measuring ${w.command.metric} (${w.command.unit}, ${w.command.higherIsBetter ? 'higher' : 'lower'} is better)`);
  } else {
    lines.push(`- Workload: ${w.queries.length} quer${w.queries.length === 1 ? 'y' : 'ies'} in database ${code(w.database)}: ${w.queries.map((q) => q.name).join(', ')}`);
  }
  // The data set the numbers were measured on: what the data step loaded, as the file keeps it.
  lines.push(...dataSetLines(d, ctx.doc.results).map((l) => `- Data: ${l}`));
  lines.push(`- Repetitions per restart: ${w.repetitions}, warm-up: the first ${w.warmup} dropped${ctx.warmup !== w.warmup ? ` (this report drops ${ctx.warmup})` : ''}`);
  const results = ctx.doc.results;
  if (results) {
    const failed = results.restarts.filter((r) => r.status !== 'ok');
    const span = results.startedAt && results.finishedAt ? `, ${formatDuration((results.finishedAt - results.startedAt) / 1000)}` : '';
    lines.push(`- Restarts run: ${results.restarts.length}${failed.length ? ` (${failed.length} not counted: ${failed.map((r) => `#${r.seq} ${r.status}${r.reason ? ` (${r.reason})` : ''}`).join('; ')})` : ''}${span}`);
    const options = serverOptionsLine(results.restarts);
    if (options) lines.push(options);
    lines.push(...buildLines(results.restarts));
    lines.push(...timerLines(ctx.doc).map((l) => `- ${l}`));
    const sources = [...new Set(results.restarts.flatMap((r) => r.queries.map((q) => q.source)))];
    if (sources.length) lines.push(`- Timing source: ${sources.join(', ')}; unit: ${ctx.unit || 'unknown'}`);
  }
  return lines;
}

/**
 * The server profile's own options (buffer pool size, …), as the live server reported them at each
 * restart: what the numbers were measured with beyond the factors, and whether it held every time.
 */
function serverOptionsLine(restarts: RestartResult[]): string | null {
  const seen = new Map<string, { level: string; read: number; ok: number; off: string[]; unverifiable: boolean }>();
  for (const r of restarts) {
    for (const o of r.options ?? []) {
      const s = seen.get(o.tunable) ?? { level: o.level, read: 0, ok: 0, off: [], unverifiable: false };
      if (o.verifiable === false) s.unverifiable = true;
      s.read++;
      if (o.ok) s.ok++;
      else if (s.off.length < 3) s.off.push(`#${r.seq}: ${o.observed}`);
      seen.set(o.tunable, s);
    }
  }
  if (!seen.size) return null;
  const each = [...seen].map(([name, s]) => `${code(`${name}=${s.level}`)} ${s.unverifiable ? 'set, not verifiable (nothing reads it back)' : s.ok === s.read ? `verified at all ${s.read} restarts` : `verified at ${s.ok} of ${s.read} restarts (not in effect ${s.off.join('; ')})`}`);
  return `- Server options of the profile, read back on the live server: ${each.join(', ')}`;
}

/**
 * What each server build ran as, read on the live process at every restart: its executable, the
 * digest of it and the version, each distinct reading once, and whether every restart was verified.
 */
function buildLines(restarts: RestartResult[]): string[] {
  const seen = new Map<string, { read: number; ok: number; observed: string[] }>();
  for (const r of restarts) {
    for (const c of r.checks) {
      if (c.tunable !== 'build') continue;
      const s = seen.get(c.level) ?? { read: 0, ok: 0, observed: [] };
      s.read++;
      if (c.ok) s.ok++;
      if (!s.observed.includes(c.observed)) s.observed.push(c.observed);
      seen.set(c.level, s);
    }
  }
  if (!seen.size) return [];
  return [
    '- Server builds, read on the live process at every restart:',
    ...[...seen].map(([level, s]) => `  - ${code(`build=${level}`)}: ${s.observed.map(code).join('; ')} (${s.ok === s.read ? `verified at all ${s.read} restarts` : `verified at ${s.ok} of ${s.read} restarts`})`),
  ];
}

function hostSection(ctx: ExportContext): string[] {
  const h = ctx.doc.results?.host;
  const lines = ['## Host', ''];
  if (!h) return [...lines, 'The results do not record the host they were measured on.'];
  const rows: [string, string][] = [
    ['target', h.target],
    ['hostname', h.hostname],
    ['CPU', `${h.cpuModel} (${h.sockets} socket${h.sockets === 1 ? '' : 's'}, ${h.cores} cores, ${h.threads} threads)`],
    ['NUMA nodes', h.numaNodes.length ? h.numaNodes.map((n) => `${n.node}: cpus ${n.cpus}, ${n.memoryMb} MB`).join('; ') : 'none reported'],
    ['kernel', h.kernel],
    ['ASLR (randomize_va_space)', h.aslr],
    // The probe's own wording: a null governor means the host exposes no cpufreq, not that it is unknown.
    ['CPU governor', h.governor ?? 'no cpufreq (not exposed by this host)'],
    ['turbo', h.turbo ?? 'unknown'],
    ['transparent huge pages', h.thp ?? 'unknown'],
    ['server', h.mysqld ? `${h.mysqld.flavor} ${h.mysqld.version} (${h.mysqld.binary})` : 'unknown'],
    ['probed', new Date(h.probedAt).toISOString()],
  ];
  return [...lines, tableMd(['', ''], rows)];
}

function configurationsSection(ctx: ExportContext): string[] {
  const a = ctx.analysis;
  const rows = ctx.cells.map((cell) => findCell(a, cell)!).filter(Boolean);
  const best = a.ranking.most_stable;
  const meanOf = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null;
  };
  const lines = ['## Configurations', '', `The spread is the difference between the highest and the lowest restart mean, in percent of the lowest; per cell, its average and largest value over the ${one(ctx, true)}. CoV is the coefficient of variation, averaged over the ${one(ctx, true)}.`, ''];
  if (best === null && a.ranking.reason && rows.length > 1) lines.push(`> **Note:** ${a.ranking.reason}.`, '');
  if (best !== null && a.ranking.test) lines.push(`★ ${best}: ${a.ranking.test}.`, '');
  lines.push(
    tableMd(
      ['cell', ...ctx.factors, 'restarts', 'spread avg %', 'spread max %', 'between-restart CoV %', 'within-restart CoV %', ''],
      rows.map((c) => [
        c.cell === best ? `**${c.cell}**` : c.cell,
        ...levelsOf(ctx, c.cell),
        String(Math.max(0, ...c.queries.map((q) => q.n_restarts))),
        fixed(c.spread_avg_pct),
        fixed(c.spread_max_pct),
        fixed(meanOf(c.queries.map((q) => q.between_cov_pct))),
        fixed(meanOf(c.queries.map((q) => q.within_cov_pct))),
        c.cell === best ? '★ most stable' : '',
      ]),
      ['l', ...ctx.factors.map(() => 'l' as const), 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
  );
  const reasons = rows.filter((c) => c.null_reasons?.spread_avg_pct).map((c) => `- ${c.cell}: ${c.null_reasons!.spread_avg_pct}`);
  if (reasons.length) lines.push('', 'Not computed:', ...reasons);
  return lines;
}

/** The host's noise over each measured window, beside each cell's between-restart spread; none for results without it. */
function noiseSection(ctx: ExportContext): string[] {
  const restarts = ctx.doc.results?.restarts ?? [];
  const s = noiseSummary(restarts, cellsOfRestarts(restarts, ctx.cells), (c) => meanBetweenCov(findCell(ctx.analysis, c)?.queries));
  return s ? ["## The host's noise", '', ...noiseLines(s, true), ''] : [];
}

function comparisonsSection(ctx: ExportContext, maxRows: number): string[] {
  const a = ctx.analysis;
  if (!ctx.baseline) return ['## Comparisons with the baseline', '', 'No comparisons: the results hold a single cell.'];
  const { alpha, adjustment } = a.settings;
  const level = levelPct(alpha);
  const lines = [
    '## Comparisons with the baseline',
    '',
    `Baseline: ${code(ctx.baseline)}. Effect is the ${a.methods.comparison}, at ${level}% (the restart is the unit of evidence); p is two-sided, and adjusted p is ${ADJUSTMENT_NAMES[adjustment]}-adjusted over the ${familySize(a.comparisons)} comparisons below with a p-value. Sign: ${conventionOf(ctx)}.`,
    '',
  ];
  // A run that took the rule's looks: the rule's verdict beside each fixed-sample row it also decided (as the Analysis view).
  const rule = ruleVerdictsFor(ctx.doc, ctx.baseline);
  if (a.summary) lines.push(rule ? `Fixed-sample, not valid under the rule: ${a.summary}.` : `**${a.summary}.**`, '');
  lines.push(`${pairingText(a)}.`, '');
  if (a.grown) lines.push(`> **Note:** ${grownText(a.grown)}`, '');
  const few = fewRestartsOf(a);
  if (few) lines.push(`> **Note:** ${few}.`, '');
  if (ctx.doc.design.stopping) lines.push(`> **Note:** the run looked at its results as they came (stop when answered): these fixed-sample intervals, p-values and verdicts do not allow for the looks and overstate the evidence. The rule's verdict is beside each row it decided; its repeated intervals, which allow for the looks, are in *Stop when answered* below.`, '');
  const all = ctx.cells.filter((c) => c !== ctx.baseline).flatMap((cell) => ctx.queries.map((q) => findComparison(a, cell, q)).filter((c) => c !== undefined));
  const shown = all.slice(0, maxRows);
  // As the Analysis view: when some comparison is paired within rounds, which one is, the unpaired (Welch) interval beside it and the variance ratio.
  const paired = a.comparisons.some((c) => c.pairing === 'paired');
  lines.push(
    tableMd(
      [
        'cell', one(ctx), 'effect', `${level}% interval`, 'p', 'adjusted p', rule ? 'fixed-sample verdict (not valid under the rule)' : 'verdict', ...(rule ? ["the rule's verdict"] : []),
        ...(paired ? ['pairing', `unpaired (Welch) ${level}% interval`, 'variance paired/unpaired'] : []),
      ],
      shown.map((c) => {
        const verdict = c.verdict === null ? Object.values(c.null_reasons ?? {})[0] ?? '' : fmtVerdict(c);
        // Each host's rule compares with its own host's baseline: rows of other hosts have none.
        const ruled = rule?.get(`${c.cell}\u0000${c.query}`);
        return [
          c.cell, c.query, fmtEffect(c.effect_pct, '—'), fmtInterval(c.ci_low_pct, c.ci_high_pct, '—'), fmtP(c.p_value, '—'), fmtP(c.p_adjusted, '—'), verdict,
          ...(rule ? [ruled ? ruleVerdictLabel(ruled, ctx.doc.design.stopping!.effect) : '—'] : []),
          ...(paired ? [c.pairing, fmtInterval(c.unpaired.ci_low_pct, c.unpaired.ci_high_pct, '—'), c.variance_ratio === null ? '—' : c.variance_ratio.toFixed(2)] : []),
        ];
      }),
      ['l', 'l', 'r', 'r', 'r', 'r', 'l', ...(rule ? ['l' as const] : []), ...(paired ? (['l', 'r', 'r'] as const) : [])],
    ),
  );
  if (all.length > shown.length) lines.push('', `… and ${all.length - shown.length} more rows in summary.csv.`);
  return lines;
}

/**
 * Stop when answered (design.stopping): the rule, the look at which the run stopped and why, and each
 * comparison's verdict with its repeated interval: the same rule replayed on the results (stats/replay.ts),
 * host by host when the design ran on several (each host stopped on its own rounds).
 */
function stoppingSection(ctx: ExportContext): string[] {
  // Against the report's baseline when the rule can take it, as the Analysis view.
  const rb = ruleBaseline(ctx.doc, ctx.analysis.settings.baseline);
  const stops = stopsOf(ctx.doc, rb.baseline);
  if (!stops.length) return [];
  const lines = ['## Stop when answered', ''];
  if (!rb.asRun) lines.push(`Against ${mdCell(rb.baseline)}, the report's baseline: the rule replayed on these results. The run took its looks against ${mdCell(rb.runs)}, its first cell; where it stopped is the run's.`, '');
  for (const { host, check, stopped } of stops) {
    if (host) lines.push(`### ${mdCell(host)}`, '');
    const r = check.result;
    if (!r) {
      lines.push(`${check.why}.`, '');
      continue;
    }
    const names = intervalNames(r.levels, r.effect_pct);
    lines.push(
      `Rule: ${mdCell(r.rule)}; target ±${r.effect_pct} %, α ${r.alpha} over all looks, at most ${r.max_rounds} rounds, looks at rounds ${r.schedule.join(', ')}.`,
      '',
      (stopped ? `**The run stopped at round ${stopped.round}: ${mdCell(stopped.because)}.**` : `The rule did not stop the run: ${mdCell(r.stopped_because)}.`) +
        (rb.asRun ? '' : ` Against ${mdCell(rb.baseline)}: ${mdCell(r.stopped_round === null ? r.stopped_because : `the rule would have stopped at round ${r.stopped_round}: ${r.stopped_because}`)}.`),
      '',
      `A comparison ${names.rule}. Both are repeated confidence intervals, valid at whatever look the run stopped.`,
      '',
      tableMd(
        ['cell', one(ctx), 'verdict', 'decided at round', 'effect at that round', names.differs, names.equivalent, 'why'],
        r.comparisons.map((c) => [c.cell, c.query, sequentialVerdictText(c.verdict, r.effect_pct), c.decided_round === null ? '—' : String(c.decided_round), fmtEffect(c.effect_pct, '—'), fmtInterval(c.rci_low_pct, c.rci_high_pct, '—'), fmtInterval(c.eq_low_pct, c.eq_high_pct, '—'), c.because]),
        ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'l'],
      ),
      '',
    );
  }
  return lines;
}

function mdeSection(ctx: ExportContext): string[] {
  const a = ctx.analysis;
  const { alpha, power, targetEffectPct } = a.settings;
  const lines = [
    '## Minimum detectable effect',
    '',
    `The smallest change between two cells, each with the restarts these results have, that a two-sided test of the ratio of restart means detects at α = ${alpha} with power ${power}; and the restarts per cell needed to detect ${targetEffectPct}%. **${MDE_LABELS.pooled}** uses the between-restart CoV pooled over every cell (the number the Run view shows); **${MDE_LABELS['per-cell']}** uses one cell's, of which the worst and the best are shown.`,
    '',
  ];
  const rows = ctx.queries.map((query) => {
    const pooled = a.mde.find((m) => m.query === query)?.mde;
    const qs = a.cells.flatMap((c) => c.queries.filter((q) => q.query === query).map((q) => ({ cell: c.cell, q })));
    const known = qs.filter((x) => x.q.mde_pct !== null).sort((x, y) => (y.q.mde_pct as number) - (x.q.mde_pct as number));
    const worst = known[0];
    const best = known.at(-1);
    const needed = Math.max(0, ...qs.map((x) => x.q.restarts_for_target ?? 0));
    const anyNull = qs.some((x) => x.q.restarts_for_target === null);
    return [
      query,
      pooled?.pct != null ? fixed(pooled.pct) : pooled?.reason ?? '—',
      pooled?.pct != null ? String(pooled.restarts) : '—',
      worst ? `${fixed(worst.q.mde_pct)} (${worst.cell})` : Object.values(qs[0]?.q.null_reasons ?? {})[0] ?? '—',
      best ? fixed(best.q.mde_pct) : '—',
      anyNull ? '—' : String(needed),
    ];
  });
  lines.push(
    tableMd(
      [one(ctx), `MDE % (${MDE_LABELS.pooled})`, 'restarts per cell', `MDE % (${MDE_LABELS['per-cell']}, worst)`, `MDE % (${MDE_LABELS['per-cell']}, best)`, `restarts for ${targetEffectPct}%`],
      rows,
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  const beyond = a.cells.flatMap((c) => c.queries.filter((q) => q.mde_pct !== null && q.restarts_for_target === null).map((q) => q.between_cov_pct ?? 0));
  if (beyond.length) {
    lines.push('', `> **Note:** ${outOfReachText(targetEffectPct, Math.max(...beyond), PLAN_LIMITS.restarts)}. Plan for an effect near the MDE above instead.`);
  }
  return lines;
}

/**
 * Planning the next run: the planning table the Analysis view's Planning panel and `varlab plan` show
 * (stats/planner.ts planningTable), with the costs measured in this run and the time the suggestion takes.
 */
function planningSection(ctx: ExportContext): string[] {
  const t = planningTable(ctx.doc, ctx.analysis, ctx.analysis.settings.targetEffectPct);
  const why = new Map<string, string[]>();
  const rows = t.rows.map((r) =>
    r.cells.map((c) => {
      if (c.value !== null) return mdCell(c.value);
      const reason = c.reason && reasonFor(c.reason, ctx.doc.design.workload.kind);
      if (reason) why.set(reason, [...new Set([...(why.get(reason) ?? []), r.query])]);
      return 'n/a';
    }),
  );
  return [
    '## Planning the next run',
    '',
    tableMd(
      t.columns.map((c) => c.label),
      rows,
      t.columns.map((c) => c.align),
    ),
    ...(why.size ? ['', ...[...why].map(([reason, where]) => `- n/a (${where.map(mdCell).join(', ')}): ${mdCell(reason)}`)] : []),
    '',
    `${t.pairing}.`,
    '',
    t.costs,
    '',
    `**${t.suggestion}**`,
    ...t.notes.flatMap((n) => ['', `> **Note:** ${n}.`]),
  ];
}

function steadySection(ctx: ExportContext): string[] {
  const a = ctx.analysis;
  const w = a.warmup;
  const o = steadyOverview(a, ctx.doc.design.workload.kind);
  const lines = ['## Steady state per restart', '', `Each restart of each ${one(ctx)} is classified by its ${w.method}. A cell is consistent when all its restarts reach the same class.`, ''];
  lines.push(`- Classes: ${o.totals}`, `- ${o.inconsistent[0].toUpperCase()}${o.inconsistent.slice(1)}`);
  lines.push(w.suggested === null ? `- Warm-up from the data: no suggestion: ${reasonFor(w.reason ?? '', ctx.doc.design.workload.kind)}` : `- Warm-up from the data: every restart is steady after ${executionsText(w.suggested, ctx.doc.design.workload.kind)} (the analysis dropped ${ctx.warmup})`);
  if (o.rows.length) {
    const shown = o.rows.slice(0, 50);
    lines.push('', tableMd(['cell', one(ctx), 'restarts', 'consistent', 'warm-up'], shown, ['l', 'l', 'l', 'l', 'r']));
    if (o.rows.length > shown.length) lines.push('', `… and ${o.rows.length - shown.length} more cell and ${one(ctx)} pairs that are not all flat.`);
  }
  return lines;
}

/** Restarts listed in the report's interval table; the rest are counted. */
const INTERVAL_REPORT_ROWS = 50;

/**
 * A benchmark command's interval lines (sysbench --report-interval): the steady state on the interval
 * tps per restart and per cell, as `varlab analyze` prints it; nothing when no restart has any.
 */
function intervalsSection(ctx: ExportContext): string[] {
  const s = intervalSteady(ctx.doc.results?.restarts ?? [], ctx.warmup);
  if (!s) return [];
  const lines = ['## Steady state on the interval lines', '', `${intervalsHeading(s)}. Each restart's interval tps, its runs end to end in the order printed, is classified as the ${executionWord(ctx.doc.design.workload.kind, true)} are: ${STEADY_METHOD}. The steady tps is the mean of the intervals from the steady state on; the run tps, the mean of the runs' own figures after the warm-up runs, is what the comparisons use.`, ''];
  for (const c of s.cells) lines.push(`- ${mdCell(c.cell)}: ${mdCell(intervalCellText(c))}`);
  const shown = s.restarts.slice(0, INTERVAL_REPORT_ROWS);
  lines.push('', tableMd([...INTERVAL_COLUMNS], shown.map(intervalRestartRow), ['r', 'l', 'r', 'l', 'r', 'r', 'r']));
  if (s.restarts.length > shown.length) lines.push('', `… and ${s.restarts.length - shown.length} more restarts (\`varlab analyze --json\` has every one).`);
  return lines;
}

function bimodalSection(ctx: ExportContext): string[] {
  const a = ctx.analysis;
  const lines = ['## Bimodal starts', ''];
  if (a.bimodal.length) {
    lines.push('Restart means of these cells fall into separated groups ("good start, bad start"):', '');
    for (const b of a.bimodal) lines.push(`- ${b.cell}, ${b.query}: ${b.groups.map((g) => `${g.count} restart${g.count === 1 ? '' : 's'} around ${fixed(g.mean, 3)}`).join(' and ')}`);
  } else if (a.bimodal_unjudged.length < a.restarts.filter((r) => r.means.length).length) lines.push('No judged cell’s restart means fall into separated groups.');
  if (a.bimodal_unjudged.length) {
    const reasons = [...new Set(a.bimodal_unjudged.map((u) => u.reason))];
    const cells = [...new Set(a.bimodal_unjudged.map((u) => u.cell))];
    lines.push('', `Not judged (${cells.length} cell${cells.length === 1 ? '' : 's'}): ${reasons.join('; ')}.`);
  }
  return lines;
}

/** One design on several hosts: spread between hosts beside between restarts, and the host × factor interactions. */
function hostsSection(ctx: ExportContext): string[] {
  const a = ctx.analysis;
  const h = a.hosts;
  if (!h) return [];
  const lines = ['## Several hosts', '', `${h.hosts.length} hosts (${h.hosts.map(mdCell).join(', ')}), the host a block factor named \`${h.factor}\`: ${mdCell(h.summary)}.`, ''];
  lines.push(`| cell | ${one(ctx)} | between hosts | between restarts |`, `|---|---|--:|--:|`);
  for (const r of h.spread) lines.push(`| ${mdCell(r.cell || '(no factors)')} | ${mdCell(r.query)} | ${fixed(r.between_host_cov_pct)} % | ${fixed(r.between_restart_cov_pct)} % |`);
  const flagged = h.interactions.filter((i) => i.flagged);
  if (flagged.length) {
    lines.push('', `Factors whose effect differs between hosts (${mdCell(a.methods.host_interaction ?? '')}):`, '');
    for (const i of flagged) lines.push(`- ${mdCell(i.factor)}=${mdCell(i.level)} vs ${mdCell(i.baseline_level)}, ${mdCell(i.query)}: ${h.hosts.map((x) => `${fmtEffect(i.effects_pct[x] ?? null)} on ${mdCell(x)}`).join(', ')} (adjusted: ${fmtP(i.p_adjusted)})`);
  }
  return lines;
}

export function markdownReport(ctx: ExportContext, opts: MarkdownOptions = {}): string {
  const doc = ctx.doc;
  const out: string[] = [`# ${mdCell(doc.name)}`, ''];
  if (doc.description) out.push(doc.description.trim(), '');
  out.push(`Measured ${resultsDate(doc) ?? 'on an unknown date'} on ${hostLine(doc)}. Analysis by varlab: ${executionsText(ctx.warmup, doc.design.workload.kind, 'warm-up')} dropped per restart${doc.design.workload.kind === 'command' ? '' : ' and query'}; statistics on restart means.`, '');
  out.push(...designSection(ctx), '');
  out.push(...hostSection(ctx), '');
  out.push(...configurationsSection(ctx), '');
  out.push(...noiseSection(ctx));
  if (ctx.analysis.hosts) out.push(...hostsSection(ctx), '');
  out.push(...comparisonsSection(ctx, opts.maxComparisonRows ?? 200), '');
  out.push(...stoppingSection(ctx));
  out.push(...mdeSection(ctx), '');
  out.push(...planningSection(ctx), '');
  out.push(...bimodalSection(ctx), '');
  out.push(...steadySection(ctx), '');
  const intervals = intervalsSection(ctx);
  if (intervals.length) out.push(...intervals, '');
  if (opts.images?.length) {
    out.push('## Plots', '');
    for (const img of opts.images) out.push(`![${mdCell(img.title).replace(/[[\]]/g, '')}](${encodeURI(img.path)})`, '');
    out.push('');
  }
  return out.join('\n');
}
