// The one-liner: `varlab run --query "SELECT …" --factor ahi=on,off --restarts 5`, as hyperfine users
// expect, with no file written first. The command line becomes an experiment (written to a file the
// output names, so the run can be resumed, analysed and opened in the app later), and after the run a
// hyperfine-style summary: each cell's mean ± sd of its restart means, and how many times faster one
// cell is than the first, with the analysis's verdict.
import type { ExperimentDoc, Factor } from '../experiment/types.js';
import { templateDoc } from './doc.js';
import type { Analysis } from '../stats/analysis.js';
import { higherIsBetter } from '../stats/units.js';
import { fmtEffect, fmtInterval, fmtVerdict, levelPct } from '../export/format.js';
import { ruleVerdictsFor, stopCheck } from '../stats/replay.js';
import { intervalNames, sequentialVerdictText } from '../stats/sequential.js';

export interface OneLinerOptions {
  /** SQL text of each query, in order (named Q1, Q2, …). */
  queries: string[];
  /** `tunable=level,level`, each a factor. */
  factors: string[];
  restarts?: number;
  repetitions?: number;
  warmup?: number;
  target?: string;
  database?: string;
}

/** `ahi=on,off` as a factor; throws with what is wrong. The levels are checked by the experiment's rules later. */
export function parseFactor(text: string): Factor {
  const m = /^\s*([a-z][a-z0-9_-]*)\s*=\s*(.+)$/i.exec(text);
  const levels = m ? m[2].split(',').map((l) => l.trim()) : [];
  if (!m || levels.length < 2 || levels.some((l) => !l)) throw new Error(`--factor: expected TUNABLE=LEVEL,LEVEL[,…] (e.g. ahi=on,off), got ${JSON.stringify(text)}`);
  return { tunable: m[1], levels };
}

/** The experiment a one-liner runs: its factors, its queries, `restarts` per cell in interleaved rounds (so cells are compared in pairs). */
export function oneLinerDoc(o: OneLinerOptions): ExperimentDoc {
  const factors = o.factors.map(parseFactor);
  const seen = new Set<string>();
  for (const f of factors) {
    if (seen.has(f.tunable)) throw new Error(`--factor: ${f.tunable} is given twice`);
    seen.add(f.tunable);
  }
  if (!factors.length) throw new Error('--factor: give at least one, e.g. --factor ahi=on,off');
  if (!o.queries.length) throw new Error('--query: give at least one');
  const repetitions = o.repetitions ?? 10;
  return templateDoc(
    `varlab run: ${factors.map((f) => `${f.tunable} ${f.levels.join('/')}`).join(' x ')}`,
    'Written by a one-line `varlab run --query … --factor …`.',
    {
      factors,
      restartsPerCell: o.restarts ?? 5,
      workload: {
        kind: 'queries',
        database: o.database ?? 'varlab_bench',
        setupSql: '',
        queries: o.queries.map((sql, i) => ({ name: `Q${i + 1}`, sql })),
        repetitions,
        warmup: o.warmup ?? Math.min(2, repetitions - 1),
      },
      seed: 20261126,
      idleSeconds: 2,
      estimates: { restartSeconds: 8, executionMs: 50 },
    },
    o.target,
  );
}

/** `varlab-run-20261126-184501.varlab.json`: a new name in the current folder for the file a one-liner runs. */
export function oneLinerFileName(now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `varlab-run-${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}.varlab.json`;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => (xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)));
/** Four significant digits, as hyperfine shows times. */
const fig = (x: number) => (Math.abs(x) >= 1000 ? x.toFixed(1) : x.toPrecision(4));

/**
 * The summary a one-liner prints, per query: each cell's mean ± sd of its restart means, then each other
 * cell against the first: "B is 1.04 ± 0.01 times faster than A" (the ratio of the means, its sd
 * propagated from theirs, as hyperfine does), with the analysis's verdict and interval.
 * `analysis` was made with the first cell as its baseline.
 */
export function oneLinerSummary(a: Analysis, queries: { name: string; sql: string }[], units: Record<string, string | undefined>, doc?: ExperimentDoc): string[] {
  const out: string[] = [];
  const baseline = a.settings.baseline;
  // Run until answered (--until-answered): the rule's verdict, with its repeated interval, is the answer; the
  // fixed-sample one does not allow for the looks (as the Analysis view and the report say).
  const ruled = doc?.design.stopping ? ruleVerdictsFor(doc, baseline) : null;
  const levels = ruled && doc ? stopCheck(doc).result?.levels : undefined;
  for (const q of queries) {
    // The baseline first, as hyperfine lists its commands in the order given.
    const series = a.restarts.filter((r) => r.query === q.name && r.means.length).sort((x, y) => Number(y.cell === baseline) - Number(x.cell === baseline));
    if (!series.length) continue;
    const unit = units[q.name] ?? '';
    const better = higherIsBetter(unit) ?? false;
    const width = Math.max(...series.map((s) => s.cell.length));
    out.push(`${q.name}: ${q.sql.length > 70 ? `${q.sql.slice(0, 67)}…` : q.sql}`);
    out.push(`  mean ± sd of restart means (${series[0].means.length} restarts; warm-up ${a.settings.warmup} dropped in each):`);
    for (const s of series) out.push(`  ${s.cell.padEnd(width)}  ${fig(mean(s.means))} ${unit} ± ${fig(sd(s.means))} ${unit}`);
    const base = series.find((s) => s.cell === baseline);
    if (!base) continue;
    const mb = mean(base.means);
    for (const s of series) {
      if (s === base) continue;
      const ms = mean(s.means);
      const faster = better ? ms >= mb : ms <= mb;
      const ratio = faster === better ? ms / mb : mb / ms;
      const spread = ratio * Math.hypot(sd(s.means) / ms, sd(base.means) / mb);
      const c = a.comparisons.find((x) => x.cell === s.cell && x.query === q.name);
      const r = ruled?.get(`${s.cell}\u0000${q.name}`);
      const verdict =
        r && levels && doc?.design.stopping
          ? `; stop when answered: ${sequentialVerdictText(r.verdict, doc.design.stopping.effect)} (${r.decided_round !== null ? `round ${r.decided_round}; ` : ''}change ${fmtEffect(r.effect_pct)}, ${intervalNames(levels, doc.design.stopping.effect).differs} ${fmtInterval(r.rci_low_pct, r.rci_high_pct)})`
          : c
            ? `; ${fmtVerdict(c)} (change ${fmtEffect(c.effect_pct)}, ${levelPct(a.settings.alpha)}% interval ${fmtInterval(c.ci_low_pct, c.ci_high_pct)})`
            : '';
      out.push(`  ${s.cell} is ${ratio.toFixed(2)} ± ${spread.toFixed(2)} times ${faster ? 'faster' : 'slower'} than ${base.cell}${verdict}`);
    }
  }
  return out;
}
