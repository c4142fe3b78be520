// The whole quickstart (16 cells, 2 restarts each, 3 repetitions) through `varlab run` on the
// sandbox sshd and a mariadbd varlab starts itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { assertComplete } from './run-journal-check.js';
import { quickstartCopy, runEnvForTests, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests();

test('the quickstart with 2 restarts per cell and 3 repetitions completes; every execution is journaled once and saved', { timeout: 600_000 }, async () => {
  const file = quickstartCopy(env, 'quick');
  const run = varlabRun([file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '2', '--repetitions', '3', '--warmup', '0'], env.varlabHome);
  const code = await run.exit;
  assert.equal(code, 0, run.stderr());
  const executions = run.events.filter((e) => e.type === 'execution');
  assert.equal(executions.length, 16 * 2 * 5 * 3, 'one event line per execution');
  assert.ok(run.events.some((e) => e.type === 'tunables-verified' && e.checks.some((c) => c.tunable === 'aslr' && c.level === 'off' && c.ok)));
  assert.equal(run.events.at(-1)?.type, 'run-finished');
  assert.match(run.stderr(), /finished: 32 of 32 restarts in [^;]+; results saved into/);

  const doc = assertComplete(file, file.replace(/\.json$/, '.journal.jsonl'), 2, 3);
  assert.equal(doc.design.workload.warmup, 0);
  assert.equal(doc.design.target, env.sshd.target);
  assert.ok(doc.results?.host, 'the host fingerprint is saved with the results');
  // Preloaded cells say what was read.
  assert.ok(doc.results!.restarts.filter((r) => r.cell.includes('preload=on')).every((r) => r.preload && r.preload.tables > 0));

  if (existsSync('src/cli/commands/analyze.ts')) {
    const a = varlabSync(['analyze', file, '--json'], env.varlabHome);
    assert.equal(a.code, 0, a.stderr);
    const analysis = JSON.parse(a.stdout);
    const rows = findCellQueryRows(analysis);
    assert.equal(rows.length, 16 * 5, 'every cell and query is analyzed');
    for (const r of rows) {
      assert.equal(r.n_restarts, 2);
      assert.equal(r.reps_per_restart, 3);
    }
  }

  // Running the finished file again runs nothing (its results would be replaced) and says how to run it anew.
  const dry = varlabSync(['run', file, '--target', env.sshd.target, ...env.authArgs, '--dry-run'], env.varlabHome);
  assert.equal(dry.code, 0, dry.stderr);
  assert.doesNotMatch(dry.stdout, /resuming/);
  assert.match(dry.stdout, /already finished \(32 of 32 restarts\); nothing to run\. To run it again from scratch, pass --fresh/);
});

/** Rows that carry n_restarts, wherever analyze nests them. */
function findCellQueryRows(value: unknown): { n_restarts: number; reps_per_restart: number }[] {
  const out: { n_restarts: number; reps_per_restart: number }[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.n_restarts === 'number' && typeof o.reps_per_restart === 'number') out.push(o as never);
      else Object.values(o).forEach(walk);
    }
  };
  walk(value);
  return out;
}
