// Issue 22, a lean restart: the verify step's login begins as soon as the restart script says mysqld
// is ready, while the script still reads the facts and the host's counters and its reply travels back;
// it does not wait for the call's end. A call that fails after the script said ready fails with its
// own error (the early login is closed, never left to fail unhandled).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/common/api.js';
import type { ServerProfile } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { createServerControl } from '../../src/node/host/server.js';
import type { ExecResult, TargetSession } from '../../src/node/host/types.js';

const profile: ServerProfile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/sb/data', socket: '/srv/sb/mysqld.sock', port: 23306, user: 'root', pidFile: '/srv/sb/mysqld.pid', extraArgs: [], sudo: false };
const host = { target: 'fake', probedAt: 0, threads: 2, numaNodes: [], sudoWithoutPassword: true, tools: {}, toolPaths: {}, systemd: false, allocators: {}, arch: 'x86_64' } as unknown as HostFingerprint;

/** A session whose restart call says ready, then waits for `finish` before its reply ends. */
function fakeSession(finish: (onStdout: (chunk: string) => void) => Promise<ExecResult>) {
  const seen: string[] = [];
  const session: TargetSession = {
    target: 'fake',
    isLocal: false,
    async exec(_command, o = {}) {
      seen.push('call');
      const r = await finish((chunk) => o.onStdout?.(chunk));
      seen.push('call ended');
      return r;
    },
    async connectStream() {
      seen.push('login');
      // No server here: the login fails as a refused account does (connectReady gives up at once).
      throw new ApiError('auth', 'no server in this test');
    },
    onDrop: () => () => {},
    anchor: async () => null,
    close: async () => {},
  };
  return { session, seen };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

test("the verify step's login begins when the script says mysqld is ready, before the call ends", async () => {
  const { session, seen } = fakeSession(async (out) => {
    out('@noise begin 1.0 0.1 2 0 0 0 0 - -\n@lap stop 30\n@pid 4242\n');
    await tick();
    assert.deepEqual(seen, ['call'], 'no login before ready');
    out('@ready 120\n');
    await tick();
    assert.deepEqual(seen, ['call', 'login'], 'the login began while the script still ran');
    return { code: 0, stdout: '@lap stop 30\n@pid 4242\n@ready 120\n', stderr: '' };
  });
  const control = createServerControl(session, profile, { host });
  await assert.rejects(control.restart([], {}), /no server in this test/);
  assert.deepEqual(seen, ['call', 'login', 'call ended']);
});

test('a call that fails after the script said ready fails with its own error; the early login is not left unhandled', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    const { session, seen } = fakeSession(async (out) => {
      out('@pid 4242\n@ready 120\n');
      await tick();
      throw new ApiError('connection', 'the connection to fake dropped');
    });
    const control = createServerControl(session, profile, { host });
    await assert.rejects(control.restart([], {}), /the connection to fake dropped/);
    assert.deepEqual(seen, ['call', 'login']);
    await tick();
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('a session that does not stream its output logs in after the call, as before', async () => {
  const { session, seen } = fakeSession(async () => ({ code: 0, stdout: '@pid 4242\n@ready 120\n', stderr: '' }));
  const control = createServerControl(session, profile, { host });
  await assert.rejects(control.restart([], {}), /no server in this test/);
  assert.deepEqual(seen, ['call', 'call ended', 'login']);
});

test("with the measuring account named, a verify login it cannot make falls back to the profile's own login", async () => {
  const { session, seen } = fakeSession(async () => ({ code: 0, stdout: '@pid 4242\n@ready 120\n', stderr: '' }));
  const control = createServerControl(session, profile, { host });
  const proc = await control.procedure([], {});
  await assert.rejects(control.run(proc, { keepLogin: true, verifyAs: { user: 'varlab_measure', password: 'x', database: 'w' } }), /no server in this test/);
  assert.deepEqual(seen, ['call', 'call ended', 'login', 'login'], 'as the account, then as the profile');
});
