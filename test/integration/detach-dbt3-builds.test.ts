// A DBT-3 design with two server builds run detached: each build has its own data directory, and the
// runner on the target has no generator, so the launch runs the data step for every data directory the
// restarts reach (each build's server started as its first restart starts it, the rows loaded, mysqld
// stopped, the host put back), journaled per data directory, before the runner takes over. A second
// launch recognises both. Two copies of the sandbox mariadbd at two paths, over the sandbox sshd, SF 0.01.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { varlabSync } from './run-env.js';

const MARIADBD = '/usr/sbin/mariadbd';
let sshd: Sshd;
let dir: string;
let home: string;
let authArgs: string[];

before(async () => {
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), 'varlab-dbt3-builds-'));
  // mariadbd runs as `mysql`, which must reach the copies and the sandbox inside this folder.
  chmodSync(dir, 0o755);
  home = join(dir, 'home');
  mkdirSync(home);
  for (const b of ['a', 'b']) {
    mkdirSync(join(dir, b), { mode: 0o755 });
    copyFileSync(MARIADBD, join(dir, b, `mariadbd-${b}`));
    chmodSync(join(dir, b, `mariadbd-${b}`), 0o755);
  }
  authArgs = ['--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile];
  const r = varlabSync(['sandbox', 'create', sshd.target, ...authArgs, '--dir', dir, '--build', `A=${join(dir, 'a', 'mariadbd-a')}`, '--build', `B=${join(dir, 'b', 'mariadbd-b')}`, '--json'], home);
  assert.equal(r.code, 0, r.stderr + r.stdout);
});

after(async () => {
  if (sshd) varlabSync(['sandbox', 'remove', sshd.target, ...authArgs], home);
  await sshd?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type DataRecord = { datadir?: string; recognised: boolean; rows: Record<string, number>; checks: { expected: boolean }[] };
const dataRecords = (file: string) =>
  readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"t":"data"'))
    .map((l) => JSON.parse(l) as DataRecord);

test('a DBT-3 design with builds A and B run --detach: the launch loads each build’s data directory, the runner measures both, a second launch recognises both', { timeout: 900_000 }, async () => {
  const file = join(dir, 'dbt3-builds.varlab.json');
  const made = varlabSync(['new', file, '--template', 'dbt3', '--sf', '0.01', '--target', sshd.target, '--restarts', '1'], home);
  assert.equal(made.code, 0, made.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  doc.design.factors = [{ tunable: 'build', levels: ['A', 'B'] }] as ExperimentDoc['design']['factors'];
  doc.design.excludedCells = [];
  doc.design.restartsPerCell = 1;
  doc.design.workload.queries = doc.design.workload.queries.slice(0, 2);
  doc.design.workload.repetitions = 2;
  doc.design.workload.warmup = 1;
  doc.design.idleSeconds = 0;
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const launched = varlabSync(['run', file, '--detach', ...authArgs, '--trust'], home);
  assert.equal(launched.code, 0, launched.stderr + launched.stdout);
  // What B's first restart finds: its own data directory, loaded at the launch as A's is.
  const attached = varlabSync(['attach', file, ...authArgs], home);
  assert.equal(attached.code, 0, attached.stderr + attached.stdout);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const restarts = saved.results?.restarts ?? [];
  assert.deepEqual(
    restarts.map((r) => [r.cell, r.status, r.reason]),
    [
      ['build=A', 'ok', undefined],
      ['build=B', 'ok', undefined],
    ],
    `${attached.stderr}\n${JSON.stringify(saved.results?.log)}`,
  );
  for (const r of restarts) assert.deepEqual(r.queries.map((q) => q.values.length), [2, 2], `${r.cell}: every query measured on the loaded data`);

  // Each load says how far it is: the rows' lines twice, one load per data directory.
  assert.equal(launched.stderr.match(/DBT-3 data: loading rows \(\w+\) 0%/g)?.length, 2, launched.stderr);
  const loads = dataRecords(file);
  assert.deepEqual(
    loads.map((r) => [r.datadir, r.recognised, r.rows.lineitem, r.checks.every((c) => c.expected)]),
    [
      ['A', false, 60341, true],
      ['B', false, 60341, true],
    ],
    'one data step per build’s data directory, each loaded and checked',
  );

  // Run again from scratch: both data directories are there, recognised, not loaded again.
  const again = varlabSync(['run', file, '--detach', '--fresh', ...authArgs, '--trust'], home);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.deepEqual(
    // (run again from scratch: a new journal, the earlier one kept aside)
    dataRecords(file)
      .slice(-2)
      .map((r) => [r.datadir, r.recognised]),
    [
      ['A', true],
      ['B', true],
    ],
  );
  const done = varlabSync(['attach', file, ...authArgs], home);
  assert.equal(done.code, 0, done.stderr + done.stdout);
});
