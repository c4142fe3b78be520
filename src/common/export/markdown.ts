// The Markdown report: everything someone needs to judge (and reproduce) the numbers, pasteable into a
// bug report or a GitHub issue as it is: the design, the host, the configurations table, comparisons
// with the baseline, the minimum detectable effect, and links to the exported plots.
import type { ExportContext } from './context.js';
import { conventionOf, fewRestartsOf, fixed, hostLine, levelsOf, resultsDate } from './context.js';
import { fmtEffect, fmtInterval, fmtP } from './format.js';
import { formatDuration } from '../plan.js';
import { PLAN_LIMITS } from '../stats/planner.js';

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

const code = (s: string) => '`' + s.replace(/`/g, "'") + '`';

function designSection(ctx: ExportContext): string[] {
  const d = ctx.doc.design;
  const w = d.workload;
  const lines = ['## Design', ''];
  lines.push(tableMd(['factor', 'levels'], d.factors.map((f, i) => [ctx.factors[i], f.levels.join(', ')])));
  lines.push('');
  const planned = ctx.cells.length;
  lines.push(`- Cells with results: ${planned}${d.excludedCells.length ? ` (${d.excludedCells.length} excluded from the design)` : ''}`);
  lines.push(`- Restarts per cell: ${d.restartsPerCell}, run order: ${d.order}${d.order === 'random' ? ` (seed ${d.seed})` : ''}, idle ${d.idleSeconds} s between restarts`);
  if (w.kind === 'command' && w.command) {
    lines.push(`- Workload: the command ${code(w.command.line)}, measuring ${w.command.metric} (${w.command.unit}, ${w.command.higherIsBetter ? 'higher' : 'lower'} is better)`);
  } else {
    lines.push(`- Workload: ${w.queries.length} quer${w.queries.length === 1 ? 'y' : 'ies'} in database ${code(w.database)}: ${w.queries.map((q) => q.name).join(', ')}`);
  }
  lines.push(`- Repetitions per restart: ${w.repetitions}, warm-up: the first ${w.warmup} dropped${ctx.warmup !== w.warmup ? ` (this report drops ${ctx.warmup})` : ''}`);
  const results = ctx.doc.results;
  if (results) {
    const failed = results.restarts.filter((r) => r.status !== 'ok');
    const span = results.startedAt && results.finishedAt ? `, ${formatDuration((results.finishedAt - results.startedAt) / 1000)}` : '';
    lines.push(`- Restarts run: ${results.restarts.length}${failed.length ? ` (${failed.length} not counted: ${failed.map((r) => `#${r.seq} ${r.status}${r.reason ? ` (${r.reason})` : ''}`).join('; ')})` : ''}${span}`);
    if (results.timerNote) lines.push(`- Timer: ${results.timerNote}`);
    const sources = [...new Set(results.restarts.flatMap((r) => r.queries.map((q) => q.source)))];
    if (sources.length) lines.push(`- Timing source: ${sources.join(', ')}; unit: ${ctx.unit || 'unknown'}`);
  }
  return lines;
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
  const rows = ctx.cells.map((cell) => a.cells.find((c) => c.cell === cell)!).filter(Boolean);
  let best: string | null = null;
  let bestValue = Infinity;
  for (const c of rows) if (c.spread_avg_pct !== null && c.spread_avg_pct < bestValue) [best, bestValue] = [c.cell, c.spread_avg_pct];
  const meanOf = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null;
  };
  const lines = ['## Configurations', '', 'The spread is the difference between the best and the worst restart mean, in percent of the worst; per cell, its average and largest value over the queries. CoV is the coefficient of variation, averaged over the queries.', ''];
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

function comparisonsSection(ctx: ExportContext, maxRows: number): string[] {
  const a = ctx.analysis;
  if (!ctx.baseline) return ['## Comparisons with the baseline', '', 'No comparisons: the results hold a single cell.'];
  const lines = ['## Comparisons with the baseline', '', `Baseline: ${code(ctx.baseline)}. Effect is the change of the mean in percent of the baseline's; the interval is a 95% Welch interval on restart means (the restart is the unit of evidence), p the Welch test's two-sided p-value. Sign: ${conventionOf(ctx)}.`, ''];
  const few = fewRestartsOf(a);
  if (few) lines.push(`> **Note:** ${few}.`, '');
  const all = ctx.cells.filter((c) => c !== ctx.baseline).flatMap((cell) => ctx.queries.map((q) => a.comparisons.find((c) => c.cell === cell && c.query === q)).filter((c) => c !== undefined));
  const shown = all.slice(0, maxRows);
  lines.push(
    tableMd(
      ['cell', 'query', 'effect', '95% interval', 'p', ''],
      shown.map((c) => {
        const significant = c.ci_low_pct !== null && c.ci_high_pct !== null && (c.ci_low_pct > 0 || c.ci_high_pct < 0);
        const note = c.effect_pct === null || c.ci_low_pct === null ? Object.values(c.null_reasons ?? {})[0] ?? '' : significant ? 'interval excludes 0' : '';
        return [c.cell, c.query, fmtEffect(c.effect_pct, '—'), fmtInterval(c.ci_low_pct, c.ci_high_pct, '—'), fmtP(c.p_value, '—'), note];
      }),
      ['l', 'l', 'r', 'r', 'r', 'l'],
    ),
  );
  if (all.length > shown.length) lines.push('', `… and ${all.length - shown.length} more rows in summary.csv.`);
  return lines;
}

function mdeSection(ctx: ExportContext): string[] {
  const a = ctx.analysis;
  const { alpha, power, targetEffectPct } = a.settings;
  const lines = ['## Minimum detectable effect', '', `The smallest change between two cells, each run with this design (${ctx.doc.design.restartsPerCell} restarts per cell), that a two-sided test detects at α = ${alpha} with power ${power}; and the restarts per cell needed to detect ${targetEffectPct}%. The worst cell per query is shown.`, ''];
  const rows = ctx.queries.map((query) => {
    const qs = a.cells.flatMap((c) => c.queries.filter((q) => q.query === query).map((q) => ({ cell: c.cell, q })));
    const worst = qs.filter((x) => x.q.mde_pct !== null).sort((x, y) => (y.q.mde_pct as number) - (x.q.mde_pct as number))[0];
    const best = qs.filter((x) => x.q.mde_pct !== null).sort((x, y) => (x.q.mde_pct as number) - (y.q.mde_pct as number))[0];
    const needed = Math.max(0, ...qs.map((x) => x.q.restarts_for_target ?? 0));
    const anyNull = qs.some((x) => x.q.restarts_for_target === null);
    return [
      query,
      worst ? fixed(worst.q.mde_pct) : '—',
      worst ? worst.cell : Object.values(qs[0]?.q.null_reasons ?? {})[0] ?? '',
      best ? fixed(best.q.mde_pct) : '—',
      anyNull ? '—' : String(needed),
    ];
  });
  lines.push(tableMd(['query', 'MDE % (worst cell)', 'worst cell', 'MDE % (best cell)', `restarts for ${targetEffectPct}%`], rows, ['l', 'r', 'l', 'r', 'r']));
  const most = Math.max(0, ...a.cells.flatMap((c) => c.queries.map((q) => q.restarts_for_target ?? 0)));
  if (most > PLAN_LIMITS.restarts || a.cells.some((c) => c.queries.some((q) => q.mde_pct !== null && q.restarts_for_target === null))) {
    lines.push('', `> **Note:** a ${targetEffectPct}% effect is below what this workload can resolve (more than ${PLAN_LIMITS.restarts.toLocaleString('en-US')} restarts per cell); plan for an effect near the MDE above instead.`);
  }
  return lines;
}

export function markdownReport(ctx: ExportContext, opts: MarkdownOptions = {}): string {
  const doc = ctx.doc;
  const out: string[] = [`# ${mdCell(doc.name)}`, ''];
  if (doc.description) out.push(doc.description.trim(), '');
  out.push(`Measured ${resultsDate(doc) ?? 'on an unknown date'} on ${hostLine(doc)}. Analysis by varlab: ${ctx.warmup} warm-up execution${ctx.warmup === 1 ? '' : 's'} dropped per restart and query; statistics on restart means.`, '');
  out.push(...designSection(ctx), '');
  out.push(...hostSection(ctx), '');
  out.push(...configurationsSection(ctx), '');
  out.push(...comparisonsSection(ctx, opts.maxComparisonRows ?? 200), '');
  out.push(...mdeSection(ctx), '');
  const bimodal = ctx.analysis.bimodal;
  if (bimodal.length) {
    out.push('## Bimodal starts', '', 'Restart means of these cells fall into separated groups ("good start, bad start"):', '');
    for (const b of bimodal) out.push(`- ${b.cell}, ${b.query}: ${b.groups.map((g) => `${g.count} restart${g.count === 1 ? '' : 's'} around ${fixed(g.mean, 3)}`).join(' and ')}`);
    out.push('');
  }
  if (opts.images?.length) {
    out.push('## Plots', '');
    for (const img of opts.images) out.push(`![${mdCell(img.title).replace(/[[\]]/g, '')}](${encodeURI(img.path)})`, '');
    out.push('');
  }
  return out.join('\n');
}
