// CSV records into the analysis's tidy data. Three forms are read, each recognised by its header:
// - a tidy CSV from any tool: cell,restart,query,rep,value (other columns are ignored);
// - `varlab export`'s executions.csv: the same columns plus factor levels, warmup, unit, source, client.
//   Its warmup flags give the warm-up and its unit column the units, so the analysis is the one the
//   experiment file gives;
// - `varlab export`'s restarts.csv: one row per restart with a mean:QUERY column per query. Only
//   restarts with status ok count (as in the experiment file); each mean is the restart's single value,
//   its warm-up already dropped, so within-restart figures cannot be computed from it.
import { ROUNDS_WHY, TidyBuilder, TidyError, type TidyData } from '../stats/tidy.js';
import type { HostNoise, RestartResult } from '../experiment/types.js';
import { HOST_FACTOR } from '../plan.js';
import { parseCount, parseDecimal } from './numbers.js';

export const TIDY_HEADER = ['cell', 'restart', 'query', 'rep', 'value'];
const MEAN = 'mean:';

export type CsvForm = 'executions' | 'restart-means';

export interface TidyCsvResult {
  data: TidyData;
  form: CsvForm;
  /** The warm-up the file says was used: executions.csv's warmup flags, 0 for restart means, else null. */
  warmup: number | null;
  /**
   * restarts.csv with the host's noise columns (varlab export since 2026-11-27: with host_cpus and
   * window_s): its restarts, each measured one with its noise where it was read, for analyze's noise
   * table; the others (status not ok) only to number the restarts of each cell as the file did.
   */
  restarts?: RestartResult[];
}

/** The noise columns of restarts.csv, as HostNoise reads them (cpu_mhz may be empty). */
const NOISE_FIELDS = { load: 'host_load', stealPct: 'steal_pct', othersCpuPct: 'others_cpu_pct', ctxPerS: 'ctx_switches_per_s', cpus: 'host_cpus', seconds: 'window_s' } as const;

/** Feed it the records of a CsvReader (`reader = new CsvReader(t.record)`), then build(). */
export class TidyCsv {
  private readonly builder = new TidyBuilder();
  private take: ((fields: string[], line: number) => void) | null = null;
  private form: CsvForm = 'executions';
  private warmup: number | null = null;
  private readonly units: Record<string, string> = {};
  private firstUnit: string | undefined;
  /** `cell\0restart` → round, from a `round` column (varlab export writes one); 0 where it is empty. */
  private readonly rounds = new Map<string, number>();
  private roundColumn = false;
  /** Each cell's host, from a `host` column (varlab export writes one for results from several hosts). */
  private readonly hosts = new Map<string, string>();
  /** restarts.csv's measured restarts with their noise, when it has the noise columns. */
  private restarts: RestartResult[] | undefined;

  /** `unit`: the unit of the values when the file does not say (analyze --unit). */
  constructor(private readonly unit?: string) {}

  readonly record = (fields: string[], line: number): void => {
    if (this.take) this.take(fields, line);
    else this.header(fields, line);
  };

  /** The tidy data; throws TidyError when the file had no header or a restart repeats a rep. */
  build(): TidyCsvResult {
    if (!this.take) throw new TidyError(undefined, `empty: expected the header ${TIDY_HEADER.join(',')}`);
    const unit = this.firstUnit ?? this.unit;
    const units = Object.keys(this.units).length ? this.units : undefined;
    if (units && this.unit !== undefined) for (const q of this.builder.queries()) units[q] ??= this.unit;
    const data = this.builder.build(unit, units ? { units } : {});
    if (this.roundColumn) {
      const known = [...this.rounds.values()].some((r) => r > 0);
      if (known) for (const s of data.series) s.rounds = s.restarts.map((l) => this.rounds.get(`${s.cell}\u0000${l}`) ?? 0);
      data.rounds = known ? { known, why: ROUNDS_WHY } : { known, why: 'the round column is empty: the restarts did not run in rounds (a blocked order)' };
      // Several hosts: each numbered its own rounds, which are not the same time (as the file says: tidy.ts's blocks).
      if (known && new Set(this.hosts.values()).size > 1) data.rounds.blocks = Object.fromEntries(this.hosts);
    }
    return { data, form: this.form, warmup: this.warmup, ...(this.restarts ? { restarts: this.restarts } : {}) };
  }

  /** A row's round, when the file has a `round` column: a whole number from 1, or empty. */
  private round(row: string[], at: number, cell: string, restart: string, line: number, hostAt = -1): void {
    if (hostAt >= 0 && row[hostAt] !== '') this.hosts.set(cell, row[hostAt]);
    if (at < 0) return;
    const text = row[at];
    const n = text === '' ? 0 : parseCount(text);
    if (!(n >= 0 && n <= 0xffffffff)) throw new TidyError(line, `round ${JSON.stringify(text)} is not a whole number from 1`);
    this.rounds.set(`${cell}\u0000${restart}`, n);
  }

