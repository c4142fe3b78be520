// The target `local`: the same sandbox, restart and verification as over SSH, through child_process.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, createServerControl, openTarget, removeSandbox, type TargetSession } from '../../src/node/host/index.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-host-local-'));
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
let session: TargetSession | null = null;
let pid: number | null = null;

/** No such process, or a zombie its new parent has not reaped yet. */
function exited(p: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${p}/status`, 'utf8'));
  } catch {
    return true;
  }
}

after(async () => {
  if (pid) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* stopped by the test */
    }
  }
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a local sandbox restarts with CPU binding and ASLR off, verified, then stops and is removed', async () => {
  session = await openTarget('local', { prompt: async () => ({ accept: false }) });
  assert.equal(session.isLocal, true);
  const profile = await createSandbox(session, { parent: dir });
  const control = createServerControl(session, profile, { restoreRecord: join(dir, 'restore.tsv') });
  const s = await control.restart(
    [
      { tunable: 'cpubind', levels: [] },
      { tunable: 'aslr', levels: [] },
    ],
    { cpubind: '1', aslr: 'off' },
  );
  pid = s.pid;
  assert.deepEqual(s.checks.map((c) => `${c.tunable}=${c.level} ${c.ok}`), ['cpubind=1 true', 'aslr=off true']);
  assert.match(readFileSync(`/proc/${s.pid}/status`, 'utf8'), /^Cpus_allowed_list:\s*1$/m);
  const conn = await control.connect();
  const [rows] = await conn.query('SELECT 1 + 1 AS two');
  await conn.end();
  assert.deepEqual(rows, [{ two: 2 }]);
  await control.stop();
  assert.ok(exited(s.pid), 'mysqld has exited when stop() returns');
  await removeSandbox(session, profile);
});
