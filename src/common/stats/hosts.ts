// The host as a block factor (issue 14): one design run on several identical hosts. Two questions,
// both on restart means (the restart stays the unit of evidence):
//
// 1. How far apart are the hosts, beside how far apart are restarts? Per cell and query:
//      s²_r = Σ_h Σ_i (x_hi − m_h)² / (N − H)        restart-to-restart variance, pooled within hosts
//      σ²_host = max(0, var(m_h) − s²_r · mean(1/n_h))  the hosts' own variance component
//    both as a percentage of the grand mean (σ / mean · 100), side by side.
//
// 2. Does a factor act differently on different hosts (a host × factor interaction)? For one factor,
//    one level against its first level and one query, on the log scale of restart means:
//      d_h = mean over the cells at the level of their mean − the same at the first level   (host h)
//          (the factor's main effect on host h: the other factors are averaged over, as in a factorial)
//      c_h = Σ_cells 1 / (k² n_c) over both levels' cells, k their number at that level  (Var d_h = s² c_h)
//      s²  = the pooled within-(host, cell) variance of log restart means, ν = N − groups
//      F = [Σ_h (d_h − d̄)² / c_h] / (H − 1) / s²,  d̄ = Σ (d_h / c_h) / Σ (1 / c_h)
//    F follows F(H − 1, ν) when the effect is the same on every host (normal errors, one variance):
//    the interaction test of a two-way ANOVA, for this contrast. p-values are adjusted over every
//    interaction tested together (Holm by default), and one is flagged when its adjusted p ≤ α.
import fCdf from '@stdlib/stats-base-dists-f-cdf';
import { adjustPValues, type Adjustment } from './adjust.js';

import { HOST_FACTOR } from '../plan.js';

export { HOST_FACTOR };

export const HOST_INTERACTION_METHOD =
  "host × factor interaction: F test that the factor's effect (log ratio of level means, other factors averaged over) is the same on every host, against the pooled restart-to-restart variance of all hosts; p-values adjusted over every interaction tested";

export const HOST_SPREAD_METHOD = "spread between hosts: the hosts' variance component of restart means (one-way, restarts within hosts), beside the pooled restart-to-restart spread; both in % of the mean";

export interface HostSpread {
  cell: string;
  query: string;
  n_hosts: number;
  /** Mean of restart means, per host. */
  host_means: Record<string, number>;
  between_host_cov_pct: number | null;
  between_restart_cov_pct: number | null;
  null_reasons?: Partial<Record<'between_host_cov_pct' | 'between_restart_cov_pct', string>>;
}

/** Spread between hosts beside spread between restarts, for one cell (its levels without the host) and query. */
export function hostSpread(cell: string, query: string, byHost: { host: string; means: ArrayLike<number> }[]): HostSpread {
  const hosts = byHost.filter((h) => h.means.length > 0);
  const out: HostSpread = { cell, query, n_hosts: hosts.length, host_means: {}, between_host_cov_pct: null, between_restart_cov_pct: null };
  const why: NonNullable<HostSpread['null_reasons']> = {};
  let n = 0;
  let total = 0;
  let ss = 0;
  const hostMeans: number[] = [];
  for (const h of hosts) {
    let sum = 0;
    for (let i = 0; i < h.means.length; i++) sum += h.means[i];
    const m = sum / h.means.length;
    for (let i = 0; i < h.means.length; i++) ss += (h.means[i] - m) ** 2;
    out.host_means[h.host] = m;
    hostMeans.push(m);
    n += h.means.length;
    total += sum;
  }
  const grand = total / n;
  const H = hosts.length;
  if (H === 0 || !(grand > 0)) {
    why.between_host_cov_pct = why.between_restart_cov_pct = H === 0 ? 'no host has a restart with executions' : 'the mean is not positive';
    out.null_reasons = why;
    return out;
  }
  const sr2 = n - H > 0 ? ss / (n - H) : null;
  if (sr2 === null) why.between_restart_cov_pct = 'needs a second restart on at least one host';
  else out.between_restart_cov_pct = (100 * Math.sqrt(sr2)) / grand;
  if (H < 2) why.between_host_cov_pct = 'needs results from two hosts';
  else if (sr2 === null) why.between_host_cov_pct = 'needs a second restart on at least one host, to tell hosts from restarts';
  else {
    const mm = hostMeans.reduce((a, b) => a + b, 0) / H;
    const varMeans = hostMeans.reduce((a, m) => a + (m - mm) ** 2, 0) / (H - 1);
    const invN = hosts.reduce((a, h) => a + 1 / h.means.length, 0) / H;
    out.between_host_cov_pct = (100 * Math.sqrt(Math.max(0, varMeans - sr2 * invN))) / grand;
  }
  if (Object.keys(why).length) out.null_reasons = why;
  return out;
}

