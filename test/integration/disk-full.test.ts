// A full disk never truncates a file (issue 24, item 1). On a real tmpfs with a few KiB free: a
// short write is an error and the file keeps its old content; a run whose final save finds the disk
// full says where its results are safe (the journal) and exits non-zero, and the next run of the
// same file rebuilds it from there. Before the fix, the temporary file took what fitted (write(2)
// said so only in its count), was fsynced and renamed over the experiment: 8192 bytes of JSON cut
// mid-way, and "results saved".
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { saveExperimentFile, writeAtomic } from '../../src/node/files.js';
import { runEnvForTests, shortQuickstartCopy, varlabRun, varlabSync } from './run-env.js';

let disk = '';
let mounted = false;
// Registered before the environment's own after(), which removes its folder: unmounted first.
after(() => {
  if (mounted) execFileSync('umount', [disk], { stdio: 'pipe' });
});
const env = runEnvForTests();

/** The experiment files' own small disk, a tmpfs of 1 MiB (mounted at the first test: the environment's folder exists by then). */
function smallDisk(): string {
  if (mounted) return disk;
  disk = join(env.dir, 'disk');
  mkdirSync(disk);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', disk], { stdio: 'pipe' });
  mounted = true;
  return disk;
}

/** Fill the disk, then give back `leave` bytes: what a user's disk looks like just before it is full. */
function fillLeaving(leave: number): void {
  const fd = openSync(join(disk, 'filler'), 'w');
  try {
    const chunk = Buffer.alloc(64 * 1024, 120);
    try {
      for (;;) writeSync(fd, chunk);
    } catch {
      /* full */
    }
    ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leave));
  } finally {
    closeSync(fd);
  }
}

const free = () => statfsSync(disk).bavail * statfsSync(disk).bsize;
const freeDisk = () => rmSync(join(disk, 'filler'), { force: true });
const temporaries = () => readdirSync(disk).filter((n) => n.endsWith('.tmp'));

test('a write that does not fit is an error, and the file keeps its old content', async () => {
  smallDisk();
  const path = join(disk, 'notes.txt');
  writeFileSync(path, 'the old content\n');
  fillLeaving(8192);
  try {
    assert.ok(free() < 12_000, `about 8 KiB free, got ${free()}`);
    // Two pieces of 6000 bytes into 8 KiB: the second write(2) is short. It used to leave 8192 bytes and no error.
    await assert.rejects(writeAtomic(path, ['a'.repeat(6000), 'b'.repeat(6000)]), /ENOSPC|no space/i);
    assert.equal(readFileSync(path, 'utf8'), 'the old content\n');
    assert.deepEqual(temporaries(), [], 'no temporary file is left');

    // The one writer of experiment files: the error names the file, and the file on disk is untouched.
    const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
    const exp = join(disk, 'small.varlab.json');
    freeDisk();
    await saveExperimentFile(exp, { ...doc, description: 'saved while there was room' });
    const saved = readFileSync(exp, 'utf8');
    fillLeaving(4096);
    await assert.rejects(saveExperimentFile(exp, { ...doc, description: 'x'.repeat(20_000) }), (e: Error) => e.message.includes(`cannot write ${exp}`));
    assert.equal(readFileSync(exp, 'utf8'), saved, 'the experiment file is the one saved before');
    assert.deepEqual(temporaries(), []);
  } finally {
    freeDisk();
  }
});

test('a run whose final save finds the disk full says where the results are safe, exits non-zero, and the next run rebuilds the file', { timeout: 300_000 }, async () => {
  const source = shortQuickstartCopy(env, 'full', { factors: [{ tunable: 'ahi', levels: ['on', 'off'] }], restartsPerCell: 2, repetitions: 20, warmup: 0 });
  const file = join(smallDisk(), 'full.varlab.json');
  writeFileSync(file, readFileSync(source));
  const journal = file.replace(/\.json$/, '.journal.jsonl');
  const target = ['--target', env.sshd.target, ...env.authArgs];

  const run = varlabRun([file, ...target], env.varlabHome);
  // Every restart is measured (and journaled); the disk fills before the run stops mysqld and saves.
  await run.waitFor((e) => e.type === 'progress' && e.planned > 0 && e.done === e.planned);
  fillLeaving(4096);
  const code = await run.exit;
  const end = run.events.find((e) => e.type === 'run-finished');
  freeDisk();

  assert.notEqual(code, 0, 'a run whose results did not reach its file does not exit 0');
  assert.ok(end && end.type === 'run-finished' && end.state === 'failed', JSON.stringify(end));
  assert.match(end.message ?? '', new RegExp(`results are safe in ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, but ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be written`));
  assert.doesNotMatch(run.stderr(), /results saved/);
  // The file on disk is whole: the last save that fitted, never a cut one.
  const kept = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.ok((kept.results?.restarts.length ?? 0) <= 4);
  assert.deepEqual(temporaries(), []);

  // The user frees the disk and runs the same command: the file is rebuilt from the journal, every restart in it.
  const again = varlabSync(['run', file, ...target], env.varlabHome);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.results?.restarts.length, 4, `${again.stdout}\n${again.stderr}`);
  assert.ok(statSync(file).size > 8192, 'the whole file could not have fitted in the space left at the final save');
});
