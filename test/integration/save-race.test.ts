// Two processes saving one file at once (issue 24, item 9): a CLI run saving its results while the
// app saves a label edit. Each save reads the file, decides and writes; without one writer across
// processes, one of them writes its read of the file over the other's change: the run's newest
// results dropped, or the label edit lost. With the file's write lock, both changes are in the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

const child = (args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; err: string }>((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/save-race-child.ts', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => resolve({ code: code ?? 1, err }));
  });

test('a run saving results and a label edit saving at once: both are in the file, every time', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-race-'));
  try {
    const full = finishedQuickstart(2);
    const fullPath = join(dir, 'full.json');
    writeFileSync(fullPath, JSON.stringify(full));
    const env = { ...process.env, RACE_RESULTS: fullPath, VARLAB_HOME: join(dir, 'home') };
    for (let round = 1; round <= 3; round++) {
      const path = join(dir, `race-${round}.varlab.json`);
      const { results: _none, ...design } = full;
      writeFileSync(path, JSON.stringify(design, null, 2));
      const [run, label] = await Promise.all([child(['run', path, '40'], env), child(['label', path, '40'], env)]);
      assert.equal(run.code, 0, run.err);
      assert.equal(label.code, 0, label.err);
      const doc = JSON.parse(readFileSync(path, 'utf8')) as ExperimentDoc;
      assert.equal(doc.results?.restarts.length, full.results!.restarts.length, `round ${round}: the run's last save (every restart) is in the file`);
      assert.equal(doc.description, 'label 40', `round ${round}: the last label edit is in the file`);
    }
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.lock') || n.endsWith('.tmp')), [], 'no lock or temporary file is left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that was killed mid-save does not stop the next save', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-race-'));
  try {
    const path = join(dir, 'left.varlab.json');
    const { results: _none, ...design } = finishedQuickstart(1);
    writeFileSync(path, JSON.stringify(design));
    // A pid that has exited (a process that ran and ended), as a killed varlab leaves it.
    const gone = spawnSync('true').pid!;
    writeFileSync(join(dir, '.left.varlab.json.lock'), JSON.stringify({ pid: gone, since: Date.now() }));
    const documents = new DocumentService();
    const opened = await documents.open(path);
    await documents.save({ path, doc: { ...opened.doc, description: 'saved after a crash' } });
    documents.dispose();
    assert.equal((JSON.parse(readFileSync(path, 'utf8')) as ExperimentDoc).description, 'saved after a crash');
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.lock')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