/** The restart means of one cell on one host, for one query, with the cell's levels (the host's not among them). */
export interface HostGroup {
  host: string;
  levels: Record<string, string>;
  means: ArrayLike<number>;
}

export interface HostInteraction {
  factor: string;
  level: string;
  /** The level the effect is measured from (the factor's first). */
  baseline_level: string;
  query: string;
  /** 100 · (exp(d_h) − 1): the level's effect on each host, in %. */
  effects_pct: Record<string, number | null>;
  f: number | null;
  df1: number | null;
  df2: number | null;
  p_value: number | null;
  p_adjusted: number | null;
  /** p_adjusted ≤ α: the effect differs between hosts beyond the restart-to-restart noise. */
  flagged: boolean | null;
  null_reasons?: Partial<Record<'f' | 'p_value', string>>;
}

/** The F test of one level against the factor's first, across hosts (the interaction contrast). Not adjusted yet. */
export function hostInteraction(groups: HostGroup[], factor: string, baseLevel: string, level: string, query: string): HostInteraction {
  const out: HostInteraction = { factor, level, baseline_level: baseLevel, query, effects_pct: {}, f: null, df1: null, df2: null, p_value: null, p_adjusted: null, flagged: null };
  // The residual variance of log restart means within each (host, cell), pooled over everything.
  let ss = 0;
  let df = 0;
  const logMean = new Map<HostGroup, { mean: number; n: number }>();
  let positive = true;
  for (const g of groups) {
    if (!g.means.length) continue;
    let sum = 0;
    for (let i = 0; i < g.means.length; i++) {
      if (!(g.means[i] > 0)) positive = false;
      sum += Math.log(g.means[i]);
    }
    const m = sum / g.means.length;
    for (let i = 0; i < g.means.length; i++) ss += (Math.log(g.means[i]) - m) ** 2;
    df += g.means.length - 1;
    logMean.set(g, { mean: m, n: g.means.length });
  }
  if (!positive) {
    out.null_reasons = { f: 'a restart mean is not positive: effects are log ratios', p_value: 'a restart mean is not positive' };
    return out;
  }
  const hosts = [...new Set(groups.map((g) => g.host))];
  const per: { d: number; c: number }[] = [];
  for (const host of hosts) {
    const at = (l: string) => groups.filter((g) => g.host === host && g.levels[factor] === l && logMean.has(g));
    const a = at(baseLevel);
    const b = at(level);
    if (!a.length || !b.length) {
      out.effects_pct[host] = null;
      continue;
    }
    const side = (gs: HostGroup[]) => ({
      mean: gs.reduce((s, g) => s + logMean.get(g)!.mean, 0) / gs.length,
      c: gs.reduce((s, g) => s + 1 / (gs.length * gs.length * logMean.get(g)!.n), 0),
    });
    const sa = side(a);
    const sb = side(b);
    const d = sb.mean - sa.mean;
    out.effects_pct[host] = 100 * Math.expm1(d);
    per.push({ d, c: sa.c + sb.c });
  }
  if (per.length < 2) {
    out.null_reasons = { f: 'needs both levels measured on two hosts', p_value: 'needs both levels measured on two hosts' };
    return out;
  }
  if (df < 1 || !(ss > 0)) {
    const why = df < 1 ? 'needs a second restart of some cell on some host, to know the restart-to-restart noise' : 'no variation between restarts: the noise is zero';
    out.null_reasons = { f: why, p_value: why };
    return out;
  }
  const s2 = ss / df;
  const w = per.map((p) => 1 / p.c);
  const dbar = per.reduce((a, p, i) => a + w[i] * p.d, 0) / w.reduce((a, b) => a + b, 0);
  const q = per.reduce((a, p, i) => a + w[i] * (p.d - dbar) ** 2, 0);
  const df1 = per.length - 1;
  out.f = q / df1 / s2;
  out.df1 = df1;
  out.df2 = df;
  out.p_value = Math.max(0, Math.min(1, 1 - fCdf(out.f, df1, df)));
  return out;
}

