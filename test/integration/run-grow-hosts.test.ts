// A finished design on two hosts grows (issue 25, item 5): `varlab run FILE --missing` measures on
// each host only the cells that host misses, attached and detached (`--detach`, then `attach`), and
// the file ends with every earlier restart as it was and the new ones after them on their host, marked
// as a later run. Real parts: two sshds, each with its own sandbox mariadbd (two-hosts.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { varlabRun, varlabSync } from './run-env.js';
import { twoHostCopy, twoHostsForTests } from './two-hosts.js';

const two = twoHostsForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
const edit = (file: string, change: (d: ExperimentDoc) => void) => {
  const d = read(file);
  change(d);
  writeFileSync(file, JSON.stringify(d, null, 2));
};
/** Each host's restarts as [seq, cell, part], in seq order. */
const byHost = (d: ExperimentDoc, host: string) =>
  d.results!.restarts
    .filter((r) => r.host === host)
    .sort((a, b) => a.seq - b.seq)
    .map((r) => [r.seq, r.cell, r.part ?? 1] as const);

test('two hosts: --missing runs on each host only the new cell, attached; then the missing restarts detached, brought in by attach', { timeout: 900_000 }, async () => {
  const { env, authArgs, hosts } = two;
  // ahi=off left out at first: the first run measures ahi=on alone, twice on each host.
  const file = twoHostCopy(env, 'growtwo');
  edit(file, (d) => (d.design.excludedCells = ['ahi=off']));
  const targets = ['--target', hosts[0], '--target', hosts[1], ...authArgs];
  const first = varlabRun([file, ...targets], env.varlabHome);
  assert.equal(await first.exit, 0, first.stderr());
  const finished = read(file);
  assert.equal(finished.results!.restarts.length, 4);

  // The cell is put back (the design grows): the plain run says what each host misses.
  edit(file, (d) => (d.design.excludedCells = []));
  const plain = varlabSync(['run', file, ...authArgs], env.varlabHome);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /the design grew since: 1 cell needs 2 restarts each .*ahi=off on ssh:.*--missing/);

  const more = varlabRun([file, ...authArgs, '--missing'], env.varlabHome);
  assert.equal(await more.exit, 0, more.stderr());
  const ran = more.events.flatMap((e) => (e.type === 'restart-started' ? [`${e.host} ${e.cell}`] : []));
  assert.deepEqual(ran.sort(), hosts.flatMap((h) => [`${h} ahi=off`, `${h} ahi=off`]).sort(), 'only the new cell, twice on each host');
  const grown = read(file);
  for (const host of hosts) {
    const old = byHost(finished, host);
    assert.deepEqual(byHost(grown, host), [...old, [3, 'ahi=off', 2], [4, 'ahi=off', 2]], `${host}: the old restarts kept, the new ones after them as run 2`);
  }
  assert.ok(grown.results!.restarts.every((r) => r.status === 'ok'));

  // One more restart per cell, detached: each host runs both cells once; attach brings them in as run 3.
  edit(file, (d) => (d.design.restartsPerCell = 3));
  const started = varlabSync(['run', file, ...authArgs, '--missing', '--detach'], env.varlabHome);
  assert.equal(started.code, 0, started.stderr + started.stdout);
  for (const host of hosts) assert.ok(started.stdout.includes(`on ${host} (2 restarts`), started.stdout);
  for (;;) {
    const s = varlabSync(['status', file, '--json'], env.varlabHome);
    assert.equal(s.code, 0, s.stderr + s.stdout);
    if ((JSON.parse(s.stdout) as { state: string }).state !== 'running') break;
    await sleep(1000);
  }
  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.equal(attached.code, 0, attached.stderr);
  const after = read(file);
  for (const host of hosts) {
    const rows = byHost(after, host);
    assert.deepEqual(rows.slice(0, 4), byHost(grown, host), `${host}: runs 1 and 2 untouched`);
    const added = rows.slice(4);
    assert.deepEqual(added.map(([seq]) => seq), [5, 6], `${host}: run 3 follows`);
    assert.deepEqual(added.map(([, cell]) => cell).sort(), ['ahi=off', 'ahi=on'], `${host}: each cell once`);
    assert.ok(added.every(([, , part]) => part === 3), `${host}: marked as run 3`);
  }
  // Nothing is missing any more, on either host.
  assert.match(varlabSync(['run', file, ...authArgs], env.varlabHome).stdout, /already finished \(12 of 12 restarts\)/);
});
