// Does the time said before a DBT-3 run with two server builds match what the run takes, and what its
// file's costs say afterwards (issue 21: every step counted once)? On a loopback sandbox mariadbd with
// builds A and B (two copies of the system mariadbd), a DBT-3 design at SF 0.01 with a setup script and
// no skip table (so every run runs it again), in-process through the CLI's own `main`:
//   1. `varlab run FILE --dry-run` and the learned estimate before any run (the design's estimates);
//   2. `varlab run FILE`, timed: each build's data directory loaded once, the script run in each;
//   3. the estimate from that run's costs ("from the run of DATE") for the same design;
//   4. `varlab run FILE --fresh`, timed: the data recognised this time, the script run again.
// Prints the numbers, where each run's time went (the restarts' steps, the data steps) and the time left each
// progress event said against what the run then took; asserts nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import { learnedEstimate, measuredCosts } from '../../src/common/stats/planner.js';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { withBuildCopies, withSandbox } from './lib/sandbox.js';

const MARIADBD = process.env.PLAN_CHECK_MARIADBD ?? '/usr/sbin/mariadbd';
const load = () => loadavg()[0].toFixed(1);
const s = (x: number) => `${x.toFixed(1)} s`;

async function varlab(args: string[]): Promise<{ out: string[]; err: string[]; seconds: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (l) => out.push(l), err: (l) => err.push(l), tty: false };
  const t = Date.now();
  const code = await main(args, io);
  const seconds = (Date.now() - t) / 1000;
  if (code !== 0) throw new Error(`varlab ${args.join(' ')} exited ${code}:\n${[...out, ...err].join('\n')}`);
  return { out, err, seconds };
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;

/** The time left each progress event said, against what the run then took to its end. */
function timeLeft(out: string[], end: number): string {
  const progress = out.flatMap((l) => {
    try {
      const e = JSON.parse(l) as { type?: string; at: number; done: number; remainingMs: number };
      return e.type === 'progress' ? [e] : [];
    } catch {
      return [];
    }
  });
  const seen = new Set<number>();
  return progress
    .filter((e) => !seen.has(e.done) && seen.add(e.done))
    .map((e) => `     after ${e.done} restarts: time left said ${s(e.remainingMs / 1000)}, took ${s((end - e.at) / 1000)}`)
    .join('\n');
}

function where(doc: ExperimentDoc, t0: number, t1: number): string {
  const rs = [...doc.results!.restarts].sort((a, b) => a.startedAt - b.startedAt);
  const lines = rs.map((r) => `     #${r.seq} ${r.cell}: ${s((r.finishedAt - r.startedAt) / 1000)} ${JSON.stringify(r.steps)}`);
  const data = (doc.results!.dataSteps ?? []).map((d) => `     data step ${d.datadir ?? '(own)'}: ${d.ms} ms${d.recognised ? ' (recognised)' : ''}`);
  return [
    `     before the first restart ${s((rs[0].startedAt - t0) / 1000)}, after the last ${s((t1 - rs[rs.length - 1].finishedAt) / 1000)}`,
    ...lines,
    ...data,
  ].join('\n');
}

export async function bench(): Promise<void> {
  console.log(`machine: ${cpus().length} cores, load ${load()}; a loopback sandbox mariadbd with builds A and B (two copies of ${MARIADBD}), DBT-3 SF 0.01`);
  await withBuildCopies(MARIADBD, ['A', 'B'], async (builds) => {
    await withSandbox(
      'plan-check-dbt3',
      async ({ dir, profile }: { dir: string; profile: ServerProfile }) => {
        const file = join(dir, 'dbt3.varlab.json');
        await varlab(['new', file, '--template', 'dbt3', '--sf', '0.01', '--target', 'local']);
        const doc = read(file);
        doc.design.factors = [{ tunable: 'build', levels: ['A', 'B'] }];
        doc.design.excludedCells = [];
        doc.design.restartsPerCell = Number(process.env.PLAN_CHECK_RESTARTS ?? 3);
        doc.design.order = 'interleaved';
        doc.design.idleSeconds = 1;
        doc.design.workload.queries = doc.design.workload.queries.slice(0, 2);
        doc.design.workload.repetitions = 4;
        doc.design.workload.warmup = 1;
        // Runs again in every run (no skip table): a table made from the DBT-3 rows.
        doc.design.workload.setupSql = 'DROP TABLE IF EXISTS status_count; CREATE TABLE status_count AS SELECT o_orderstatus, COUNT(*) AS n FROM orders GROUP BY o_orderstatus';
        delete doc.design.workload.setupSkipIfTable;
        doc.design.serverProfile = { ...profile, target: 'local' };
        writeFileSync(file, JSON.stringify(doc, null, 2));

        const dry = await varlab(['run', file, '--dry-run']);
        const before = learnedEstimate(read(file));
        console.log(`1. before any run: ${before.estimate.restarts} restarts, ${s(before.estimate.seconds)} (${before.basis})`);
        for (const l of dry.out.filter((x) => /about|restart/.test(x)).slice(0, 4)) console.log(`     dry run: ${l}`);
        const planned = await varlab(['plan', file]);
        for (const l of planned.out.slice(0, 2)) console.log(`     plan: ${l}`);

        const t0 = Date.now();
        const first = await varlab(['run', file, '--trust', '--events', 'json']);
        const t1 = Date.now();
        console.log(`2. the first run (loads both data directories): ${s(first.seconds)} (load ${load()})`);
        console.log(where(read(file), t0, t1));
        console.log(timeLeft(first.out, t1));

        const after = learnedEstimate(read(file));
        const c = measuredCosts(read(file));
        console.log(`3. the estimate from its costs: ${s(after.estimate.seconds)} (${after.basis}); costs ${JSON.stringify(c)}`);
        const planned2 = await varlab(['plan', file]);
        for (const l of planned2.out.slice(0, 2)) console.log(`     plan: ${l}`);

        const t2 = Date.now();
        const again = await varlab(['run', file, '--fresh', '--trust', '--events', 'json']);
        const t3 = Date.now();
        console.log(`4. the rerun (data recognised, script again): ${s(again.seconds)} (load ${load()}); said before: ${s(after.estimate.seconds)}, ratio ${(again.seconds / after.estimate.seconds).toFixed(2)}`);
        console.log(where(read(file), t2, t3));
        console.log(timeLeft(again.out, t3));
        const after2 = learnedEstimate(read(file));
        console.log(`5. the estimate from the rerun's costs: ${s(after2.estimate.seconds)} (${after2.basis}); costs ${JSON.stringify(measuredCosts(read(file)))}`);
      },
      { target: 'local' },
      { builds },
    );
  });
}