/** Every factor's levels against its first, every query: the interaction tests, adjusted as one family and flagged. */
export function hostInteractions(
  groupsByQuery: Map<string, HostGroup[]>,
  factors: { key: string; levels: string[] }[],
  opts: { alpha: number; adjustment: Adjustment },
): HostInteraction[] {
  const out: HostInteraction[] = [];
  for (const [query, groups] of groupsByQuery) {
    for (const f of factors) {
      if (f.key === HOST_FACTOR || f.levels.length < 2) continue;
      for (const level of f.levels.slice(1)) out.push(hostInteraction(groups, f.key, f.levels[0], level, query));
    }
  }
  const adjusted = adjustPValues(
    out.map((i) => i.p_value),
    opts.adjustment,
  );
  out.forEach((i, k) => {
    i.p_adjusted = adjusted[k];
    i.flagged = adjusted[k] === null ? null : adjusted[k]! <= opts.alpha;
  });
  return out;
}

export interface HostAnalysis {
  factor: typeof HOST_FACTOR;
  hosts: string[];
  /** Per cell (its levels without the host) and query. */
  spread: HostSpread[];
  interactions: HostInteraction[];
  /** One line: which factors act differently on different hosts, or that none was seen to. */
  summary: string;
}

/**
 * The host block factor's part of an analysis, from the restart means of every cell (cells holding a
 * `host` level), or null when the data do not come from two hosts or more.
 */
export function hostAnalysis(
  restarts: { cell: string; query: string; means: number[] }[],
  factors: { key: string; levels: string[] }[] | undefined,
  cellLevels: Record<string, Record<string, string>> | undefined,
  opts: { alpha: number; adjustment: Adjustment },
): HostAnalysis | null {
  const hostFactor = factors?.find((f) => f.key === HOST_FACTOR);
  if (!hostFactor || !cellLevels) return null;
  const others = factors!.filter((f) => f.key !== HOST_FACTOR);
  const baseOf = (levels: Record<string, string>) => others.map((f) => `${f.key}=${levels[f.key]}`).join(',');
  const byQuery = new Map<string, HostGroup[]>();
  const byBase = new Map<string, { cell: string; query: string; byHost: { host: string; means: number[] }[] }>();
  const hosts = new Set<string>();
  for (const r of restarts) {
    const levels = cellLevels[r.cell];
    const host = levels?.[HOST_FACTOR];
    if (host === undefined || !r.means.length) continue;
    hosts.add(host);
    const { [HOST_FACTOR]: _h, ...rest } = levels;
    let list = byQuery.get(r.query);
    if (!list) byQuery.set(r.query, (list = []));
    list.push({ host, levels: rest, means: r.means });
    const base = baseOf(rest);
    const key = `${base}\u0000${r.query}`;
    let b = byBase.get(key);
    if (!b) byBase.set(key, (b = { cell: base, query: r.query, byHost: [] }));
    b.byHost.push({ host, means: r.means });
  }
  if (hosts.size < 2) return null;
  const interactions = hostInteractions(byQuery, others, opts);
  const flagged = interactions.filter((i) => i.flagged);
  const names = [...new Set(flagged.map((i) => i.factor))];
  const summary = flagged.length
    ? `${names.join(', ')} act${names.length === 1 ? 's' : ''} differently on different hosts (host × factor interaction, adjusted p ≤ ${opts.alpha}): ${flagged.map((i) => `${i.factor}=${i.level} on ${i.query}`).join('; ')}`
    : interactions.some((i) => i.p_value !== null)
      ? `no factor was seen to act differently on different hosts (host × factor interaction, adjusted p > ${opts.alpha} for all ${interactions.filter((i) => i.p_value !== null).length})`
      : 'the host × factor interaction could not be tested: see the reasons beside each';
  return { factor: HOST_FACTOR, hosts: hostFactor.levels.filter((h) => hosts.has(h)), spread: [...byBase.values()].map((b) => hostSpread(b.cell, b.query, b.byHost)), interactions, summary };
}
