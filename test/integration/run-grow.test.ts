// A finished experiment grows (issue 25, item 5): a level added to its design keeps every result in
// the file (saved as the app saves it), `varlab run FILE --missing` measures the new cells alone, in
// rounds of their own, and never an old cell again; the file on disk ends with the old restarts as
// they were and the new ones after them, marked as a later run. A plain `varlab run` says what is
// missing instead of "already finished". Detached (`--missing --detach`), `attach` brings the run's
// restarts in the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { expandCells } from '../../src/common/plan.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { keepCells, quickstartCopy, runEnvForTests, varlabRun } from './run-env.js';
import { CLI } from '../fixtures/cli.js';

const OLD = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=on,numa=interleave'];
const NEW = ['aslr=on,ahi=on,preload=off,numa=bind:0', 'aslr=off,ahi=off,preload=on,numa=bind:0'];

const env = runEnvForTests({ varlabHome: true });

function varlabPlain(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...CLI, 'run', ...args], { env: { ...process.env, VARLAB_HOME: env.varlabHome }, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

test('a level added to a finished design: --missing runs only the new cells, interleaved; the file holds old and new', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'grow', (d) => {
    keepCells(d, OLD);
    d.design.restartsPerCell = 2;
    d.design.order = 'interleaved';
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
  });
  const target = ['--target', env.sshd.target, ...env.authArgs];
  const first = varlabRun([file, ...target], env.varlabHome);
  assert.equal(await first.exit, 0, first.stderr());
  const finished = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(finished.results!.restarts.length, 4);

  // The user adds the level bind:0 to NUMA and keeps two of the new cells, and saves (as the app does).
  const docs = new DocumentService();
  const opened = await docs.open(file);
  const factors = opened.doc.design.factors.map((f) => (f.tunable === 'numa' ? { ...f, levels: [...f.levels, 'bind:0'] } : f));
  const keep = new Set([...OLD, ...NEW]);
  const grown = { ...opened.doc, design: { ...opened.doc.design, factors, excludedCells: expandCells({ factors, excludedCells: [] }).map((c) => c.id).filter((c) => !keep.has(c)) } };
  const saved = await docs.save({ path: file, doc: grown, baseRevision: opened.revision });
  docs.dispose();
  assert.match(saved.note ?? '', /2 cells need 2 restarts each/);
  assert.deepEqual((JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc).results, finished.results, 'the save kept every result');

  // A plain run says what is missing and how to run it; nothing runs.
  const plain = varlabPlain([file, ...target]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /the design grew since: 2 cells need 2 restarts each .*--missing/);

  const more = varlabRun([file, ...target, '--missing'], env.varlabHome);
  assert.equal(await more.exit, 0, more.stderr());
  const ran = more.events.flatMap((e) => (e.type === 'restart-started' ? [e.cell] : []));
  assert.equal(ran.length, 4, 'two new cells, two restarts each');
  assert.deepEqual([...new Set(ran)].sort(), [...NEW].sort(), 'only the new cells ran');
  // Interleaved: each round holds both new cells once.
  assert.deepEqual([...ran.slice(0, 2)].sort(), [...NEW].sort());
  assert.deepEqual([...ran.slice(2)].sort(), [...NEW].sort());

  const after = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(after.design.factors, factors, 'the file keeps the grown design');
  assert.deepEqual(after.results!.restarts.slice(0, 4), finished.results!.restarts, 'the old restarts are untouched');
  const added = after.results!.restarts.slice(4);
  assert.deepEqual(added.map((r) => [r.seq, r.part]), [[5, 2], [6, 2], [7, 2], [8, 2]], 'the new ones follow in run order, marked as run 2');
  assert.ok(added.every((r) => r.status === 'ok' && r.checks.some((c) => c.tunable === 'numa' && c.ok)), JSON.stringify(added.map((r) => r.checks)));

  // Nothing is missing any more; a plain run counts the file's restarts, both runs.
  assert.match(varlabPlain([file, ...target]).stdout, /already finished \(8 of 8 restarts\)/);
  const none = varlabPlain([file, ...target, '--missing']);
  assert.notEqual(none.code, 1);
  assert.match(none.stdout + none.stderr, /nothing is missing/);

  // One more restart per cell, detached: the runner on the target measures each of the four cells
  // once, and attach brings them into the file as run 3, after runs 1 and 2.
  const raised = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  raised.design.restartsPerCell = 3;
  writeFileSync(file, JSON.stringify(raised, null, 2));
  const detached = varlabPlain([file, ...target, '--missing', '--detach']);
  assert.equal(detached.code, 0, detached.stderr + detached.stdout);
  assert.match(detached.stdout, /^detached: run [0-9a-f-]{36} on .* \(4 restarts,/m);
  for (;;) {
    const s = spawnSync(process.execPath, [...CLI, 'status', file, '--json'], { env: { ...process.env, VARLAB_HOME: env.varlabHome }, encoding: 'utf8' });
    assert.equal(s.status, 0, s.stderr + s.stdout);
    if ((JSON.parse(s.stdout) as { state: string }).state !== 'running') break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const attached = spawnSync(process.execPath, [...CLI, 'attach', file], { env: { ...process.env, VARLAB_HOME: env.varlabHome }, encoding: 'utf8' });
  assert.equal(attached.status, 0, attached.stderr);
  const third = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(third.results!.restarts.slice(0, 8), after.results!.restarts, 'runs 1 and 2 untouched');
  const run3 = third.results!.restarts.slice(8);
  assert.deepEqual(run3.map((r) => [r.seq, r.part, r.status]), [9, 10, 11, 12].map((seq) => [seq, 3, 'ok']));
  assert.deepEqual(run3.map((r) => r.cell).sort(), [...OLD, ...NEW].sort(), 'each cell once');
  assert.match(varlabPlain([file, ...target]).stdout, /already finished \(12 of 12 restarts\)/);
});
