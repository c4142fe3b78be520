// Commands over SSH go to one shell kept open per connection: each still has its own stdout,
// stderr and exit status, output is streamed by lines, a second command while one runs gets its own
// channel, and a command that times out does not take the next one down with it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { openTarget, type TargetSession } from '../../src/node/host/index.js';
import { CommandTimedOut } from '../../src/node/host/command-timeout.js';

let sshd: Sshd;
let session: TargetSession;

before(async () => {
  sshd = await startSshd();
  session = await openTarget(sshd.target, { auth: { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile }, prompt: async () => ({ accept: false }) });
});

after(async () => {
  await session?.close();
  await sshd?.stop();
});

test('each command keeps its own output, errors and exit status, with or without a last newline', async () => {
  assert.deepEqual(await session.exec('printf abc'), { code: 0, stdout: 'abc', stderr: '' });
  assert.deepEqual(await session.exec("printf 'a\\n\\n'; echo oops >&2; exit 3"), { code: 3, stdout: 'a\n\n', stderr: 'oops\n' });
  // Something that looks like the marker, with another id, is output like any other.
  const fake = await session.exec("printf '\\n\\036VARLAB 0000 7\\nafter\\n'");
  assert.deepEqual(fake, { code: 0, stdout: '\n\x1eVARLAB 0000 7\nafter\n', stderr: '' });
  // Nothing carries over between commands: each runs in its own sh.
  await session.exec('cd /tmp; X=1; exit 0');
  assert.deepEqual(await session.exec('pwd; echo "[$X]"'), { code: 0, stdout: `${(await session.exec('cd; pwd')).stdout.trim()}\n[]\n`, stderr: '' });
  // A command reading its stdin gets nothing instead of eating the next command.
  assert.equal((await session.exec('cat; echo done')).stdout, 'done\n');
});

test('output streams by whole lines while the command runs', async () => {
  const chunks: string[] = [];
  const r = await session.exec('for i in 1 2 3; do echo "line $i"; sleep 0.2; done; printf tail', { onStdout: (c) => chunks.push(c) });
  assert.equal(r.stdout, 'line 1\nline 2\nline 3\ntail');
  assert.equal(chunks.join(''), r.stdout);
  assert.ok(chunks.length >= 3, `streamed in pieces: ${JSON.stringify(chunks)}`);
});

test('a command while another runs gets a channel of its own; a timeout leaves the next command working', async () => {
  const slow = session.exec('sleep 1; echo slow');
  const quick = await session.exec('echo quick');
  assert.equal(quick.stdout, 'quick\n');
  assert.equal((await slow).stdout, 'slow\n');
  // A timeout is flagged as one (CommandTimedOut, with its limit), by the shell and by a channel of its own.
  const timedOut = (e: unknown) => e instanceof CommandTimedOut && e.limitMs === 300 && /did not finish within 0 s/.test(e.message);
  await assert.rejects(session.exec('sleep 5', { timeoutMs: 300 }), timedOut);
  await assert.rejects(session.exec('sleep 5', { timeoutMs: 300, input: '' }), timedOut);
  assert.deepEqual(await session.exec('echo still here'), { code: 0, stdout: 'still here\n', stderr: '' });
});
