// Does `varlab plan FILE --effect E` give a time that a rerun confirms (issue 21, Done when: within 20 %
// on a quiet machine)? On a loopback sandbox mariadbd with two builds (two copies of the system
// mariadbd at two paths, as test/integration/run-stop.test.ts registers them), in-process through the
// CLI's own `main` (Node's start-up, well under a second, is not counted):
//   1. a short pilot: `varlab run FILE` of a build design in rounds (A/B, interleaved, with idle time);
//   2. `varlab plan FILE --effect E`, E the smallest of a list whose planned count is at most
//      PLAN_CHECK_MAX restarts per cell (default 12), so the rerun takes minutes. The time `plan` gives
//      is restarts × (a restart's measured cost + idle + repetitions × an execution's) and whatever a run
//      costs once: at a larger E it is the same arithmetic as at E = 1, only with fewer restarts (what
//      a run costs once weighs more here than in a long run, so this is the harsher check of it);
//   3. the design set to exactly the planned restarts per cell, repetitions and warm-up, run again
//      (`varlab run FILE --fresh`, the pilot's results kept aside as a fresh start keeps them), timed
//      from the command's start to its end;
// then prints planned and measured wall time, their ratio, and where the measured time went (before
// the first restart, the restarts, after the last one). The load average is printed with every
// figure: on a shared machine this is not a quiet figure. Prints numbers; asserts nothing about time.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import { analyze, planningTable, tidyFromExperiment } from '../../src/common/stats/index.js';
import { formatDuration } from '../../src/common/plan.js';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { withBuildCopies, withSandbox } from './lib/sandbox.js';

const MARIADBD = process.env.PLAN_CHECK_MARIADBD ?? '/usr/sbin/mariadbd';
const PILOT_RESTARTS = Number(process.env.PLAN_CHECK_PILOT ?? 6);
const MAX_PER_CELL = Number(process.env.PLAN_CHECK_MAX ?? 12);
const EFFECTS = [1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 90];
const IDLE_SECONDS = 1;

const load = () => loadavg()[0].toFixed(1);
const s = (x: number) => `${x.toFixed(1)} s`;

/** A build design in rounds on the sandbox: one GROUP BY over 100,000 rows the setup makes in each build's data directory. */
function pilotDoc(profile: ServerProfile): ExperimentDoc {
  return {
    format: 'varlab-experiment',
    version: 3,
    name: 'plan check',
    design: {
      factors: [{ tunable: 'build', levels: ['A', 'B'] }],
      excludedCells: [],
      restartsPerCell: PILOT_RESTARTS,
      workload: {
        kind: 'queries',
        database: 'varlab_bench',
        setupSql: 'CREATE TABLE t (n INT PRIMARY KEY, g INT NOT NULL); INSERT INTO t SELECT seq, seq % 997 FROM seq_1_to_100000',
        setupSkipIfTable: 't',
        queries: [{ name: 'groups', sql: 'SELECT g, COUNT(*), SUM(n) FROM t GROUP BY g ORDER BY NULL' }],
        repetitions: 12,
        warmup: 2,
      },
      order: 'interleaved',
      seed: 1,
      idleSeconds: IDLE_SECONDS,
      // Deliberately off: the plan must not use them once the pilot has measured the costs.
      estimates: { restartSeconds: 2, executionMs: 1 },
      target: 'local',
      serverProfile: { ...profile, target: 'local' },
    },
  };
}

