// The write lock of a file (documents/write-lock.ts): one writer at a time, and a lock left by a
// process that is gone taken over by one waiter only. Many waiters find a killed holder's lock at
// once; one that removed the lock after another had already taken it over removed that one's live
// lock, and the two wrote at once (each its read of the file over the other's change).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withWriteLock, writeLockPath } from '../../src/node/documents/write-lock.js';

const gonePid = () => spawnSync('true').pid!;

for (const [what, left] of [
  ['a killed holder', () => JSON.stringify({ pid: gonePid(), since: Date.now() })],
  ['a holder killed between creating its lock and writing it (an empty lock)', () => ''],
] as const) {
  test(`a lock left by ${what}, found by many waiters at once: taken over by one, and never two writers at once`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'varlab-write-lock-'));
    try {
      const file = join(dir, 'hosts.json');
      for (let round = 0; round < 3; round++) {
        writeFileSync(writeLockPath(file), left());
        let inside = 0;
        let most = 0;
        let done = 0;
        await Promise.all(
          Array.from({ length: 12 }, () =>
            withWriteLock(file, async () => {
              most = Math.max(most, ++inside);
              await new Promise((r) => setTimeout(r, 2));
              inside--;
              done++;
            }),
          ),
        );
        assert.equal(done, 12, 'every writer wrote');
        assert.equal(most, 1, `round ${round}: one writer at a time`);
        assert.deepEqual(readdirSync(dir), [], 'no lock or marker is left');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
