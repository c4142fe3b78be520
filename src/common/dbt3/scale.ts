// DBT-3 scale factors, table sizes and the data step in words: the small part of the DBT-3 code that
// the experiment rules, consent and the plan need (the generator itself is generate.ts).
import type { DataSet } from '../experiment/types.js';

export const TABLES = ['region', 'nation', 'part', 'supplier', 'partsupp', 'customer', 'orders', 'lineitem'] as const;
export type Dbt3Table = (typeof TABLES)[number];

export const MIN_SF = 0.01;
export const MAX_SF = 10;
/** The default seed: the same data for everyone who does not choose one, so expected results can be shipped. */
export const DEFAULT_SEED = 20170116;
/** Changes when the rows for a (SF, seed) change: a database loaded by another version is not taken as this data. */
export const GENERATOR_VERSION = 1;

/** Why an SF is not accepted, or null. */
export function sfProblem(sf: unknown): string | null {
  if (typeof sf !== 'number' || !Number.isFinite(sf)) return `the scale factor must be a number from ${MIN_SF} to ${MAX_SF}`;
  if (sf < MIN_SF || sf > MAX_SF) return `the scale factor ${sf} is outside ${MIN_SF} to ${MAX_SF}`;
  if (Math.round(sf * 100) !== sf * 100 && Math.abs(Math.round(sf * 100) - sf * 100) > 1e-9) return `the scale factor ${sf} has more than two decimals`;
  return null;
}

/**
 * A scale factor as typed (`varlab new --sf`, the welcome screen's field): the number, or why it is not
 * one varlab takes (sfProblem's words, so the CLI and the app refuse alike).
 */
export function sfFromText(text: string): { sf: number; problem?: undefined } | { sf?: undefined; problem: string } {
  const n = text.trim() === '' ? NaN : Number(text);
  const problem = sfProblem(n);
  if (problem) return { problem: Number.isFinite(n) ? problem : `${problem}, got ${JSON.stringify(text)}` };
  return { sf: n };
}

const scaled = (sf: number, n: number) => Math.max(1, Math.floor(sf * n + 1e-9));

/** Base cardinalities at SF (4.2.5.1). Lineitem's is the expected count: each order has 1 to 7 lines. */
export function cardinalities(sf: number): Record<Dbt3Table, number> {
  const orders = scaled(sf, 1_500_000);
  return {
    region: 5,
    nation: 25,
    part: scaled(sf, 200_000),
    supplier: scaled(sf, 10_000),
    partsupp: scaled(sf, 200_000) * 4,
    customer: scaled(sf, 150_000),
    orders,
    lineitem: orders * 4,
  };
}

/** The DBT-3 marker tables varlab keeps in the database it loads (schema.ts creates them). */
export const MARKER_TABLES = ['varlab_dbt3', 'varlab_dbt3_chunks'];

/** What the data step will create, in words for consent and the dry run. */
export function describeDataSet(database: string, d: DataSet): string {
  const c = cardinalities(d.sf);
  const from = d.folder ? `the .tbl files of the folder ${d.folder} on this machine` : `varlab's generator (seed ${d.seed ?? DEFAULT_SEED})`;
  return `creates database ${database} (if missing) with the DBT-3 tables ${TABLES.join(', ')} at scale factor ${d.sf} (about ${c.lineitem.toLocaleString('en-US')} lineitem rows) from ${from}, their indexes, and the marker tables ${MARKER_TABLES.join(' and ')}; rows are streamed over the client connection (LOAD DATA LOCAL INFILE from a stream, or INSERTs), no file is written on the target; then ANALYZE TABLE and one run of each of the 22 queries to check their results`;
}

/**
 * About how long generating, loading, indexing, analysing and checking SF `sf` takes on a small
 * machine (measured by `npm run bench -- dbt3`; see the README's DBT-3 section), for the plan's estimate.
 */
export function dataLoadSeconds(sf: number): number {
  return Math.round(10 + sf * LOAD_SECONDS_PER_SF);
}
// SF 1 measured 360.7 s for rows, indexes and ANALYZE (npm run bench -- dbt3, 2026-11-26, 2 cores at
// load 12–15): the check's 22 queries add a few seconds more; a quiet machine is faster.
const LOAD_SECONDS_PER_SF = 360;
