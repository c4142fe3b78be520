// Starting over (--fresh, "Start over") an unfinished run that finished no restart: there are no
// results to keep, so no results copy is made (before, an empty `…results-DATE…` copy of the file
// was); its journal is archived, and what is said says so. Issue 25, small things.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { recordsOfRestart } from '../../src/common/records.js';
import { headerRecord, journalPath } from '../../src/node/engine/journal.js';
import { prepareRun } from '../../src/node/runs/prepare.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-fresh-none-'));
process.env.VARLAB_HOME = join(dir, 'home');
after(() => rmSync(dir, { recursive: true, force: true }));

function experiment(name: string): { file: string; doc: ExperimentDoc } {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.serverProfile = { kind: 'direct', target: 'local', mysqld: '/usr/sbin/mariadbd', datadir: join(dir, 'data'), socket: join(dir, 'mysqld.sock'), port: 23306, user: 'root', extraArgs: [], sudo: false };
  const file = join(dir, `${name}.varlab.json`);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return { file, doc };
}

const copies = (name: string) => readdirSync(dir).filter((f) => f.startsWith(`${name}.results-`));
const archived = (name: string) => readdirSync(dir).filter((f) => f.startsWith(`${name}.varlab.journal.`) && f !== `${name}.varlab.journal.jsonl`);

test('--fresh on an unfinished run of 0 restarts makes no results copy; the journal is archived and it says so', async () => {
  const { file, doc } = experiment('none');
  // The run started (its header written) and ended before its first restart finished.
  writeFileSync(journalPath(file), JSON.stringify(headerRecord(doc.design)) + '\n');
  const p = await prepareRun({ file, fresh: true });
  assert.ok(p.notes.some((n) => /the unfinished run finished no restart, so there are no results to keep/.test(n)), p.notes.join('\n'));
  const said = await p.commit();
  assert.deepEqual(copies('none'), [], 'no empty results copy');
  assert.equal(existsSync(journalPath(file)), false, 'the journal is moved aside');
  assert.equal(archived('none').length, 1);
  assert.match(said.join('\n'), /the unfinished run finished no restart, so no results copy was made \(its journal is archived in \S+none\.varlab\.journal\.\S+\.jsonl\)/);
});

test('--fresh on an unfinished run with a restart done still keeps its results in a copy', async () => {
  const { file, doc } = experiment('some');
  const header = headerRecord(doc.design);
  const first = buildPlan(doc.design)[0];
  const restart = { seq: first.seq, cell: first.cell, status: 'ok' as const, startedAt: 1, finishedAt: 2, checks: [], queries: [{ query: doc.design.workload.queries[0].name, unit: 'ms', source: 'performance_schema' as const, values: [1, 1, 1] }] };
  writeFileSync(journalPath(file), [header, ...recordsOfRestart(restart, 0)].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const p = await prepareRun({ file, fresh: true });
  assert.ok(p.notes.some((n) => /the results of the unfinished run would be kept in/.test(n)), p.notes.join('\n'));
  await p.commit();
  assert.equal(copies('some').length, 1, 'the restart done is kept in a copy');
});
