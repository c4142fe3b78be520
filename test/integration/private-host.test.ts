// The suite's private hosts (scripts/testenv/private-host.ts): what a file writes to the host files
// varlab sets and to /var/lib/varlab lands in its own copies, never on the host the suite runs on, so
// files run at once cannot verify each other's settings or leave the machine changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_HOST_SCRIPT } from '../../scripts/testenv/private-host.js';

const ASLR = '/proc/sys/kernel/randomize_va_space';
const THP = '/sys/kernel/mm/transparent_hugepage/enabled';

test('writes to ASLR, THP and /var/lib/varlab inside a private host stay in its copies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-private-host-'));
  const before = { aslr: readFileSync(ASLR, 'utf8'), thp: readFileSync(THP, 'utf8') };
  const marker = `marker-${process.pid}`;
  try {
    const inside = execFileSync('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', PRIVATE_HOST_SCRIPT, 'private-host', dir,
      'sh', '-c', `echo 0 > ${ASLR} && echo never > ${THP} && touch /var/lib/varlab/${marker} && cat ${ASLR} ${THP} && ls /var/lib/varlab`], { encoding: 'utf8' });
    assert.deepEqual(inside.trim().split('\n'), ['0', 'never', marker], 'inside, the writes are seen');
    assert.equal(readFileSync(ASLR, 'utf8'), before.aslr, 'ASLR outside is as it was');
    assert.equal(readFileSync(THP, 'utf8'), before.thp, 'THP outside is as it was');
    assert.equal(existsSync(`/var/lib/varlab/${marker}`), false, 'nothing new in /var/lib/varlab outside');
    assert.equal(readFileSync(join(dir, 'files', ASLR), 'utf8').trim(), '0', 'the copy holds the write');
    assert.ok(existsSync(join(dir, 'records', marker)), 'the record folder is the copy');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
