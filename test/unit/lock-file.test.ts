// A lock file appears whole (lock-takeover.ts createLockFile): written to a file of its own, then
// hard-linked into place. Created exclusively and then written, it was empty in between, and a waiter
// that saw it empty for a second (a holder paused there on a loaded machine) took it over as torn.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLockFile } from '../../src/node/lock-takeover.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-lock-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a lock is created with its text, leaves nothing else behind, and is refused with EEXIST while another holds it', async () => {
  const path = join(dir, '.a.lock');
  await createLockFile(path, '{"pid":1}');
  assert.equal(readFileSync(path, 'utf8'), '{"pid":1}');
  await assert.rejects(createLockFile(path, '{"pid":2}'), (e: NodeJS.ErrnoException) => e.code === 'EEXIST');
  assert.equal(readFileSync(path, 'utf8'), '{"pid":1}', "the holder's text is untouched");
  assert.deepEqual(readdirSync(dir), ['.a.lock'], 'no file of its own is left');
});

test('a process reading the lock while others take and release it never finds it empty', async () => {
  const path = join(dir, '.b.lock');
  const stop = join(dir, 'stop');
  // Another process reads the path as fast as it can and counts what it sees.
  const reader = spawn(process.execPath, ['-e', `
    const fs = require('node:fs');
    let empty = 0, whole = 0;
    while (!fs.existsSync(${JSON.stringify(stop)})) {
      let t; try { t = fs.readFileSync(${JSON.stringify(path)}, 'utf8'); } catch { continue; }
      if (t === '') empty++; else whole++;
    }
    process.stdout.write(JSON.stringify({ empty, whole }));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  reader.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const ended = new Promise((r) => reader.on('close', r));
  const text = JSON.stringify({ pid: process.pid, since: Date.now(), nonce: 'x'.repeat(64) });
  try {
    for (let i = 0; i < 3000; i++) {
      await createLockFile(path, text);
      await unlink(path);
    }
  } finally {
    // The reader stops whatever happened here: left, it would spin on a core for the rest of the suite.
    writeFileSync(stop, '');
    setTimeout(() => reader.kill('SIGKILL'), 10_000).unref();
  }
  await ended;
  const seen = JSON.parse(out) as { empty: number; whole: number };
  assert.ok(seen.whole > 0, `the reader saw the lock at all: ${out}`);
  assert.equal(seen.empty, 0, `never empty: ${out}`);
});
