// The DBT-3 template: the first field note's experiment (ASLR × AHI × preload, each restart running
// every query 20 times and keeping the last 10) on DBT-3 data at a scale factor, with the data step
// in the design and the estimates sized to the SF.
import type { ExperimentDoc } from '../experiment/types.js';
import { templateDoc } from '../templates/doc.js';
import { dbt3Queries } from './queries.js';
import { DEFAULT_SEED, sfProblem } from './scale.js';

export interface Dbt3TemplateOptions {
  sf: number;
  target?: string;
  database?: string;
  seed?: number;
  /** Load these dbgen `.tbl` files instead of generating rows. */
  folder?: string;
  restartsPerCell?: number;
}

/**
 * The buffer pool that holds the whole database, as in the field note (4 GB at SF 1, 32 GB at SF 10):
 * data and indexes take about 2.5 GB per SF in InnoDB. In MB, a multiple of 128, at least 256.
 */
export function bufferPoolMb(sf: number): number {
  const mb = sf >= 10 ? 32 * 1024 : sf * 4 * 1024;
  return Math.max(256, Math.ceil(mb / 128) * 128);
}

/** `256M`, `4G`: the size as `varlab sandbox create --buffer-pool` and my.cnf take it. */
export function sizeOption(mb: number): string {
  return mb % 1024 === 0 ? `${mb / 1024}G` : `${mb}M`;
}

export function dbt3Template(o: Dbt3TemplateOptions): ExperimentDoc {
  const problem = sfProblem(o.sf);
  if (problem) throw new Error(problem);
  const pool = sizeOption(bufferPoolMb(o.sf));
  return templateDoc(
    `DBT-3 SF ${o.sf}: ASLR x AHI x preload`,
    `The first field note's experiment: which of ASLR, the adaptive hash index and preloading make restarts agree on the 22 DBT-3 queries? ` +
      `Each restart runs every query 20 times and keeps the last 10. The data (DBT-3 at scale factor ${o.sf}) is made by the run's data step, once, before the first restart. ` +
      `Give mysqld a buffer pool that holds it all: ${pool} (varlab sandbox create local --buffer-pool ${pool}).`,
    {
      factors: [
        { tunable: 'aslr', levels: ['on', 'off'] },
        { tunable: 'ahi', levels: ['on', 'off'] },
        { tunable: 'preload', levels: ['off', 'on'] },
      ],
      restartsPerCell: o.restartsPerCell ?? 10,
      workload: {
        kind: 'queries',
        database: o.database ?? 'dbt3',
        setupSql: '',
        data: { kind: 'dbt3', sf: o.sf, seed: o.seed ?? DEFAULT_SEED, ...(o.folder ? { folder: o.folder } : {}) },
        queries: dbt3Queries(o.sf),
        repetitions: 20,
        warmup: 10,
      },
      seed: 20170116,
      idleSeconds: 2,
      // Sized to the SF: a preload reads the whole database; a query's time grows about linearly with the data.
      estimates: { restartSeconds: Math.round(5 + o.sf * 30), executionMs: Math.max(5, Math.round(o.sf * 1500)) },
    },
    o.target,
  );
}