  private header(fields: string[], line: number): void {
    const names = fields.map((f) => f.toLowerCase());
    const at = (name: string) => names.lastIndexOf(name);
    const roundAt = at('round');
    this.roundColumn = roundAt >= 0;
    const hostAt = at(HOST_FACTOR);
    const count = fields.length;
    const shape = `expected ${count} fields (${fields.join(',')})`;
    const check = (row: string[], l: number) => {
      if (row.length !== count) throw new TidyError(l, `${shape}, found ${row.length}`);
    };
    if (TIDY_HEADER.every((h) => names.includes(h))) {
      const [c, r, q, p, v] = TIDY_HEADER.map(at);
      const w = at('warmup');
      const u = at('unit');
      if (w >= 0) this.warmup = 0;
      const b = this.builder;
      this.take = (row, l) => {
        check(row, l);
        b.addFields(row[c], row[r], row[q], row[p], row[v], l);
        this.round(row, roundAt, row[c], row[r], l, hostAt);
        if (u >= 0 && row[u] !== '' && this.units[row[q]] === undefined) {
          this.units[row[q]] = row[u];
          this.firstUnit ??= row[u];
        }
        if (w >= 0 && row[w] === 'true') this.warmup = Math.max(this.warmup!, parseCount(row[p]));
      };
      return;
    }
    const means = names.map((n, i) => (n.startsWith(MEAN) ? i : -1)).filter((i) => i >= 0);
    if (names.includes('cell') && names.includes('restart') && means.length) {
      this.form = 'restart-means';
      this.warmup = 0;
      const c = at('cell');
      const r = at('restart');
      const s = at('status');
      const queries = means.map((i) => fields[i].slice(MEAN.length));
      const noiseAt = Object.entries(NOISE_FIELDS).map(([k, name]) => [k, at(name)] as const);
      const mhzAt = at('cpu_mhz');
      if (noiseAt.every(([, i]) => i >= 0)) this.restarts = [];
      this.take = (row, l) => {
        check(row, l);
        const status = s >= 0 ? row[s] : 'ok';
        if (status !== 'ok') {
          // Not measured, but numbered: restart_of_cell counts it, and so must analyze's busy restarts (restart-of-cell.ts).
          const seq = parseCount(row[r]);
          if (this.restarts && row[c] !== '' && Number.isFinite(seq)) this.restarts.push({ seq, cell: row[c], status: status === 'verify-failed' ? status : 'failed', startedAt: 0, finishedAt: 0, checks: [], queries: [] });
          return;
        }
        if (row[c] === '') throw new TidyError(l, 'cell is empty');
        if (row[r] === '') throw new TidyError(l, 'restart is empty');
        this.round(row, roundAt, row[c], row[r], l, hostAt);
        if (this.restarts) {
          // Its noise where every figure was read (empty where the run could not read it).
          const n = noiseAt.map(([k, i]) => [k, row[i] === '' ? NaN : parseDecimal(row[i])] as const);
          const noise = n.every(([, v]) => Number.isFinite(v)) ? (Object.fromEntries(n) as unknown as HostNoise) : undefined;
          const mhz = mhzAt >= 0 && row[mhzAt] !== '' ? parseDecimal(row[mhzAt]) : NaN;
          if (noise && Number.isFinite(mhz)) noise.cpuMhz = mhz;
          const seq = parseCount(row[r]);
          this.restarts.push({ seq: Number.isFinite(seq) ? seq : this.restarts.length + 1, cell: row[c], status: 'ok', startedAt: 0, finishedAt: 0, checks: [], queries: [], ...(noise ? { noise } : {}) });
        }
        means.forEach((i, k) => {
          if (row[i] === '') return;
          const value = parseDecimal(row[i]);
          if (!Number.isFinite(value)) throw new TidyError(l, `${fields[i]} ${JSON.stringify(row[i])} is not a number`);
          this.builder.add(row[c], queries[k], row[r], 1, value, l);
        });
      };
      return;
    }
    if (names.includes('n_restarts') && names.includes('query')) {
      throw new TidyError(line, "this is varlab export's summary.csv: statistics, not measurements; analyze executions.csv (or restarts.csv) from the same folder");
    }
    throw new TidyError(
      line,
      `expected the header ${TIDY_HEADER.join(',')}, found ${JSON.stringify(fields.join(','))} ` +
        `(or varlab export's executions.csv, or its restarts.csv with cell,restart,status,mean:QUERY columns)`,
    );
  }
}
