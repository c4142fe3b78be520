// One host of a several-host file (issue 25): `run.check` with that host as its target, and
// `varlab run FILE --target HOST --missing`, count that host's restarts alone. Before, the one target
// replaced the file's hosts, every host's restarts were counted as its own, and a host that missed a
// cell was said to miss nothing (a cell complete on the other host filled it).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { prepareRun } from '../../src/node/runs/prepare.js';
import { RunService } from '../../src/node/runs/service.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-check-host-'));
process.env.VARLAB_HOME = join(dir, 'home');
after(() => rmSync(dir, { recursive: true, force: true }));
// Each host's server, registered as `varlab sandbox create` does.
const profile = (target: string) => ({ kind: 'direct', target, mysqld: '/usr/sbin/mariadbd', datadir: join(dir, 'data'), socket: join(dir, 'mysqld.sock'), port: 23306, user: 'root', extraArgs: [], sudo: false });
mkdirSync(process.env.VARLAB_HOME, { recursive: true });

const [A, B] = ['ssh://a.example', 'ssh://b.example'];
writeFileSync(join(process.env.VARLAB_HOME, 'profiles.json'), JSON.stringify({ [A]: profile(A), [B]: profile(B) }));

/** Two hosts, ahi on/off, one restart per cell: A measured both cells, B only ahi=on. */
function twoHostFile(edit: (doc: ExperimentDoc, restart: (seq: number, cell: string, host: string) => RestartResult) => void = () => {}): string {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const d = doc.design;
  d.target = A;
  d.targets = [A, B];
  d.factors = [{ tunable: 'ahi', levels: ['on', 'off'] }];
  d.excludedCells = [];
  d.restartsPerCell = 1;
  delete d.serverProfile;
  const restart = (seq: number, cell: string, host: string): RestartResult => ({ seq, cell, host, status: 'ok', startedAt: seq, finishedAt: seq + 1, checks: [], queries: [{ query: d.workload.queries[0].name, unit: 'ms', source: 'performance_schema', values: [1, 1, 1] }] });
  doc.results = { startedAt: 1, finishedAt: 9, restarts: [restart(1, 'ahi=on', A), restart(2, 'ahi=off', A), restart(1, 'ahi=on', B)] };
  edit(doc, restart);
  const file = join(dir, 'two.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

test('run.check with one host of a several-host file says what that host misses, no more, no less', async () => {
  const file = twoHostFile();
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
  const all = await service.check(file);
  assert.ok(all.finished);
  assert.equal(all.missing?.restarts, 1);
  assert.match(all.missing?.sentence ?? '', new RegExp(`ahi=off on ${B}: 1`));
  const onB = await service.check(file, B);
  assert.ok(onB.finished);
  assert.deepEqual([onB.missing?.cells, onB.missing?.restarts], [1, 1], 'B misses ahi=off (A measured it: not B\'s)');
  const onA = await service.check(file, A);
  assert.ok(onA.finished);
  assert.equal(onA.missing, undefined, 'A misses nothing');
});

test('varlab run FILE --target HOST --missing on a several-host file runs on that host what it misses, as a host of the file', async () => {
  const file = twoHostFile();
  const p = await prepareRun({ file, target: B, missing: true });
  assert.deepEqual(p.hosts?.map((h) => [h.target, h.doc.design.excludedCells]), [[B, ['ahi=on']]]);
  assert.ok(p.grows, 'a run of what the file misses: its results join the file');
  await assert.rejects(prepareRun({ file, target: A, missing: true }), new RegExp(`nothing is missing on ${A.replace(/[.]/g, '\\.')}`));
});

test('--target HOST --missing: hosts not asked do not count, even when they miss a different number of restarts', async () => {
  // Two restarts per cell: A misses both of ahi=off, B one of it. Both at once cannot be one run; B alone can.
  const file = twoHostFile((doc, restart) => {
    doc.design.restartsPerCell = 2;
    doc.results!.restarts = [restart(1, 'ahi=on', A), restart(2, 'ahi=on', A), restart(1, 'ahi=on', B), restart(2, 'ahi=off', B), restart(3, 'ahi=on', B)];
  });
  await assert.rejects(prepareRun({ file, missing: true }), /the cells miss different numbers of restarts/);
  const p = await prepareRun({ file, target: B, missing: true });
  assert.deepEqual(p.hosts?.map((h) => [h.target, h.doc.design.excludedCells, h.doc.design.restartsPerCell]), [[B, ['ahi=on'], 1]]);
});
