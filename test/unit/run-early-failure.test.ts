// A run that fails before its first restart is never silent, and says what failed: the journal beside
// the file cannot be read (here a folder stands where it goes) is named with the reason (issue 10,
// problem 6; Node's own "EISDIR: illegal operation on a directory, read" named no file).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { RunService } from '../../src/node/runs/service.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-early-'));
process.env.VARLAB_HOME = join(dir, 'home');
after(() => rmSync(dir, { recursive: true, force: true }));

test('a journal that cannot be read: the run is refused naming the journal and why, and nothing is left registered or locked', async () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.serverProfile = { kind: 'direct', target: 'local', mysqld: '/usr/sbin/mariadbd', datadir: join(dir, 'data'), socket: join(dir, 'mysqld.sock'), port: 23306, user: 'root', extraArgs: [], sudo: false };
  const file = join(dir, 'early.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  mkdirSync(journalPath(file));

  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
  // Refused before anything runs, naming the journal and why (the app shows the refusal in the Run view).
  await assert.rejects(service.start({ file, consent: async () => {} }), (e: Error) => e.message === `cannot read the journal ${journalPath(file)}: not a regular file (a directory)`);
  assert.deepEqual(service.status(), [], 'no run was registered');
  assert.equal(await service.busyWith(file), null, 'the file is free');
});