/** `varlab ARGS` in this process; its lines, each with the second it was printed at. */
async function varlab(args: string[]): Promise<{ code: number; out: string[]; err: { at: number; line: string }[]; seconds: number }> {
  const out: string[] = [];
  const err: { at: number; line: string }[] = [];
  const io: CliIO = { out: (l) => out.push(l), err: (l) => err.push({ at: Date.now(), line: l }), tty: false };
  const t = Date.now();
  const code = await main(args, io);
  const seconds = (Date.now() - t) / 1000;
  if (code !== 0) throw new Error(`varlab ${args.join(' ')} exited ${code}:\n${[...out, ...err.map((e) => e.line)].join('\n')}`);
  return { code, out, err, seconds };
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;

/** The smallest effect of EFFECTS whose plan (the one `plan --effect` prints) is at most MAX_PER_CELL restarts per cell. */
function chooseEffect(doc: ExperimentDoc): { effect: number | null; counts: string } {
  const counts: string[] = [];
  for (const e of EFFECTS) {
    const a = analyze(tidyFromExperiment(doc), { warmup: doc.design.workload.warmup, targetEffectPct: e });
    const n = planningTable(doc, a, e).plan.restartsPerCell;
    counts.push(`${e} %: ${n ?? 'none'}`);
    if (n !== null && n <= MAX_PER_CELL) return { effect: e, counts: counts.join(', ') };
  }
  return { effect: null, counts: counts.join(', ') };
}

/** Where a run's wall time went: before its first restart, its restarts, between them, after the last. */
function breakdown(doc: ExperimentDoc, startedAt: number, endedAt: number) {
  const rs = [...doc.results!.restarts].sort((a, b) => a.startedAt - b.startedAt);
  const windows = rs.reduce((n, r) => n + (r.finishedAt - r.startedAt), 0) / 1000;
  const setup = rs.reduce((n, r) => n + (r.steps?.setup ?? 0), 0) / 1000;
  return {
    before: (rs[0].startedAt - startedAt) / 1000,
    windows,
    between: (rs[rs.length - 1].finishedAt - rs[0].startedAt) / 1000 - windows,
    after: (endedAt - rs[rs.length - 1].finishedAt) / 1000,
    setup,
    restarts: rs.length,
    perRestart: windows / rs.length,
  };
}

export async function bench(): Promise<void> {
  console.log(`machine: ${cpus().length} cores, load average ${load()} at start; a loopback sandbox mariadbd (${MARIADBD}) with two builds A and B (two copies of it)`);
  await withBuildCopies(MARIADBD, ['A', 'B'], async (builds) => {
    await withSandbox(
      'plan-check',
      async ({ dir, profile }) => {
        const file = join(dir, 'plan-check.varlab.json');
        writeFileSync(file, JSON.stringify(pilotDoc(profile), null, 2));

        const pilot = await varlab(['run', file, '--trust']);
        const pilotDocRead = read(file);
        console.log(`1. pilot: ${PILOT_RESTARTS} rounds of A/B, 12 repetitions (2 warm-up), idle ${IDLE_SECONDS} s: ${s(pilot.seconds)} (load ${load()})`);

        const { effect, counts } = chooseEffect(pilotDocRead);
        if (effect === null) throw new Error(`no effect plans at most ${MAX_PER_CELL} restarts per cell at the pilot's variance (restarts per cell by effect: ${counts}): raise PLAN_CHECK_MAX`);
        const plan = await varlab(['plan', file, '--effect', String(effect)]);
        const line = plan.out.find((l) => l.includes('change in every query'));
        const m = line && /: (\d+) restarts per cell and (\d+) repetitions per restart \((\d+) warm-up[^)]*\), about ([^(]+?) for (\d+) cells?/.exec(line);
        if (!m) throw new Error(`varlab plan --effect ${effect} gave no suggestion:\n${plan.out.join('\n')}`);
        const [restartsPerCell, repetitions, warmup] = [Number(m[1]), Number(m[2]), Number(m[3])];
        const a = analyze(tidyFromExperiment(pilotDocRead), { warmup: pilotDocRead.design.workload.warmup, targetEffectPct: effect });
        const planned = planningTable(pilotDocRead, a, effect).plan.seconds!;
        console.log(`2. varlab plan FILE --effect ${effect}: ${restartsPerCell} restarts per cell, ${repetitions} repetitions (${warmup} warm-up), about ${m[4].trim()} (${s(planned)})`);
        console.log(`   (E is the smallest effect whose plan is at most ${MAX_PER_CELL} restarts per cell, by effect: ${counts}; at --effect 1 the time is the same arithmetic with more restarts)`);
        for (const l of plan.out.slice(1)) console.log(`     ${l.trim()}`);

        // Exactly the plan, the pilot's results kept aside by --fresh (its costs are what the start line says the time at).
        const edited = read(file);
        edited.design.restartsPerCell = restartsPerCell;
        edited.design.workload.repetitions = repetitions;
        edited.design.workload.warmup = warmup;
        writeFileSync(file, JSON.stringify(edited, null, 2));
        const loadBefore = load();
        const t0 = Date.now();
        const rerun = await varlab(['run', file, '--fresh', '--trust']);
        const t1 = Date.now();
        const startLine = rerun.err.find((e) => e.line.startsWith('running '))?.line ?? '(no start line)';
        const b = breakdown(read(file), t0, t1);
        console.log(`3. the rerun at exactly the plan: ${b.restarts} restarts, ${s(rerun.seconds)} (load ${loadBefore} before, ${load()} after)`);
        console.log(`     its start line: ${startLine}`);
        console.log(
          `     before the first restart ${s(b.before)}; restarts ${s(b.windows)} (${s(b.perRestart)} each, set-up ${s(b.setup)} of it); between them ${s(b.between)}; after the last (stop, restore, save) ${s(b.after)}`,
        );
        if (process.env.PLAN_CHECK_KEEP) for (const f of readdirSync(dir).filter((x) => x.endsWith('.varlab.json'))) copyFileSync(join(dir, f), join(process.env.PLAN_CHECK_KEEP, f));
        console.log(`   planned ${formatDuration(planned)} (${s(planned)}), measured ${formatDuration(rerun.seconds)} (${s(rerun.seconds)}): measured/planned ${(rerun.seconds / planned).toFixed(2)} (the goal: within 20 % on a quiet machine; load ${load()} now)`);
      },
      { target: 'local' },
      { builds },
    );
  });
}
